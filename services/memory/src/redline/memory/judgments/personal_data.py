"""Personal data in judgments: the review decisions a user made (`reviewerId`, or the
`actionUser` of the event they were recorded from).

Erasure deletes them with their vectors. The vectors go first, inside the transaction that
deletes the rows and reports: a failure before the commit rolls the rows back and the
redelivered event deletes again (deleting vectors twice is harmless), so no vector outlives its
row. Patterns already learnt from the judgments keep their counts; they are aggregates without
the reviewer's id, and their `topSourceRecordIds` may name records that are gone.
Records of no organization (an execution dispatched without one) belong to the user whatever
organizations a request names: they are in every export and every erasure of the user.
"""

from __future__ import annotations

from typing import Any

from redline.memory.vectors import JUDGMENTS, Tenant, VectorFilter, VectorStore
from redline.pg import Connection
from redline.runtime.personal_data import DataKind, Erase, Subject

_BY_USER = """
api_key = $1
AND ($2::text[] IS NULL OR organization_id IS NULL OR organization_id = ANY($2))
AND (reviewer_id = $3 OR action_user->>'userId' = $3)
"""


async def export_judgments(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        "SELECT record_id, organization_id, document_id, annotation_id, decision, reasoning,"  # noqa: S608 (constants only)
        " confidence, judge_type, content_type, reviewer_id, action_user, content, created_at"
        f" FROM memory.judgment WHERE {_BY_USER}"
        " ORDER BY created_at, record_id OFFSET $4 LIMIT $5",
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
        offset,
        limit,
    )
    return [
        {
            "recordId": r["record_id"],
            "organizationId": r["organization_id"],
            "documentId": r["document_id"],
            "annotationId": r["annotation_id"],
            "decision": r["decision"],
            "reasoning": r["reasoning"],
            "confidence": r["confidence"],
            "judgeType": r["judge_type"],
            "contentType": r["content_type"],
            "reviewerId": r["reviewer_id"],
            "actionUser": r["action_user"],
            "content": r["content"],
            "createdAt": r["created_at"],
        }
        for r in records
    ]


def erase_judgments(vectors: VectorStore) -> Erase:
    async def erase(conn: Connection, subject: Subject) -> int:
        ids = [
            r["record_id"]
            for r in await conn.fetch(
                f"SELECT record_id FROM memory.judgment WHERE {_BY_USER} FOR UPDATE",  # noqa: S608
                subject.api_key,
                subject.organization_scope,
                subject.user_id,
            )
        ]
        if not ids:
            return 0
        tenant = Tenant(subject.workspace_id, subject.api_key)
        await vectors.delete(JUDGMENTS, VectorFilter(tenant=tenant, any_of={"recordId": ids}))
        await conn.execute(
            "DELETE FROM memory.judgment WHERE api_key = $1 AND record_id = ANY($2)",
            subject.api_key,
            ids,
        )
        return len(ids)

    return erase


def judgment_kinds(vectors: VectorStore) -> list[DataKind]:
    return [DataKind("judgments", export_judgments, erase_judgments(vectors))]
