"""Judgment rules that need no server: which events decide what, scope, and time windows."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.memory.judgments.models import Filters, SearchJudgments
from redline.memory.judgments.recorder import judgment_of
from redline.memory.judgments.service import recency_window, resolve_search, to_ms
from redline.proto.annotation import Annotation, Status
from redline.proto.events import (
    AgentDecisionRecorded,
    CommentAdded,
    StatusChanged,
    SuggestionRejected,
)
from redline.testing.annotations import annotation, comment

PRINCIPAL = ApiKeyPrincipal("ws", "key")
SCOPE = {"workspaceId": "ws", "apiKey": "key", "organizationId": "o", "documentId": "d"}


def _annotation(**extra: Any) -> Annotation:
    return annotation(comments=[comment(1, commentText="Clause 4 reads oddly.")], **extra)


def _status(kind: str) -> Status:
    return Status(id=kind, name=kind.title(), type=kind)


def test_a_rejection_records_its_reason_and_who_decided() -> None:
    event = SuggestionRejected(
        **SCOPE,
        annotationId="a1",
        annotation=_annotation(type="suggestion"),
        actionUser={"userId": "carol", "name": "Carol", "avatar": "x"},
        reason="Too informal.",
    )
    row = judgment_of(event)
    assert row is not None
    assert (row.decision, row.reasoning, row.judge_type) == ("rejected", "Too informal.", "human")
    assert row.action_user == {"userId": "carol", "name": "Carol"}
    assert row.record_id == "jdg_" + event.id
    assert row.content == "Clause 4 reads oddly."


def test_only_a_move_to_a_terminal_status_resolves() -> None:
    terminal = StatusChanged(
        **SCOPE, annotationId="a1", annotation=_annotation(), newStatus=_status("terminal")
    )
    ongoing = StatusChanged(
        **SCOPE, annotationId="a1", annotation=_annotation(), newStatus=_status("ongoing")
    )
    resolved = judgment_of(terminal)
    assert resolved is not None
    assert resolved.decision == "resolve"
    assert judgment_of(ongoing) is None


def test_only_replies_on_agent_annotations_are_comments() -> None:
    reply = comment(2, commentText="Agreed, fix it.")
    on_agent = CommentAdded(
        **SCOPE,
        annotationId="a1",
        annotation=_annotation(
            sourceType="agent", agent={"agentSource": "svc", "agentId": "bot", "reason": {}}
        ),
        commentId=2,
        comment=reply,
    )
    on_people = CommentAdded(
        **SCOPE, annotationId="a1", annotation=_annotation(), commentId=2, comment=reply
    )
    recorded = judgment_of(on_agent)
    assert recorded is not None
    assert (recorded.decision, recorded.reasoning) == ("comment", "Agreed, fix it.")
    assert judgment_of(on_people) is None


def test_recency_is_whole_utc_days_ending_where_today_began() -> None:
    now = int(dt.datetime(2026, 11, 25, 6, 30, tzinfo=dt.UTC).timestamp() * 1000)
    start, end = recency_window(2, now)
    assert start == int(dt.datetime(2026, 11, 23, tzinfo=dt.UTC).timestamp() * 1000)
    assert end == int(dt.datetime(2026, 11, 25, tzinfo=dt.UTC).timestamp() * 1000)


def test_times_are_iso_8601_or_epoch_ms() -> None:
    assert to_ms(1_700_000_000_000, "p") == 1_700_000_000_000
    assert to_ms("2023-11-14T22:13:20Z", "p") == 1_700_000_000_000
    assert to_ms("2023-11-14T22:13:20", "p") == 1_700_000_000_000  # no zone: UTC
    with pytest.raises(InvalidArgument):
        to_ms("yesterday", "p")


def test_scope_follows_the_ids_and_an_explicit_scope_needs_them() -> None:
    def scope_of(**fields: Any) -> str:
        return resolve_search(PRINCIPAL, SearchJudgments(query="q", **fields), 0).scope

    assert scope_of() == "apiKey"
    assert scope_of(documentId="d") == "apiKey"  # a document without its organization
    assert scope_of(orgId="o") == "organization"
    assert scope_of(organizationId="o", docId="d") == "document"
    assert scope_of(organizationId="o", documentId="d", scope="apiKey") == "apiKey"
    with pytest.raises(InvalidArgument):
        scope_of(scope="organization")
    with pytest.raises(InvalidArgument):
        scope_of(organizationId="o", scope="document")
    thread = Filters(annotationId="a1")
    assert scope_of(organizationId="o", scope="document", filters=thread) == "document"


def test_a_workflow_agent_decision_is_an_agent_judgment() -> None:
    event = AgentDecisionRecorded(
        workspaceId="ws",
        apiKey="key",
        executionId="exec_1_abc",
        definitionId="brand-check",
        stepId="step_scan_1_x",
        nodeId="scan",
        correlationId="corr",
        organizationId=None,
        documentId="doc-ignored-without-org",
        decision="reject",
        reason=None,
        reviewedContent="the page",
        agentId="broken-links",
        agentExecutionId="run-7",
        agentFields={"agentResultsSummary": {"totalFindings": 3}},
    )
    row = judgment_of(event)
    assert row is not None
    assert (row.judge_type, row.decision, row.content_type) == ("agent", "reject", "brand-check")
    assert row.agent == {
        "agentId": "broken-links",
        "agentType": "workflow",
        "executionId": "exec_1_abc",
        "agentFields": {"agentResultsSummary": {"totalFindings": 3}},
    }
    assert (row.organization_id, row.document_id, row.reviewer_id) == (None, None, None)
    assert row.content == "the page"
    assert row.record_id == "jdg_" + event.id
