"""The reference's example requests for the approval engine (workflow definitions, executions
and steps), in an order that lets later examples find what earlier ones made."""

from __future__ import annotations

from typing import Any

from tests.api.replay_support import Sample


def paths(text: str) -> tuple[str, ...]:
    """The dotted paths written in `text`, separated by white space."""
    return tuple(text.split())


def agent(node_id: str, agent_id: str) -> dict[str, Any]:
    """An agent node as the pages write them: the page it runs against is `documentUrl`."""
    return {
        "nodeId": node_id,
        "type": "agent",
        "config": {"agentId": agent_id, "urlPath": "documentUrl"},
    }


def human(node_id: str, user_id: str) -> dict[str, Any]:
    """A human node of one mandatory reviewer."""
    config = {"reviewers": [{"userId": user_id, "mandatory": True}]}
    return {"nodeId": node_id, "type": "human", "config": config}


MARKETING_NODES = [
    agent("agent-draft", "copy-agent-v1"),
    human("human-review", "u_reviewer_01"),
    agent("agent-publish", "publish-agent-v1"),
    agent("agent-rework", "rework-agent-v1"),
]
MARKETING_EDGES = [
    {"from": "agent-draft", "to": "human-review"},
    {"from": "human-review", "to": "agent-publish", "on": "approve"},
    {"from": "human-review", "to": "agent-rework", "on": "reject"},
]
DEFINITION_FIELDS = paths(
    """definitionId name description version scope.level scope.organizationId scope.documentId
    nodes.3.config.agentId edges.2.on groups compiled.forwardEdges.2.role
    compiled.forwardEdges.2.when compiled.loops triggers tags custom createdAt updatedAt
    status"""
)
EXECUTION_FIELDS = paths(
    """executionId status startedAt completedAt cancelledAt definitionId definitionVersion
    correlationId idempotencyKey failureReason steps.0.stepId steps.0.nodeId steps.0.nodeType
    steps.0.status"""
)
DECISION_FIELDS = ("recorded", "aggregatorStatus", "resumeScheduled")

DEFINITIONS = [
    Sample(
        page="approval-engine/definitions/create: a marketing-copy approval workflow",
        path="/v2/workflow/definitions/create",
        data={
            "definitionId": "marketing-copy-approval",
            "name": "Marketing copy approval",
            "scope": {"level": "apiKey"},
            "nodes": MARKETING_NODES,
            "edges": MARKETING_EDGES,
        },
        fields=DEFINITION_FIELDS,
    ),
    Sample(
        page="approval-engine/definitions/create: start runs from a nightly cron schedule",
        path="/v2/workflow/definitions/create",
        data={
            "definitionId": "nightly-content-audit",
            "name": "Nightly content audit",
            "nodes": [
                {
                    "nodeId": "audit",
                    "type": "agent",
                    "config": {"agentId": "broken-links", "url": "https://acme.com"},
                }
            ],
            "edges": [],
            "triggers": [
                {
                    "triggerId": "nightly-audit",
                    "schedule": {
                        "cron": "0 2 * * *",
                        "timezone": "America/Los_Angeles",
                        "enabled": True,
                    },
                }
            ],
        },
        fields=("definitionId", "version", "triggers.0.triggerId", "triggers.0.schedule.cron"),
    ),
    Sample(
        page="approval-engine/definitions/get: get a definition",
        path="/v2/workflow/definitions/get",
        data={"definitionId": "marketing-copy-approval"},
        fields=DEFINITION_FIELDS,
    ),
    Sample(
        page="approval-engine/definitions/list: list the first page",
        path="/v2/workflow/definitions/list",
        data={"pageSize": 50},
        fields=("items.1.definitionId", "items.1.compiled.forwardEdges", "nextCursor"),
    ),
    Sample(
        # Definitions updated before 1714300000000 (April 2024): none in a new workspace.
        page="approval-engine/definitions/list: paginate",
        path="/v2/workflow/definitions/list",
        data={"pageSize": 50, "cursor": 1714300000000},
        fields=("items", "nextCursor"),
    ),
    Sample(
        page="approval-engine/definitions/update: update a definition",
        path="/v2/workflow/definitions/update",
        data={
            "definitionId": "marketing-copy-approval",
            "ifVersion": 1,
            "name": "Marketing copy approval (Q2 revision)",
            "scope": {"level": "apiKey"},
            "nodes": MARKETING_NODES,
            "edges": MARKETING_EDGES,
        },
        fields=DEFINITION_FIELDS,
    ),
]

# The page's webhook receiver and secret are placeholders; an https URL on a public host and a
# secret of the documented length take their place.
DISPATCH = Sample(
    page="approval-engine/executions/dispatch: dispatch with idempotency and webhook",
    path="/v2/workflow/executions/dispatch",
    data={
        "definitionId": "marketing-copy-approval",
        "idempotencyKey": "campaign-42-dispatch",
        "correlationId": "corr_campaign_42",
        "triggerContext": {"assetId": "asset_8f3", "campaign": "Q2 launch"},
        "webhookUrl": "https://hooks.example.com/velt/approvals",
        "webhookSecret": "whsec_9a8fS2lQ4vX7mN1pR6tY",
    },
    fields=("executionId", "correlationId", "deduplicated"),
    save={"executionId": "executionId"},
)

EXECUTIONS = [
    DISPATCH,
    Sample(
        page="approval-engine/executions/get: get an execution",
        path="/v2/workflow/executions/get",
        data={"executionId": "$executionId"},
        fields=EXECUTION_FIELDS,
    ),
    Sample(
        page="approval-engine/executions/list: list running executions for a definition",
        path="/v2/workflow/executions/list",
        data={"definitionId": "marketing-copy-approval", "status": "running", "pageSize": 50},
        fields=("items.0.executionId", "items.0.steps", "nextCursor"),
    ),
    Sample(
        # Executions started before 1777374504364 (April 2026): none in a new workspace.
        page="approval-engine/executions/list: paginate",
        path="/v2/workflow/executions/list",
        data={"pageSize": 50, "cursor": "1777374504364"},
        fields=("items", "nextCursor"),
    ),
    Sample(
        page="approval-engine/executions/getEvents: reconcile after a webhook outage",
        path="/v2/workflow/executions/getEvents",
        data={"executionId": "$executionId", "sinceSeq": 5},
        fields=("executionId", "events", "nextCursor", "hasMore"),
    ),
    Sample(
        page="approval-engine/executions/getEvents: paginate through all events",
        path="/v2/workflow/executions/getEvents",
        data={"executionId": "$executionId", "sinceSeq": 0, "pageSize": 100},
        fields=(
            "executionId",
            "events.0.eventId",
            "events.0.seq",
            "events.0.type",
            "events.0.timestamp",
            "events.0.correlationId",
            "events.0.data",
            "nextCursor",
            "hasMore",
        ),
    ),
]

# The setup guide's first workflow (ai/approval-engine/setup), whose reviewer is declared: a
# decision that is recorded, and the events of a run that completes.
SIGNOFF = [
    Sample(
        page="ai/approval-engine/setup: create the definition",
        path="/v2/workflow/definitions/create",
        data={
            "definitionId": "doc-signoff",
            "name": "Document sign-off",
            "scope": {"level": "apiKey"},
            "nodes": [
                {
                    "nodeId": "manager-approval",
                    "type": "human",
                    "config": {
                        "reviewers": [{"userId": "u_manager_01", "mandatory": True}],
                        "commentBody": "Please review and approve this document.",
                    },
                },
                agent("rework-notice", "__mock__"),
            ],
            "edges": [{"from": "manager-approval", "to": "rework-notice", "on": "reject"}],
        },
        fields=("definitionId", "version", "status"),
    ),
    Sample(
        page="ai/approval-engine/setup: dispatch an execution",
        path="/v2/workflow/executions/dispatch",
        data={
            "definitionId": "doc-signoff",
            "idempotencyKey": "doc-123-signoff",
            "triggerContext": {"documentUrl": "https://app.acme.com/docs/123"},
        },
        fields=("executionId", "correlationId", "deduplicated"),
        save={"signoffExecutionId": "executionId"},
    ),
]

# Once the manager-approval step waits: the test saves its id as `signoffStepId`.
SIGNOFF_DECISION = [
    Sample(
        page="ai/approval-engine/setup: record a decision",
        path="/v2/workflow/steps/recordReviewerDecision",
        data={
            "executionId": "$signoffExecutionId",
            "stepId": "$signoffStepId",
            "reviewerId": "u_manager_01",
            "decision": "approve",
            "reason": "Looks good for launch.",
        },
        fields=DECISION_FIELDS,
    ),
    Sample(
        page="ai/approval-engine/setup: event polling, for catch-up",
        path="/v2/workflow/executions/getEvents",
        data={"executionId": "$signoffExecutionId", "sinceSeq": 0},
        fields=("executionId", "events.2.type", "events.2.stepId", "nextCursor", "hasMore"),
    ),
]

# The step pages' examples name the setup guide's richer workflow: an agent drafts, legal
# (u_legal_01) and brand (u_brand_01) review in a joinOnQuorum group, and publish runs once.
PARALLEL_REVIEW = Sample(
    page="ai/approval-engine/setup: a realistic workflow",
    path="/v2/workflow/definitions/create",
    data={
        "definitionId": "marketing-copy-approval",
        "name": "Marketing copy approval",
        "scope": {"level": "apiKey"},
        "nodes": [
            agent("agent-draft", "copy-agent-v1"),
            human("human-legal", "u_legal_01"),
            human("human-brand", "u_brand_01"),
            agent("agent-publish", "publish-agent-v1"),
        ],
        "edges": [
            {"from": "agent-draft", "to": "human-legal"},
            {"from": "agent-draft", "to": "human-brand"},
            {"from": "human-legal", "to": "agent-publish"},
            {"from": "human-brand", "to": "agent-publish"},
            {
                "from": {"kind": "group", "groupId": "parallel-review"},
                "to": "agent-draft",
                "on": "reject",
                "loop": {"maxIterations": 3},
            },
        ],
        "groups": [
            {
                "groupId": "parallel-review",
                "memberNodeIds": ["human-legal", "human-brand"],
                "expectedSteps": 2,
                "quorum": 2,
                "onQuorumMet": "joinOnQuorum",
            }
        ],
    },
    fields=("definitionId", "groups.0.groupId", "compiled.loops.0.maxIterations", "status"),
)

# Once both reviews wait: the test saves their ids as `legalStepId` and `brandStepId`. The
# pages' blocking-agent step is in no workflow of theirs: it is unknown.
STEPS = [
    Sample(
        page="approval-engine/steps/recordReviewerDecision: approve as a reviewer",
        path="/v2/workflow/steps/recordReviewerDecision",
        data={
            "executionId": "$executionId",
            "stepId": "$legalStepId",
            "reviewerId": "u_legal_01",
            "decision": "approve",
            "reason": "looks good",
        },
        fields=DECISION_FIELDS,
    ),
    Sample(
        # The same reviewer again: not recorded, with the reason why.
        page="approval-engine/steps/recordReviewerDecision: reject as a reviewer",
        path="/v2/workflow/steps/recordReviewerDecision",
        data={
            "executionId": "$executionId",
            "stepId": "$legalStepId",
            "reviewerId": "u_legal_01",
            "decision": "reject",
            "reason": "compliance issue on line 3",
        },
        fields=(*DECISION_FIELDS, "rejectionReason"),
    ),
    Sample(
        # The legal review was approved just before: it is no longer waiting.
        page="approval-engine/steps/resolve: reviewer approves through the API",
        path="/v2/workflow/steps/resolve",
        data={
            "executionId": "$executionId",
            "stepId": "$legalStepId",
            "action": "reviewer-approve",
            "actorId": "u_legal_01",
            "reason": "looks good",
        },
        expect="FAILED_PRECONDITION",
    ),
    Sample(
        page="approval-engine/steps/recordAgentResolution: record a resolution",
        path="/v2/workflow/steps/recordAgentResolution",
        data={
            "executionId": "$executionId",
            "stepId": "step_blocking-agent_...",
            "responseId": "resp_42",
            "resolution": "resolved",
            "actorId": "user-1",
        },
        expect="NOT_FOUND",
    ),
    Sample(
        page="approval-engine/steps/resolve: admin force-completes a stuck blocking-agent step",
        path="/v2/workflow/steps/resolve",
        data={
            "executionId": "$executionId",
            "stepId": "step_blocking-agent_...",
            "action": "force-complete",
            "actorId": "ops_jane",
            "output": {"summary": "Manually closed; agent hung past deadline"},
            "reason": "Agent stuck on retry; closing to unblock execution",
        },
        expect="FAILED_PRECONDITION",
    ),
    Sample(
        page="approval-engine/steps/resolve: admin force-fails a step",
        path="/v2/workflow/steps/resolve",
        data={
            "executionId": "$executionId",
            "stepId": "$brandStepId",
            "action": "force-fail",
            "actorId": "ops_jane",
            "reason": "Reviewer on PTO indefinitely; routing to escalation edge",
        },
        fields=("resolved", "executionId", "stepId", "action"),
    ),
    Sample(
        # The brand review was failed just before: it is terminal.
        page="approval-engine/steps/cancel: admin-cancel a step",
        path="/v2/workflow/steps/cancel",
        data={
            "executionId": "$executionId",
            "stepId": "$brandStepId",
            "reason": "Reviewer unavailable",
            "actorId": "admin_jane",
        },
        expect="FAILED_PRECONDITION",
    ),
    Sample(
        page="approval-engine/executions/cancel: cancel an execution",
        path="/v2/workflow/executions/cancel",
        data={"executionId": "$executionId", "reason": "Campaign postponed"},
        fields=("cancelled", "executionId"),
    ),
    Sample(
        page="approval-engine/definitions/delete: soft-delete a definition",
        path="/v2/workflow/definitions/delete",
        data={"definitionId": "marketing-copy-approval"},
        fields=("deleted", "purged", "definitionId"),
    ),
    Sample(
        page="approval-engine/definitions/delete: hard-delete a definition",
        path="/v2/workflow/definitions/delete",
        data={"definitionId": "marketing-copy-approval", "purge": True},
        fields=("deleted", "purged", "definitionId"),
    ),
]
