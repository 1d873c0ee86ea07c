"""Notify's reads of a key's settings: consumers that read one event at once ask identity once,
and a change identity announces is read fresh."""

from __future__ import annotations

import asyncio

from redline.bus import Bus, rpc
from redline.notify.key_config import KeyConfigs
from redline.proto.events import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    WebhookConfigState,
    WebhookConfigUpdated,
    encode_event,
)
from redline.proto.rpc import ApiKeyConfig, ConfigGetRequest
from redline.proto.subjects import RPC_CONFIG_GET


class Identity:
    """Answers `rpc.identity.config.get` a little slowly, counting the questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.use_webhooks = False

    async def answer(self, request: ConfigGetRequest) -> ApiKeyConfig:
        self.asked.append(request.apiKey)
        await asyncio.sleep(0.05)
        return ApiKeyConfig(
            workspaceId="ws1",
            apiKey=request.apiKey,
            webhook=WebhookConfigState(useWebhookService=self.use_webhooks),
            advancedWebhook=AdvancedWebhookConfigState(),
            activity=ActivityConfigState(),
        )


async def test_readers_of_one_key_at_once_share_one_question(bus: Bus) -> None:
    identity = Identity()
    served = await rpc.serve(bus.nc, RPC_CONFIG_GET, ConfigGetRequest, identity.answer)
    configs = KeyConfigs(bus, ttl_s=30)
    await configs.start()
    try:
        # Three consumers (webhooks, activities, notifications) read the same event.
        answers = await asyncio.gather(*(configs.get("key1") for _ in range(3)))
        await configs.get("key1")

        assert identity.asked == ["key1"]
        assert all(a.apiKey == "key1" for a in answers)

        identity.use_webhooks = True
        change = WebhookConfigUpdated(
            workspaceId="ws1", apiKey="key1", config=WebhookConfigState(useWebhookService=True)
        )
        await bus.nc.publish(change.subject, encode_event(change))
        await bus.nc.flush()
        await asyncio.sleep(0.1)

        fresh = await configs.get("key1")
        assert fresh.webhook.useWebhookService is True
        assert identity.asked == ["key1", "key1"]
    finally:
        await configs.stop()
        await served.unsubscribe()


async def test_a_reader_that_gives_up_leaves_the_question_to_the_others(bus: Bus) -> None:
    identity = Identity()
    served = await rpc.serve(bus.nc, RPC_CONFIG_GET, ConfigGetRequest, identity.answer)
    configs = KeyConfigs(bus, ttl_s=30)
    try:
        impatient = asyncio.create_task(configs.get("key1"))
        patient = asyncio.create_task(configs.get("key1"))
        await asyncio.sleep(0.01)
        impatient.cancel()

        answer = await patient
        assert answer.apiKey == "key1"
        assert identity.asked == ["key1"]
    finally:
        await served.unsubscribe()
