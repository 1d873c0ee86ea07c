"""The webhook, activity and in-app notification settings of API keys, asked of identity and
remembered briefly.

Identity owns the settings; notify reads them over `rpc.identity.config.get` (the receiver's
`authToken` travels only there, never on the stream). An answer is kept for a few seconds and
dropped as soon as identity announces a change of that key's settings.
"""

from __future__ import annotations

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
    async def get(self, api_key: str) -> ApiKeyConfig: ...


async def config_of_event(configs: KeyConfigSource, event: CommentsEvent) -> ApiKeyConfig | None:
    """The current settings of the event's API key; None when the key is gone (nothing is left to
    deliver or record for it) or belongs to another workspace. Other failures raise, and the
    consumer takes the event again later."""
    try:
        config = await configs.get(event.apiKey)
    except (NotFound, Unauthenticated):
        return None
    if config.workspaceId != event.workspaceId:
        log.error("event %s names an API key of another workspace; ignored", event.id)
        return None
    return config


class KeyConfigs:
    def __init__(self, bus: Bus, ttl_s: float, timeout_s: float = 2.0) -> None:
        self._bus = bus
        self._timeout_s = timeout_s
        self._configs: TtlCache[str, ApiKeyConfig] = TtlCache(ttl_s)
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
        epoch = self._configs.epoch
        config = await rpc.call(
            self._bus.nc,
            RPC_CONFIG_GET,
            ConfigGetRequest(apiKey=api_key),
            ApiKeyConfig,
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
