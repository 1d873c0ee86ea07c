"""What a basic webhook request carries for its receiver to verify: `Authorization: Basic
<authToken>`, the token as configured (not re-encoded), read from identity at send time so a
rotated token is used from the next attempt on.

Read at send time, the token may be newer than the delivery: it goes only where the key points
now. A delivery whose URL the key no longer names, or queued before webhooks were turned off,
fails unsent, with the reason, rather than hand the current token to a receiver the customer
retired."""

from __future__ import annotations

from redline.envelope.errors import ApiError, NotFound, Unauthenticated
from redline.notify.deliveries.headers import NotReady, Undeliverable
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.key_config import KeyConfigSource
from redline.webhooks import is_header_value


class BasicWebhookCredentials:
    def __init__(self, configs: KeyConfigSource) -> None:
        self._configs = configs

    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        try:
            config = await self._configs.get(delivery.api_key)
        except (NotFound, Unauthenticated):
            raise Undeliverable("the API key no longer exists") from None
        except ApiError as exc:
            raise NotReady(f"the key's webhook settings cannot be read: {exc.message}") from None
        if config.workspaceId != delivery.workspace_id:
            raise Undeliverable("the API key belongs to another workspace")
        settings = config.webhook.webhookServiceConfig
        if not config.webhook.useWebhookService:
            raise Undeliverable("webhooks were turned off for the API key")
        if delivery.url not in (settings.rawNotificationUrl, settings.processedNotificationUrl):
            raise Undeliverable("the API key's webhook URL has changed since")
        token = settings.authToken
        if not token:
            return {}
        if not is_header_value(token):
            # Saved before identity checked tokens: it can never be sent, so the delivery
            # fails, visibly, instead of waiting for ever.
            raise Undeliverable("the webhook authToken is not printable ASCII")
        return {"Authorization": f"Basic {token}"}
