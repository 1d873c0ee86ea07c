"""What an advanced webhook request carries for its receiver to verify: the Standard Webhooks
`webhook-signature` (beside the `webhook-id` and `webhook-timestamp` the worker sends), made with
the endpoint's signing secret, read from identity at send time.

The endpoint is read again when a delivery is sent: one deleted, disabled or pointed elsewhere
since the event was queued gets nothing, and the delivery fails unsent with the reason. The
secret is never logged, nor put in an error.

The endpoint's `rateLimit` (deliveries per second) is read the same way, just before, for the
worker to space its deliveries (`deliveries.rates`).
"""

from __future__ import annotations

from redline.envelope.errors import ApiError, NotFound, Unauthenticated
from redline.notify.deliveries.headers import NotReady, Undeliverable
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.key_config import KeyConfigSource
from redline.proto.rpc import AdvancedEndpointState
from redline.webhooks import secret_from_text, sign


class AdvancedWebhookCredentials:
    def __init__(self, configs: KeyConfigSource) -> None:
        self._configs = configs

    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        endpoint = await self._endpoint(delivery)
        try:
            key = secret_from_text(endpoint.secret)
        except ValueError:
            raise Undeliverable("the endpoint's signing secret is whsec_ but not base64") from None
        return {"webhook-signature": sign(key, delivery.webhook_id, timestamp, delivery.body)}

    async def rate_of(self, delivery: ClaimedDelivery) -> int | None:
        try:
            endpoint = await self._endpoint(delivery)
        except (NotReady, Undeliverable):
            return None  # the headers say why it cannot be sent
        return endpoint.rateLimit

    async def _endpoint(self, delivery: ClaimedDelivery) -> AdvancedEndpointState:
        try:
            config = await self._configs.get(delivery.api_key)
        except (NotFound, Unauthenticated):
            raise Undeliverable("the API key no longer exists") from None
        except ApiError as exc:
            raise NotReady(f"the key's advanced webhooks cannot be read: {exc.message}") from None
        if config.workspaceId != delivery.workspace_id:
            raise Undeliverable("the API key belongs to another workspace")
        if not config.advancedWebhook.isEnabled:
            raise Undeliverable("advanced webhooks were turned off for the API key")
        endpoint = next((e for e in config.advancedEndpoints if e.id == delivery.target), None)
        if endpoint is None:
            raise Undeliverable("the advanced webhook endpoint was deleted")
        if endpoint.disabled:
            raise Undeliverable("the advanced webhook endpoint is disabled")
        if endpoint.url != delivery.url:
            raise Undeliverable("the advanced webhook endpoint's URL has changed since")
        return endpoint
