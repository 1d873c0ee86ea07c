"""Executions: dispatch (pinning the current version, once per idempotency key), reads of one
execution and of pages of them, the visible event stream, and cancellation."""

from __future__ import annotations

import secrets
import string
from typing import Any

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import FailedPrecondition, InvalidArgument, NotFound
from redline.proto.events import now_ms
from redline.runtime.access import AccessClient
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard
from redline.workflow.definitions.linter.targets import outbound_url_problems
from redline.workflow.definitions.service import definition_receiver_binding
from redline.workflow.engine import storage as engine_storage
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.interventions import cancel_execution
from redline.workflow.engine.outgoing import event_view
from redline.workflow.engine.runs import dispatch
from redline.workflow.engine.state import ExecutionState
from redline.workflow.executions import models, storage
from redline.workflow.executions.storage import DispatchTarget, ExecutionRow, StepRow

_ID_ALPHABET = string.ascii_lowercase + string.digits


def new_execution_id(now: int) -> str:
    return f"exec_{now}_{''.join(secrets.choice(_ID_ALPHABET) for _ in range(8))}"


class ExecutionService:
    def __init__(
        self, engine: Engine, sealer: Sealer, guard: AddressGuard, access: AccessClient
    ) -> None:
        self._engine = engine
        self._access = access
        self._pool = engine.pool
        self._sealer = sealer
        self._guard = guard

    async def dispatch(
        self, principal: ApiKeyPrincipal, request: models.DispatchExecution
    ) -> models.Dispatched:
        self._check_receiver(request)
        if request.organizationId is not None:
            # Nothing runs for a disabled organization or document: it is read-only.
            await self._access.require_writable(
                principal.api_key, request.organizationId, request.documentId
            )
        async with self._pool.acquire() as conn:
            target = await storage.dispatch_target(conn, principal.api_key, request.definitionId)
            if target is None:
                raise NotFound(f"Definition {request.definitionId} not found.")
            if target.status != "active":
                raise FailedPrecondition(f"Definition {request.definitionId} was deleted.")
            _check_scope(target, request)
            graph = await self._engine.graph(conn, target.uid, target.version)
            if not graph.roots:
                raise FailedPrecondition(f"Definition {request.definitionId} has no root nodes.")
            now = now_ms()
            state = self._new_execution(principal, request, target, now)
            sealed = self._receiver_secret(principal, request, target, state.execution_id)
            transition = self._engine.transition(state, graph, now)
            dispatch(transition)
            async with conn.transaction():
                if not await engine_storage.insert_execution(conn, state, sealed):
                    return await self._replay(conn, principal, request)
                await self._engine.write(conn, transition)
        return models.Dispatched(state.execution_id, state.correlation_id, False)

    async def get(
        self, principal: ApiKeyPrincipal, request: models.GetExecution
    ) -> models.ExecutionView:
        async with self._pool.acquire() as conn:
            row = await storage.execution(conn, principal.api_key, request.executionId)
            if row is None:
                raise NotFound(f"Execution {request.executionId} not found.")
            steps = await storage.steps(conn, row.execution_id)
        return _execution_view(row, steps)

    async def list(
        self, principal: ApiKeyPrincipal, request: models.ListExecutions
    ) -> models.ExecutionPage:
        after = _parse_cursor(request.cursor)
        async with self._pool.acquire() as conn:
            rows = await storage.executions(
                conn,
                principal.api_key,
                definition_id=request.definitionId,
                status=request.status,
                after=after,
                limit=request.pageSize + 1,
            )
        has_more = len(rows) > request.pageSize
        rows = rows[: request.pageSize]
        cursor = f"{rows[-1].started_at}:{rows[-1].execution_id}" if has_more else None
        return models.ExecutionPage(
            items=[_execution_view(row, []) for row in rows], nextCursor=cursor, hasMore=has_more
        )

    async def events(
        self, principal: ApiKeyPrincipal, request: models.GetEvents
    ) -> models.EventPage:
        async with self._pool.acquire() as conn:
            row = await storage.execution(conn, principal.api_key, request.executionId)
            if row is None:
                raise NotFound(f"Execution {request.executionId} not found.")
            events = await storage.visible_events(
                conn, row.execution_id, request.sinceSeq, request.pageSize + 1
            )
        has_more = len(events) > request.pageSize
        events = events[: request.pageSize]
        return models.EventPage(
            executionId=row.execution_id,
            events=[event_view(e, row.correlation_id) for e in events],
            nextCursor=events[-1].seq if events else request.sinceSeq,
            hasMore=has_more,
        )

    async def cancel(
        self, principal: ApiKeyPrincipal, request: models.CancelExecution
    ) -> models.CancelledExecution:
        cancelled = await self._engine.change(
            request.executionId,
            principal.api_key,
            lambda t: cancel_execution(t, request.reason),
        )
        return models.CancelledExecution(cancelled=cancelled, executionId=request.executionId)

    def _check_receiver(self, request: models.DispatchExecution) -> None:
        if (request.webhookUrl is None) != (request.webhookSecret is None):
            raise InvalidArgument.field(
                "data.webhookUrl", "webhookUrl and webhookSecret must be provided together"
            )
        if request.webhookUrl is None:
            return
        # The same rule as for the receiver a definition names.
        for found in outbound_url_problems(
            self._guard, request.webhookUrl, "data.webhookUrl", "webhookUrl"
        ):
            raise InvalidArgument.field(found.path, found.message)

    def _new_execution(
        self,
        principal: ApiKeyPrincipal,
        request: models.DispatchExecution,
        target: DispatchTarget,
        now: int,
    ) -> ExecutionState:
        execution_id = new_execution_id(now)
        dispatch_receiver = request.webhookUrl is not None
        return ExecutionState(
            execution_id=execution_id,
            api_key=principal.api_key,
            workspace_id=principal.workspace_id,
            definition_id=request.definitionId,
            definition_uid=target.uid,
            definition_version=target.version,
            status="running",
            correlation_id=request.correlationId or f"corr_{secrets.token_hex(8)}",
            idempotency_key=request.idempotencyKey,
            trigger_context=request.triggerContext or {},
            organization_id=request.organizationId,
            document_id=request.documentId,
            folder_id=request.folderId,
            # A receiver given at dispatch replaces the definition's, event filter included.
            receiver_url=request.webhookUrl if dispatch_receiver else target.receiver_url,
            receiver_event_types=None if dispatch_receiver else target.receiver_event_types,
            graph_state={},
            last_seq=0,
            last_sent_seq=0,
            step_count=0,
            started_at=now,
            new=True,
        )

    def _receiver_secret(
        self,
        principal: ApiKeyPrincipal,
        request: models.DispatchExecution,
        target: DispatchTarget,
        execution_id: str,
    ) -> bytes | None:
        secret = request.webhookSecret
        if secret is None and target.receiver_secret is not None:
            binding = definition_receiver_binding(
                principal.api_key, request.definitionId, target.uid
            )
            secret = self._sealer.unseal(target.receiver_secret, binding)
        if secret is None:
            return None
        return self._sealer.seal(secret, engine_storage.receiver_binding(execution_id))

    async def _replay(
        self, conn: Any, principal: ApiKeyPrincipal, request: models.DispatchExecution
    ) -> models.Dispatched:
        assert request.idempotencyKey is not None
        found = await engine_storage.execution_by_idempotency_key(
            conn, principal.api_key, request.idempotencyKey
        )
        assert found is not None, "the key's execution committed before the conflict"
        execution_id, correlation_id = found
        await engine_storage.append_event(
            conn,
            execution_id,
            "idempotency.suppressed",
            {"idempotencyKey": request.idempotencyKey},
        )
        return models.Dispatched(execution_id, correlation_id, True)


def _check_scope(target: DispatchTarget, request: models.DispatchExecution) -> None:
    level = (target.scope or {}).get("level", "apiKey")
    if level in ("organization", "document") and request.organizationId is None:
        raise InvalidArgument.field(
            "data.organizationId", f"organizationId is required: the definition is {level}-scoped"
        )
    if level == "document" and request.documentId is None:
        raise InvalidArgument.field(
            "data.documentId", "documentId is required: the definition is document-scoped"
        )


def _parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """`<startedAt>:<executionId>` as this service writes it, or a bare `<startedAt>` (what the
    hosted product writes): items older than it."""
    if cursor is None:
        return None
    started, _, execution_id = cursor.partition(":")
    if not started.isdigit() or len(started) > 15:
        raise InvalidArgument.field("data.cursor", "cursor is not one this service gave out")
    return int(started), execution_id


def _execution_view(row: ExecutionRow, steps: list[StepRow]) -> models.ExecutionView:
    failure = row.failure_reason
    return models.ExecutionView(
        executionId=row.execution_id,
        status=row.status,  # type: ignore[arg-type]
        startedAt=row.started_at,
        completedAt=row.completed_at,
        cancelledAt=row.cancelled_at,
        definitionId=row.definition_id,
        definitionVersion=row.definition_version,
        correlationId=row.correlation_id,
        idempotencyKey=row.idempotency_key,
        failureReason=models.ErrorView(failure["code"], failure["message"]) if failure else None,
        steps=[
            models.StepView(
                stepId=s.step_id,
                nodeId=s.node_id,
                nodeType=s.node_type,  # type: ignore[arg-type]
                status=s.status,  # type: ignore[arg-type]
                groupId=s.group_id,
                startedAt=s.started_at,
                completedAt=s.completed_at,
                output=s.output,
                error=models.ErrorView(s.error["code"], s.error["message"]) if s.error else None,
            )
            for s in steps
        ],
    )
