"""What an execution webhook request carries for its receiver to verify: the
HMAC-SHA256 of the body under the execution's secret, the event id and the attempt number, in
`x-<brand>-…` headers sent once for every brand word of the settings, and the Standard Webhooks
`webhook-signature` beside the `webhook-id` and `webhook-timestamp` the worker sends.

The secret never travels on the stream: it is asked of the workflow service, which owns it
(`rpc.workflow.receivers.get`), when a delivery is signed, and remembered per execution, since
an execution's receiver and secret never change. It is never logged, nor put in an error.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Sequence

from nats.aio.client import Client

from redline.bus import rpc
from redline.envelope.errors import ApiError, NotFound
from redline.notify.deliveries.headers import NotReady, Undeliverable
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.proto.rpc import Receiver, ReceiverGet
from redline.proto.subjects import RPC_WORKFLOW_RECEIVER
from redline.webhooks import secret_from_text, sign

# Executions whose receivers are remembered, least recently used forgotten first: more than the
# executions a busy worker sends to within a few minutes.
REMEMBERED_EXECUTIONS = 4096


def brand_words(brands: Sequence[str]) -> list[str]:
    """The brand words of `x-<brand>-…` headers, each once, in lower case."""
    words = [brand.strip().lower() for brand in brands if brand.strip()]
    return list(dict.fromkeys(words)) or ["redline"]


class WorkflowWebhookCredentials:
    def __init__(
        self,
        nc: Client,
        brands: Sequence[str],
        *,
        timeout_s: float = 2.0,
        remembered: int = REMEMBERED_EXECUTIONS,
    ) -> None:
        self._nc = nc
        self._brands = brand_words(brands)
        self._timeout_s = timeout_s
        self._remembered = remembered
        # Per (workspace, API key, execution id); least recently used first.
        self._receivers: OrderedDict[tuple[str, str, str], Receiver] = OrderedDict()

    async def headers(self, delivery: ClaimedDelivery, timestamp: int) -> dict[str, str]:
        receiver = await self._receiver(delivery)
        if receiver.url != delivery.url:
            raise Undeliverable("the execution's webhook URL is not the one of the delivery")
        try:
            key = secret_from_text(receiver.secret)
        except ValueError:
            raise Undeliverable("the execution's webhook secret is whsec_ but not base64") from None
        digest = hmac.new(receiver.secret.encode(), delivery.body, hashlib.sha256).hexdigest()
        headers: dict[str, str] = {}
        for brand in self._brands:
            headers[f"x-{brand}-signature"] = f"sha256={digest}"
            headers[f"x-{brand}-event-id"] = delivery.webhook_id
            # Attempts made before this one: 0 the first time.
            headers[f"x-{brand}-attempt"] = str(delivery.attempts)
        headers["webhook-signature"] = sign(key, delivery.webhook_id, timestamp, delivery.body)
        return headers

    async def _receiver(self, delivery: ClaimedDelivery) -> Receiver:
        # A workflow delivery's ordering key is its execution id (see enqueue.line_of).
        execution = (delivery.workspace_id, delivery.api_key, delivery.ordering_key)
        receiver = self._receivers.get(execution)
        if receiver is not None:
            self._receivers.move_to_end(execution)
            return receiver
        request = ReceiverGet(
            workspaceId=delivery.workspace_id,
            apiKey=delivery.api_key,
            executionId=delivery.ordering_key,
        )
        try:
            receiver = await rpc.call(
                self._nc, RPC_WORKFLOW_RECEIVER, request, Receiver, timeout_s=self._timeout_s
            )
        except NotFound:
            raise Undeliverable("the execution is gone") from None
        except ApiError as exc:
            raise NotReady(f"the execution's receiver cannot be read: {exc.message}") from None
        self._receivers[execution] = receiver
        if len(self._receivers) > self._remembered:
            self._receivers.popitem(last=False)
        return receiver
