"""The webhook, activity and in-app notification settings of API keys, asked of identity and
remembered briefly.

Identity owns the settings; notify reads them over `rpc.identity.config.get`, and the advanced
webhook endpoints over `rpc.identity.advanced_webhooks.get` (the receiver's `authToken` and the
endpoints' signing secrets travel only there, never on the stream). An answer is kept for a few
seconds and dropped as soon as identity announces a change of that key's settings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import msgspec
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope.errors import NotFound, Unauthenticated
from redline.proto.events import CommentsEvent, decode_event
from redline.proto.rpc import AdvancedWebhooks, AdvancedWebhooksGet, ApiKeyConfig, ConfigGetRequest
from redline.proto.subjects import CONFIG_EVENTS, RPC_ADVANCED_WEBHOOKS_GET, RPC_CONFIG_GET
from redline.runtime.cache import TtlCache

log = logging.getLogger("redline.notify.key_config")


class OfWorkspace(Protocol):
    """An answer about an API key that names the key's workspace, for the caller to check."""

    @property
    def workspaceId(self) -> str: ...


Known = TypeVar("Known", bound=OfWorkspace, covariant=True)
Found = TypeVar("Found", bound=OfWorkspace)


class KeySource(Protocol[Known]):
    """Where answers about an API key come from (`KeyConfigs`, `KeyEndpoints`)."""

    async def get(self, api_key: str) -> Known: ...


KeyConfigSource = KeySource[ApiKeyConfig]
AdvancedWebhookSource = KeySource[AdvancedWebhooks]


async def config_of_event(configs: KeySource[Found], event: CommentsEvent) -> Found | None:
    """What identity says of the event's API key now; None when the key is gone (nothing is
    left to deliver or record for it) or belongs to another workspace. Other failures raise, and
    the consumer takes the event again later."""
    try:
        config = await configs.get(event.apiKey)
    except (NotFound, Unauthenticated):
        return None
    if config.workspaceId != event.workspaceId:
        log.error("event %s names an API key of another workspace; ignored", event.id)
        return None
    return config


Answer = TypeVar("Answer", bound=msgspec.Struct)


class KeyAnswers(Generic[Answer]):
    """Identity's answers about one API key on one RPC subject, each kept until it expires or
    identity announces a change of the key's settings."""

    def __init__(
        self,
        bus: Bus,
        subject: str,
        request: Callable[[str], msgspec.Struct],
        answer: type[Answer],
        ttl_s: float,
        timeout_s: float = 2.0,
    ) -> None:
        self._bus = bus
        self._subject = subject
        self._request = request
        self._answer = answer
        self._timeout_s = timeout_s
        self._configs: TtlCache[str, Answer] = TtlCache(ttl_s)
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        if self._subscription is None:
            self._subscription = await self._bus.nc.subscribe(CONFIG_EVENTS, cb=self._on_change)

    async def stop(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            await subscription.unsubscribe()

    async def get(self, api_key: str) -> Answer:
        """The key's current answer; raises the RPC's error (UNAVAILABLE, NOT_FOUND, …)."""
        cached = self._configs.get(api_key)
        if cached is not None:
            return cached
        epoch = self._configs.epoch
        config = await rpc.call(
            self._bus.nc,
            self._subject,
            self._request(api_key),
            self._answer,
            timeout_s=self._timeout_s,
        )
        self._configs.put(api_key, config, since=epoch)
        return config

    async def _on_change(self, msg: Msg) -> None:
        try:
            event = decode_event(msg.data)
        except Exception:
            # Something this version does not know: forget everything rather than keep stale.
            self._configs.drop_where(lambda _: True)
            return
        api_key = getattr(event, "apiKey", None)
        if isinstance(api_key, str):
            self._configs.drop(api_key)
        else:
            self._configs.drop_where(lambda _: True)


class KeyConfigs(KeyAnswers[ApiKeyConfig]):
    """The webhook and activity settings of API keys."""

    def __init__(self, bus: Bus, ttl_s: float, timeout_s: float = 2.0) -> None:
        super().__init__(
            bus,
            RPC_CONFIG_GET,
            lambda key: ConfigGetRequest(apiKey=key),
            ApiKeyConfig,
            ttl_s,
            timeout_s,
        )


class KeyEndpoints(KeyAnswers[AdvancedWebhooks]):
    """The advanced webhook settings and endpoints of API keys, with their signing secrets."""

    def __init__(self, bus: Bus, ttl_s: float, timeout_s: float = 2.0) -> None:
        super().__init__(
            bus,
            RPC_ADVANCED_WEBHOOKS_GET,
            lambda key: AdvancedWebhooksGet(apiKey=key),
            AdvancedWebhooks,
            ttl_s,
            timeout_s,
        )
