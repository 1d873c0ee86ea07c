"""Recording judgments from domain events (the `memory-judgments` consumer).

Callers never write judgments; review decisions become judgments as they happen:
- a suggestion accepted → `approved`, rejected → `rejected` (the reason is the reasoning);
- an annotation moved to a `terminal` status → `resolve`;
- a reply on an agent's annotation → `comment`;
- a reviewer's decision at a workflow's human step → `approve` or `reject` (judge `human`), and
  an agent step's outcome or a resolution recorded for it → the same (judge `agent`).
Events of other kinds are passed over, so the consumer stays open to new event types. The record
id is derived from the event id: the vectors are written first under ids derived from it, then
the row, whose insert does nothing the second time, so a redelivered event changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from msgspec import UNSET

from redline.memory.embedding import EmbeddingRunner
from redline.memory.judgments import storage
from redline.memory.patterns.service import PatternService
from redline.memory.vectors import JUDGMENTS, Tenant, VectorPoint, VectorStore, point_id
from redline.memory.vectors.store import tenant_payload
from redline.pg import Pool
from redline.proto.annotation import Annotation, Comment
from redline.proto.events import (
    AgentDecisionRecorded,
    CommentAdded,
    CommentsEvent,
    Event,
    ReviewerDecisionRecorded,
    StatusChanged,
    SuggestionAccepted,
    SuggestionRejected,
    WorkflowDecision,
)

log = logging.getLogger("redline.memory.judgments")

HUMAN_CONFIDENCE = 1.0


def _text(comment: Comment | None) -> str:
    return (comment.text if comment is not None else None) or ""


def _agent_reason(annotation: Annotation) -> dict[str, Any]:
    agent = annotation.agent
    return {} if agent is UNSET or agent.reason is UNSET else agent.reason


def _context(annotation: Annotation) -> dict[str, Any]:
    return {} if annotation.context is UNSET else annotation.context


def reviewed_content(annotation: Annotation) -> str:
    """What was reviewed: the annotation's target text where it has one, an agent finding's
    title, description and proposal, and the root comment."""
    parts = []
    reason = _agent_reason(annotation)
    parts += [str(reason[k]) for k in ("title", "description", "suggestion") if reason.get(k)]
    context = _context(annotation)
    for key in ("targetText", "text", "content"):
        if isinstance(context.get(key), str):
            parts.append(context[key])
            break
    parts.append(_text(annotation.root))
    return "\n".join(p for p in parts if p)


def _last_reply(annotation: Annotation) -> str:
    """The last comment's text, when the thread has more than its root."""
    comments = annotation.comments
    return _text(comments[-1]) if len(comments) > 1 else ""


def _decision(event: Event) -> tuple[str, str] | None:
    """The decision an event makes and its reasoning, or None for events that decide nothing."""
    if isinstance(event, SuggestionAccepted | SuggestionRejected):
        decision = "approved" if isinstance(event, SuggestionAccepted) else "rejected"
        return decision, event.reason or _last_reply(event.annotation)
    if isinstance(event, StatusChanged):
        if event.newStatus is None or event.newStatus.type != "terminal":
            return None
        return "resolve", _last_reply(event.annotation)
    if isinstance(event, CommentAdded):
        annotation = event.annotation
        on_agent = annotation.sourceType == "agent" or annotation.agent is not UNSET
        if not on_agent or event.commentId == 1:
            return None
        return "comment", _text(event.comment)
    return None


def judgment_of(event: Event) -> storage.JudgmentRow | None:
    if isinstance(event, WorkflowDecision):
        return _workflow_judgment(event)
    decided = _decision(event)
    if decided is None or not isinstance(event, CommentsEvent):
        return None
    decision, reasoning = decided
    annotation = event.annotation
    user = event.actionUser or {}
    content_type = (
        _context(annotation).get("contentType")
        or _agent_reason(annotation).get("issueType")
        or annotation.type
    )
    return storage.JudgmentRow(
        api_key=event.apiKey,
        record_id="jdg_" + event.id,
        workspace_id=event.workspaceId,
        organization_id=event.organizationId,
        document_id=event.documentId,
        annotation_id=event.annotationId,
        decision=decision,
        reasoning=reasoning,
        confidence=HUMAN_CONFIDENCE,
        judge_type="human",
        content_type=str(content_type) if content_type else None,
        reviewer_id=user.get("userId"),
        action_user={k: user[k] for k in ("userId", "name", "email") if k in user},
        agent=None,
        content=reviewed_content(annotation),
        source_event=event.subject.removeprefix("evt."),
        created_at=event.occurredAt,
    )


def _workflow_judgment(event: WorkflowDecision) -> storage.JudgmentRow:
    """A decision at a workflow step. Its content type is the definition's id, so that the
    patterns of one workflow's reviews group together."""
    agent = None
    action_user: dict[str, Any] = {}
    reviewer_id = None
    if isinstance(event, ReviewerDecisionRecorded):
        reviewer_id = event.reviewerId
        action_user = {"userId": event.reviewerId}
        action_user.update(
            {k: v for k, v in (("name", event.reviewerName), ("email", event.reviewerEmail)) if v}
        )
    elif isinstance(event, AgentDecisionRecorded):
        agent = {
            "agentId": event.agentId,
            "agentType": "workflow",
            "executionId": event.executionId,
            "agentFields": event.agentFields or {},
        }
    return storage.JudgmentRow(
        api_key=event.apiKey,
        record_id="jdg_" + event.id,
        workspace_id=event.workspaceId,
        organization_id=event.organizationId,
        document_id=event.documentId if event.organizationId else None,
        annotation_id=None,
        decision=event.decision,
        reasoning=event.reason or "",
        confidence=HUMAN_CONFIDENCE,
        judge_type="agent" if agent is not None else "human",
        content_type=event.definitionId,
        reviewer_id=reviewer_id,
        action_user=action_user,
        agent=agent,
        content=event.reviewedContent or "",
        source_event=event.subject.removeprefix("evt."),
        created_at=event.occurredAt,
    )


def review_text(row: storage.JudgmentRow) -> str:
    """What the `review` space embeds: the decision and why."""
    return f"{row.decision}: {row.reasoning}" if row.reasoning else row.decision


class JudgmentRecorder:
    def __init__(
        self,
        pool: Pool,
        vectors: VectorStore,
        embedding: EmbeddingRunner,
        patterns: PatternService,
    ) -> None:
        self._pool = pool
        self._vectors = vectors
        self._embedding = embedding
        self._patterns = patterns

    async def handle(self, event: Event) -> None:
        row = judgment_of(event)
        if row is None:
            return
        review, content = await self._embedding.passages([review_text(row), row.content or "-"])
        payload = {
            **tenant_payload(Tenant(row.workspace_id, row.api_key)),
            "recordId": row.record_id,
            "organizationId": row.organization_id,
            "documentId": row.document_id,
            "annotationId": row.annotation_id,
            "decision": row.decision,
            "judgeType": row.judge_type,
            "contentType": row.content_type,
            "reviewerId": row.reviewer_id,
            "createdAt": row.created_at,
        }
        point = VectorPoint(
            point_id(row.api_key, row.record_id),
            {"review": review, "content": content},
            {k: v for k, v in payload.items() if v is not None},
        )
        await self._vectors.upsert(JUDGMENTS, [point])
        # The pattern groups change with the row, once: a redelivery inserts nothing.
        async with self._pool.acquire() as conn, conn.transaction():
            if await storage.insert(conn, row):
                await self._patterns.absorb(conn, row, review)
