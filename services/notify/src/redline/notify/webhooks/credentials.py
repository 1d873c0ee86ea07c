"""What a basic webhook request carries for its receiver to verify: `Authorization: Basic
<authToken>`, the token as configured (not re-encoded), read from identity at send time so a
rotated token is used from the next attempt on."""

from __future__ import annotations

from redline.envelope.errors import ApiError, NotFound, Unauthenticated
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.deliveries.worker import NotReady, Undeliverable
from redline.notify.key_config import KeyConfigs


class BasicWebhookCredentials:
    def __init__(self, configs: KeyConfigs) -> None:
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
        token = config.webhook.webhookServiceConfig.authToken
        return {"Authorization": f"Basic {token}"} if token else {}
