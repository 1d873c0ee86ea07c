"""The settings of API keys that notify acts on, asked of identity and remembered briefly.

Identity owns the settings; notify reads all of one key's in one answer over
`rpc.identity.config.get` (webhooks, advanced endpoints with their signing secrets, activity
logs, notifications, mail: the secrets travel only there, never on the stream). One `KeyConfigs`
serves every consumer of the process, so an event that three consumers read costs one question:
an answer is kept for a few seconds, dropped as soon as identity announces a change of that
key's settings, and consumers that ask for the same key at once share one question.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope.errors import NotFound, Unauthenticated
from redline.proto.events import CommentsEvent, decode_event
from redline.proto.rpc import ApiKeyConfig, ConfigGetRequest
from redline.proto.subjects import CONFIG_EVENTS, RPC_CONFIG_GET
from redline.runtime.cache import TtlCache

log = logging.getLogger("redline.notify.key_config")


class KeyConfigSource(Protocol):
    """Where the settings of an API key come from (`KeyConfigs`; tests give their own)."""

    async def get(self, api_key: str) -> ApiKeyConfig: ...


async def config_of_event(configs: KeyConfigSource, event: CommentsEvent) -> ApiKeyConfig | None:
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


class KeyConfigs:
    """Identity's answers about API keys, each kept until it expires or identity announces a
    change of the key's settings."""

    def __init__(self, bus: Bus, ttl_s: float, timeout_s: float = 2.0) -> None:
        self._bus = bus
        self._timeout_s = timeout_s
        self._configs: TtlCache[str, ApiKeyConfig] = TtlCache(ttl_s)
        # Questions on their way, by key and by the cache's epoch when asked: a caller that comes
        # after a change was announced asks again rather than take an answer from before it.
        self._asking: dict[tuple[str, int], asyncio.Future[ApiKeyConfig]] = {}
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        if self._subscription is None:
            self._subscription = await self._bus.nc.subscribe(CONFIG_EVENTS, cb=self._on_change)

    async def stop(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            await subscription.unsubscribe()

    async def get(self, api_key: str) -> ApiKeyConfig:
        """The key's current settings; raises the RPC's error (UNAVAILABLE, NOT_FOUND, …)."""
        cached = self._configs.get(api_key)
        if cached is not None:
            return cached
        asked = (api_key, self._configs.epoch)
        answer = self._asking.get(asked)
        if answer is None:
            answer = asyncio.ensure_future(self._ask(*asked))
            self._asking[asked] = answer
            answer.add_done_callback(lambda done: self._settled(asked, done))
        # Shielded: a caller that is cancelled leaves the question to the others waiting on it.
        return await asyncio.shield(answer)

    async def _ask(self, api_key: str, epoch: int) -> ApiKeyConfig:
        config = await rpc.call(
            self._bus.nc,
            RPC_CONFIG_GET,
            ConfigGetRequest(apiKey=api_key),
            ApiKeyConfig,
            timeout_s=self._timeout_s,
        )
        self._configs.put(api_key, config, since=epoch)
        return config

    def _settled(self, asked: tuple[str, int], answer: asyncio.Future[ApiKeyConfig]) -> None:
        self._asking.pop(asked, None)
        if not answer.cancelled():
            # Retrieved here so that a failure every waiter left behind is not reported unseen.
            answer.exception()

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
