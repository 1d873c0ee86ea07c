"""The headers of a basic webhook request, from the key's settings as they are at send time."""

from __future__ import annotations

import msgspec
import pytest

from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.deliveries.worker import Undeliverable
from redline.notify.webhooks.credentials import BasicWebhookCredentials
from redline.proto.events import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    WebhookConfigState,
    WebhookServiceConfigState,
)
from redline.proto.rpc import ApiKeyConfig

RAW_URL = "https://hooks.example.com/raw"
PROCESSED_URL = "https://hooks.example.com/processed"
DELIVERY = ClaimedDelivery(
    id=1,
    webhook_id="msg_e1_raw",
    workspace_id="ws1",
    api_key="key1",
    kind="basic",
    url=RAW_URL,
    ordering_key="org1/doc1",
    body=b"{}",
    attempts=0,
    round_failures=0,
    claim_token="t",
)


class Settings:
    """The key's settings as identity would answer them now."""

    def __init__(self, **webhook: object) -> None:
        service = {"rawNotificationUrl": RAW_URL, "authToken": "s3cret", **webhook}
        use = bool(service.pop("useWebhookService", True))
        self.config = ApiKeyConfig(
            workspaceId="ws1",
            apiKey="key1",
            webhook=WebhookConfigState(
                useWebhookService=use,
                webhookServiceConfig=msgspec.convert(service, WebhookServiceConfigState),
            ),
            advancedWebhook=AdvancedWebhookConfigState(),
            activity=ActivityConfigState(),
        )

    async def get(self, api_key: str) -> ApiKeyConfig:
        assert api_key == "key1"
        return self.config


async def headers(settings: Settings, delivery: ClaimedDelivery = DELIVERY) -> dict[str, str]:
    return await BasicWebhookCredentials(settings).headers(delivery, 0)


async def test_the_token_goes_as_configured() -> None:
    assert await headers(Settings(authToken="s3cret token")) == {
        "Authorization": "Basic s3cret token"
    }
    assert await headers(Settings(authToken="")) == {}


async def test_a_delivery_goes_to_a_url_the_key_still_names_for_either_target() -> None:
    moved = Settings(rawNotificationUrl=PROCESSED_URL, processedNotificationUrl=RAW_URL)

    assert await headers(moved) == {"Authorization": "Basic s3cret"}


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        (Settings(rawNotificationUrl="https://new.example.com/raw"), "URL has changed"),
        (Settings(rawNotificationUrl=""), "URL has changed"),
        (Settings(useWebhookService=False), "turned off"),
        # Saved before such tokens were refused: no HTTP client can send them.
        (Settings(authToken="a\r\nX-Injected: 1"), "printable ASCII"),
        (Settings(authToken="\x01"), "printable ASCII"),
        (Settings(authToken="jeton-é"), "printable ASCII"),
    ],
)
async def test_a_delivery_the_settings_no_longer_allow_fails_unsent(
    settings: Settings, reason: str
) -> None:
    with pytest.raises(Undeliverable, match=reason):
        await headers(settings)
