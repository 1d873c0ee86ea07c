"""Starting executions from triggers: an inbound webhook delivery checked against its trigger,
and the dispatch a trigger makes, which every trigger shares.

A triggered run is dispatched as its definition's owner (the API key and workspace the
definition belongs to) and inherits the definition's scope: ids in a delivery's body never set
the run's organization or document.

The API key of an inbound delivery only names whose definitions to look in; the trigger's
`secret` is what authenticates it. Secrets stay in the stored definition body (reads return
them, as the hosted product's do) and are never logged: log lines name the definition and the
trigger only.

A delivery that names no trigger of the key and one that does not carry the trigger's secret
(or carries it outside the replay window) get one answer, word for word: a stranger cannot
learn which ids exist. Authenticated deliveries are counted per trigger; over the limit they
are refused with RESOURCE_EXHAUSTED (only a holder of the secret ever sees that answer, so it
tells nothing to anyone else, and strangers cannot use up a trigger's budget).

Each delivery dispatches with an idempotency key, so a copy dispatches nothing new: the key is
the source event's id when there is one, else the digest of what the signature covers. A
bearer delivery without an id has neither and starts a run each time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec
from msgspec import UnsetType

from redline.envelope import ApiKeyPrincipal, RateLimiter, Tier, decode_document
from redline.envelope.errors import FailedPrecondition, InvalidArgument, Unauthenticated
from redline.pg import Pool
from redline.workflow.definitions.models import DefinitionBody, effective_scope
from redline.workflow.definitions.triggers import InboundWebhook, Trigger
from redline.workflow.executions.models import Dispatched, DispatchExecution
from redline.workflow.executions.service import ExecutionService
from redline.workflow.triggers import storage
from redline.workflow.triggers.idempotency import trigger_key
from redline.workflow.triggers.models import EVENT_IGNORED, InboundAnswer, InboundDelivery
from redline.workflow.triggers.providers import Preset, authentic, event_name, preset_for
from redline.workflow.triggers.signatures import Verified
from redline.workflow.triggers.storage import TriggerSource

# The one answer to a delivery that cannot be matched to a trigger it authenticates for.
REFUSED = (
    "No inbound webhook trigger of this API key matches the request with its secret, or the"
    " delivery is outside the replay window."
)


class _Authentic(NamedTuple):
    """A delivery's trigger, found and its signature verified."""

    source: TriggerSource
    webhook: InboundWebhook
    preset: Preset
    verified: Verified


class TriggerService:
    def __init__(
        self,
        pool: Pool,
        executions: ExecutionService,
        brands: Sequence[str],
        *,
        replay_window_s: float,
        limiter: RateLimiter,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._pool = pool
        self._executions = executions
        self._brands = tuple(brands)
        self._replay_window_s = replay_window_s
        self._clock = clock
        # Holds Tier.INBOUND_TRIGGER: deliveries per trigger, shared by the replicas.
        self._limiter = limiter

    async def receive(self, delivery: InboundDelivery) -> InboundAnswer:
        if not delivery.api_key:
            raise InvalidArgument.field(
                f"headers.x-{self._brands[0]}-api-key",
                f"The API key is required: header x-{self._brands[0]}-api-key or ?apiKey=.",
                code="missing_field",
            )
        document = decode_document(delivery.body, dict[str, Any])
        definition_id = delivery.definition_id or _required_id(document, "definitionId")
        trigger_id = delivery.trigger_id or _required_id(document, "triggerId")
        found = await self._authenticated(delivery.api_key, delivery, definition_id, trigger_id)
        await self._limiter.hit(
            Tier.INBOUND_TRIGGER, "\x00".join((delivery.api_key, definition_id, trigger_id))
        )
        webhook, preset = found.webhook, found.preset
        if not _event_allowed(webhook, preset, delivery.headers, document):
            return EVENT_IGNORED
        source_id = _source_id(webhook, preset, delivery.headers, document, found.verified)
        dispatched = await self._start(
            delivery.api_key,
            definition_id,
            found.source,
            trigger_key(trigger_id, definition_id, source_id) if source_id else None,
            _trigger_context(webhook, document),
        )
        return InboundAnswer(
            ok=True,
            code="accepted",
            executionId=dispatched.executionId,
            deduplicated=dispatched.deduplicated,
        )

    async def _authenticated(
        self, api_key: str, delivery: InboundDelivery, definition_id: str, trigger_id: str
    ) -> _Authentic:
        """The inbound webhook trigger a delivery names, and what its signature (or secret)
        verified; one refusal, whichever of them is missing or wrong."""
        source = None
        if _storable(api_key, definition_id, trigger_id):
            async with self._pool.acquire() as conn:
                source = await storage.active_definition(conn, api_key, definition_id)
        webhook = _inbound_webhook(source, trigger_id)
        preset = None if webhook is None else preset_for(webhook, self._brands)
        verified = None
        if webhook is not None and preset is not None:
            verified = authentic(
                webhook,
                preset,
                delivery.headers,
                delivery.body,
                now_s=self._clock(),
                window_s=self._replay_window_s,
            )
        if source is None or webhook is None or preset is None or verified is None:
            raise Unauthenticated(REFUSED)
        return _Authentic(source, webhook, preset, verified)

    async def start_scheduled(
        self, api_key: str, definition_id: str, key: str, context: dict[str, Any]
    ) -> Dispatched:
        async with self._pool.acquire() as conn:
            source = await storage.active_definition(conn, api_key, definition_id)
        if source is None:
            raise FailedPrecondition(f"Definition {definition_id} is no longer active.")
        return await self._start(api_key, definition_id, source, key, context)

    async def _start(
        self,
        api_key: str,
        definition_id: str,
        source: TriggerSource,
        key: str | None,
        context: dict[str, Any],
    ) -> Dispatched:
        """Dispatch a run of the definition as its owner, in the definition's scope."""
        scope = effective_scope(msgspec.convert(source.body, DefinitionBody))
        principal = ApiKeyPrincipal(workspace_id=source.workspace_id, api_key=api_key)
        request = DispatchExecution(
            definitionId=definition_id,
            idempotencyKey=key,
            triggerContext=context,
            organizationId=scope.organizationId,
            documentId=scope.documentId,
        )
        return await self._executions.dispatch(principal, request)


def _required_id(document: Mapping[str, Any], name: str) -> str:
    value = document.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidArgument.field(
            name,
            f"{name} is required, in the query string or in the body.",
            code="missing_field",
        )
    return value


def _storable(*values: str) -> bool:
    """Whether each value could be a stored id: PostgreSQL text holds neither NUL nor the
    surrogates aiohttp keeps for bytes that are not UTF-8. Any other is simply unknown."""
    try:
        for value in values:
            value.encode()
    except UnicodeEncodeError:
        return False
    return not any("\x00" in value for value in values)


def _inbound_webhook(source: TriggerSource | None, trigger_id: str) -> InboundWebhook | None:
    if source is None:
        return None
    for trigger in _triggers(source):
        if trigger.triggerId == trigger_id and not isinstance(trigger.inboundWebhook, UnsetType):
            return trigger.inboundWebhook
    return None


def _triggers(source: TriggerSource) -> list[Trigger]:
    return msgspec.convert(source.body.get("triggers", []), list[Trigger])


def _event_allowed(
    webhook: InboundWebhook,
    preset: Preset,
    headers: Mapping[str, str],
    document: Mapping[str, Any],
) -> bool:
    """The `allowedEvents` gate fails closed: an event whose name cannot be found is dropped."""
    if isinstance(webhook.allowedEvents, UnsetType):
        return True
    return event_name(preset, headers, document) in webhook.allowedEvents


def _source_id(
    webhook: InboundWebhook,
    preset: Preset,
    headers: Mapping[str, str],
    document: Mapping[str, Any],
    verified: Verified,
) -> str | None:
    """The source event's id: the configured header, else the configured body path, else the
    provider's own delivery id; without one, the digest of the signed content, so a copy of
    a delivery finds the run the first one started. None (a bearer delivery without an id):
    each request starts a run of its own."""
    found = _event_id(webhook, preset, headers, document)
    if found is None and verified.digest is not None:
        return f"signed-{verified.digest}"
    return found


def _event_id(
    webhook: InboundWebhook,
    preset: Preset,
    headers: Mapping[str, str],
    document: Mapping[str, Any],
) -> str | None:
    header, path = webhook.idempotencyHeader, webhook.idempotencyBodyPath
    found: Any = None
    if isinstance(header, UnsetType) and isinstance(path, UnsetType):
        if preset.delivery_id_header is not None:
            found = headers.get(preset.delivery_id_header)
        elif preset.delivery_id_body_path is not None:
            found = _at_path(document, preset.delivery_id_body_path)
    else:
        if not isinstance(header, UnsetType):
            found = headers.get(header)
        if found is None and not isinstance(path, UnsetType):
            found = _at_path(document, path)
    # An id is a string or an integer; anything else (an object, true) identifies nothing.
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    return str(found).strip() or None


def _at_path(document: Mapping[str, Any], path: str) -> Any:
    """The value at a dot-path such as `event.id` (a numeric part indexes an array)."""
    value: Any = document
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _trigger_context(webhook: InboundWebhook, document: dict[str, Any]) -> dict[str, Any]:
    """`velt` bodies are `{definitionId, triggerId, payload}` and the payload is the context;
    every other provider's whole body is. `wrap` nests it under `source`."""
    context = document
    if webhook.effective_provider == "velt":
        payload = document.get("payload", {})
        if not isinstance(payload, dict):
            raise InvalidArgument.field("payload", "payload must be a JSON object.")
        context = payload
    if webhook.effective_payload_mapping == "wrap":
        return {"source": context}
    return context
