"""SQL of personal data in workflow: the decisions a user recorded as a reviewer at human steps.

Erasure anonymises (`redline.runtime.anonymise`) rather than deletes: a decision is part of an
execution's record, which other users own and which the engine may still be aggregating. The
reviewer's id becomes one stand-in everywhere in the step (its responses, reviewer list and
output) and in the execution's events, so the step's counts stay consistent; names and e-mail
addresses go.
Records of no organization (an execution dispatched without one) belong to the user whatever
organizations a request names: they are in every export and every erasure of the user.
"""

from __future__ import annotations

from typing import Any

from redline.pg import Connection
from redline.runtime.anonymise import anonymise, stand_in_id
from redline.runtime.personal_data import DataKind, Subject

_EXECUTIONS_IN_SCOPE = (
    "e.api_key = $1 AND ($2::text[] IS NULL OR e.organization_id IS NULL"
    " OR e.organization_id = ANY($2))"
)

_NAMES_USER = "jsonb_path_exists({}, '$.** ? (@.userId == $u)', jsonb_build_object('u', $3::text))"

_DECISIONS = f"""
SELECT e.execution_id, e.definition_id, e.organization_id, e.document_id, s.step_id, s.node_id,
       s.responses->$3 AS response
FROM workflow.step s JOIN workflow.execution e USING (execution_id)
WHERE {_EXECUTIONS_IN_SCOPE} AND s.node_type = 'human' AND s.responses ? $3
ORDER BY e.started_at, e.execution_id, s.position
OFFSET $4 LIMIT $5
"""  # noqa: S608 (constants only)

# Executions with a step naming the user: a response, or a reviewer entry.
_TOUCHED = f"""
SELECT DISTINCT e.execution_id FROM workflow.execution e JOIN workflow.step s USING (execution_id)
WHERE {_EXECUTIONS_IN_SCOPE} AND s.node_type = 'human'
  AND (s.responses ? $3 OR {_NAMES_USER.format("s.input")} OR {_NAMES_USER.format("s.output")})
ORDER BY e.execution_id
"""  # noqa: S608 (constants only)


async def export_decisions(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        _DECISIONS, subject.api_key, subject.organization_scope, subject.user_id, offset, limit
    )
    return [
        {
            "executionId": r["execution_id"],
            "definitionId": r["definition_id"],
            "organizationId": r["organization_id"],
            "documentId": r["document_id"],
            "stepId": r["step_id"],
            "nodeId": r["node_id"],
            "decision": (r["response"] or {}).get("decision"),
            "reason": (r["response"] or {}).get("reason"),
            "recordedAt": (r["response"] or {}).get("recordedAt"),
        }
        for r in records
    ]


async def erase_decisions(conn: Connection, subject: Subject) -> int:
    touched = [
        r["execution_id"]
        for r in await conn.fetch(
            _TOUCHED, subject.api_key, subject.organization_scope, subject.user_id
        )
    ]
    if not touched:
        return 0
    # The engine changes an execution under its row's lock: take it first, in id order.
    await conn.execute(
        "SELECT 1 FROM workflow.execution WHERE execution_id = ANY($1)"
        " ORDER BY execution_id FOR UPDATE",
        touched,
    )
    stand_in = stand_in_id()
    await _anonymise_human_steps(conn, touched, subject.user_id, stand_in)
    await _anonymise_events(conn, touched, subject.user_id, stand_in)
    return len(touched)


async def _anonymise_human_steps(
    conn: Connection, executions: list[str], user_id: str, stand_in: str
) -> None:
    """The user's id in the human steps of `executions` (input, output, responses, error) becomes
    `stand_in`."""
    steps = await conn.fetch(
        "SELECT execution_id, step_id, input, output, responses, error FROM workflow.step"
        " WHERE execution_id = ANY($1) AND node_type = 'human'",
        executions,
    )
    for s in steps:
        await conn.execute(
            "UPDATE workflow.step SET input = $3, output = $4, responses = $5, error = $6"
            " WHERE execution_id = $1 AND step_id = $2",
            s["execution_id"],
            s["step_id"],
            *(
                anonymise(s[column], user_id, stand_in)
                for column in ("input", "output", "responses", "error")
            ),
        )


async def _anonymise_events(
    conn: Connection, executions: list[str], user_id: str, stand_in: str
) -> None:
    """The user's id in the events of `executions` becomes `stand_in`."""
    events = await conn.fetch(
        "SELECT execution_id, seq, data FROM workflow.event"
        " WHERE execution_id = ANY($1) AND data IS NOT NULL",
        executions,
    )
    for event in events:
        data = anonymise(event["data"], user_id, stand_in)
        if data != event["data"]:
            await conn.execute(
                "UPDATE workflow.event SET data = $3 WHERE execution_id = $1 AND seq = $2",
                event["execution_id"],
                event["seq"],
                data,
            )


WORKFLOW_KINDS = [DataKind("workflowDecisions", export_decisions, erase_decisions)]
