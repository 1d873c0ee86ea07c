"""The routes the generic conformance sweep cannot make succeed answer 200, as /openapi.json says:
each is called with ids captured from earlier answers in the same test (an organization and its
documents, a comment, an activity record, a knowledge source, a migration, definitions and
executions with a waiting human step or a waiting agent step), its request fits the document's
request schema, and its answer fits the route's 200 schema.

Together with the generic sweep this covers every route of the document: the last test runs that
sweep and checks that what it refuses is exactly what this test seeds.

Black-box, like the sweep whose workspace, document and checks it shares; the app runs with an
agent runner (an HTTPS receiver here) that takes each run and answers later, so an agent step
waits for its resolution.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from redline.testing.api import ApiClient, StartApi, Workspace
from redline.testing.mail import HOST, Mailbox, smtp_server
from redline.testing.receiver import WebhookReceiver
from tests.api.conformance_support import SEEDED, Conformance, Json, ended, waiting_step
from tests.api.test_hostile_input import UNLIMITED, doc, ws
from tests.api.test_openapi_conformance import sweep
from tests.api.workflow_support import definition, edge, human, mock_agent

__all__ = ["doc", "ws"]  # fixtures shared with the hostile-input sweep

ORG = "seeded-org"
DOC = "seeded-doc"


@pytest.fixture
async def receiver(tmp_path: Path) -> AsyncIterator[WebhookReceiver]:
    """The agent runner: it takes every run with a 202 and never calls back by itself."""
    server = WebhookReceiver(tmp_path / "runner-tls")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
def mailbox() -> Iterator[tuple[Mailbox, int]]:
    """The mail relay: an SMTP server that takes every message."""
    with smtp_server() as server:
        yield server


@pytest.fixture
async def api(
    start_api: StartApi, receiver: WebhookReceiver, mailbox: tuple[Mailbox, int]
) -> ApiClient:
    """In process whatever `--target` says, limits out of reach as for the sweep, with the
    receiver as agent runner (let past the address guard, its CA trusted): the document is the
    same code wherever it is served, and the runner must be this test's own."""
    return await start_api(
        **UNLIMITED,
        agent_runner_url=receiver.url("/runner"),
        webhook_allow=["127.0.0.1"],
        webhook_ca_file=str(receiver.ca_file),
        smtp_url=f"smtp://{HOST}:{mailbox[1]}?security=none",
    )


async def identity(c: Conformance) -> None:
    added = await c.data(
        "/v2/organizations/add",
        {"organizations": [{"organizationId": ORG, "organizationName": "Seeded"}]},
    )
    assert added[ORG]["success"] is True
    documents = [{"documentId": d} for d in (DOC, "moved-doc", "old-doc")]
    added = await c.data(
        "/v2/organizations/documents/add", {"organizationId": ORG, "documents": documents}
    )
    assert {d for d, outcome in added.items() if outcome["success"]} == {
        DOC,
        "moved-doc",
        "old-doc",
    }
    await c.data(
        "/v2/organizations/folders/add", {"organizationId": ORG, "folders": [{"folderId": "vault"}]}
    )
    moved = await c.data(
        "/v2/organizations/documents/move",
        {"organizationId": ORG, "documentIds": ["moved-doc"], "folderId": "vault"},
    )
    assert moved["moved-doc"]["success"] is True

    grant = {"type": "document", "id": DOC, "organizationId": ORG, "accessRole": "editor"}
    await c.ok(
        "/v2/auth/permissions/add",
        {"user": {"userId": "u1"}, "permissions": {"resources": [grant]}},
    )
    asked = {"organizationId": ORG, "userIds": ["u1"], "documentIds": [DOC]}
    granted = await c.data("/v2/auth/permissions/get", asked)
    assert granted["u1"]["documents"][DOC]["accessRole"] == "editor"
    removed = await c.ok(
        "/v2/auth/permissions/remove", {"userId": "u1", "permissions": {"resources": [grant]}}
    )
    assert removed["status"] == "success"

    started = await c.data(
        "/v2/organizations/documents/migrate",
        {"organizationId": ORG, "documentId": "old-doc", "newDocumentId": "new-doc"},
    )
    status = await c.until(
        "/v2/organizations/documents/migrate/status",
        {"organizationId": ORG, "migrationId": started["migrationId"]},
        lambda result: result["data"]["status"] in ("completed", "failed"),
    )
    assert status["data"]["status"] == "completed", status
    listed = await c.data("/v2/organizations/documents/get", {"organizationId": ORG})
    assert {d["id"]: d["folderId"] for d in listed} == {
        DOC: "root",
        "moved-doc": "vault",
        "new-doc": "root",
    }

    # The first update of the advanced webhook settings is the one that turns them on.
    enabled = await c.data("/v2/workspace/advancedwebhookconfig/update", {"isEnabled": True})
    assert enabled["isEnabled"] is True
    await advanced_webhook_endpoints(c)


async def advanced_webhook_endpoints(c: Conformance) -> None:
    """Endpoints exist only once advanced webhooks are on (above). Disabled: nothing is sent."""
    path = "/v2/workspace/advancedwebhook/endpoints"
    hook = {"url": "https://hooks.example.com/seeded", "uid": "seeded-hook", "disabled": True}
    endpoint = await c.data(f"{path}/create", {**hook, "filterTypes": ["comment.add"]})
    listed = await c.data(f"{path}/get", {"limit": 10})
    assert [e["id"] for e in listed["endpoints"]] == [endpoint["id"]]
    updated = await c.data(f"{path}/update", {"endpointId": "seeded-hook", "channels": ["c1"]})
    assert updated["channels"] == ["c1"]
    secret = await c.data(f"{path}/secret/get", {"endpointId": endpoint["id"]})
    assert secret["secret"].startswith("whsec_")
    deleted = await c.data(f"{path}/delete", {"endpointId": endpoint["id"]})
    assert deleted == {"endpointId": endpoint["id"], "deleted": True}

    asked = await c.data("/v2/workspace/domains/request", {"domain": "asked.example.com"})
    decided = await c.data(
        "/v2/workspace/additional-url-request", {"action": "accept", "id": asked["id"]}
    )
    assert decided["status"] == "accepted"
    created = await c.data("/v2/workspace/apikey/create", {"apiKeyName": "copy"}, workspace=True)
    keys = {"sourceApiKey": c.ws.api_key, "targetApiKey": created["apiKey"]}
    assert await c.data("/v2/workspace/apikey/copy", keys, workspace=True) == keys


async def personal_data(c: Conformance) -> None:
    """A user with a comment is exported, then erased by a job that completes."""
    exported = await c.data("/v2/users/data/get", {"organizationId": ORG, "userId": "alice"})
    assert exported["comments"], exported
    started = await c.data("/v2/users/data/delete", {"userIds": ["alice"]})
    status = await c.until(
        "/v2/users/data/delete/status",
        {"jobId": started["jobId"]},
        lambda result: result["data"]["isDeleteCompleted"],
    )
    assert status["data"]["status"] == "completed", status


async def activities(c: Conformance) -> None:
    added = await c.data(
        "/v2/activities/add",
        {"organizationId": ORG, "activities": [{"id": "act-1", "actionType": "draft"}]},
    )
    [record] = added["activities"]
    updated = await c.data(
        "/v2/activities/update",
        {"organizationId": ORG, "activityId": record["id"], "actionType": "published"},
    )
    assert (updated["id"], updated["actionType"]) == ("act-1", "published")
    each = await c.data(
        "/v2/activities/update",
        {"organizationId": ORG, "activities": [{"id": "act-1", "actionIcon": "edit"}]},
    )
    assert each == {"act-1": {"success": True, "message": "Activity updated."}}


async def notifications(c: Conformance) -> None:
    where = {"organizationId": ORG, "documentId": DOC}
    added = await c.data(
        "/v2/notifications/add",
        {
            **where,
            "actionUser": {"userId": "alice"},
            "displayHeadlineMessageTemplate": "{actionUser} pinged you",
            "displayBodyMessage": "Look",
            "notifyUsers": [{"userId": "bob"}],
        },
    )
    assert added["success"] is True
    config = {"inbox": "MINE"}
    set_ = {"organizationId": ORG, "userIds": ["bob"], "documentIds": [DOC], "config": config}
    assert (await c.data("/v2/notifications/config/set", set_))["bob"]["success"] is True
    got = {"organizationId": ORG, "userId": "bob", "documentIds": [DOC]}
    [entry] = await c.data("/v2/notifications/config/get", got)
    assert entry["config"]["inbox"] == "MINE"


async def comments(c: Conformance) -> None:
    where = {"organizationId": ORG, "documentId": DOC}
    first = [{"from": {"userId": "alice"}, "commentText": "Look"}]
    added = await c.data(
        "/v2/commentannotations/add",
        {
            **where,
            "commentAnnotations": [
                {"annotationId": "note-1", "commentData": first},
                {"annotationId": "idea-1", "type": "suggestion", "commentData": first},
            ],
        },
    )
    [comment_id] = added["note-1"]["commentIds"]
    comment = {**where, "annotationId": "note-1", "commentId": comment_id}

    await c.data("/v2/commentannotations/comments/update", {**comment, "commentText": "Edited"})
    thread = {**where, "annotationId": "note-1", "commentIds": [comment_id]}
    hosted = await c.data(
        "/v2/commentannotations/comments/update",
        {**thread, "updatedData": {"commentText": "Edited again"}},
    )
    assert hosted[str(comment_id)]["success"] is True
    reaction = {**comment, "icon": "heart", "user": {"userId": "carol"}}
    reacted = await c.data("/v2/commentannotations/reactions/add", reaction)
    assert [u["from"]["userId"] for u in reacted["fromUsers"]] == ["carol"]
    unreacted = await c.data("/v2/commentannotations/reactions/delete", reaction)
    assert unreacted["fromUsers"] == []

    counted = await c.data(
        "/v2/commentannotations/count/get",
        {"organizationId": ORG, "documentIds": [DOC], "userId": "bob"},
    )
    assert counted[DOC]["total"] == 2
    accepted = await c.data(
        "/v2/commentannotations/suggestions/resolve",
        {**where, "annotationId": "idea-1", "action": "accept", "user": {"userId": "carol"}},
    )
    assert accepted["suggestion"]["status"] == "accepted"
    # Deleting the root comment takes the thread with it: last, as nothing above needs it after.
    deleted = await c.data("/v2/commentannotations/comments/delete", thread)
    assert deleted[str(comment_id)]["success"] is True


async def knowledge(c: Conformance) -> None:
    text = b"- Refunds must be paid to the original card within five working days.\n"
    inline = {
        "base64": base64.b64encode(text).decode(),
        "mimeType": "text/plain",
        "fileName": "refunds.txt",
        "fileSize": len(text),
    }
    accepted = await c.ok("/v2/memory/knowledge/ingest", {"source": "inline", "file": inline})
    source = {"sourceId": accepted["sourceId"]}
    status = await c.until(
        "/v2/memory/knowledge/ingest-status",
        source,
        lambda result: result["status"] != "processing",
        timeout_s=90,
    )
    assert status["status"] == "completed", status
    new = "- Refunds must be paid to the original card within three working days.\n"
    updated = await c.ok("/v2/memory/knowledge/update", {**source, "newContent": new})
    assert updated["newVersion"] == 2
    assert "three working days" in await c.ok("/v2/memory/knowledge/download", source)
    deleted = await c.ok("/v2/memory/knowledge/delete", source)
    assert deleted["status"] == "deleted"


async def alerts(c: Conformance) -> None:
    """Three suggestions rejected for one reason make a pattern, whose alert the check raises."""
    where = {"organizationId": ORG, "documentId": DOC}
    for n in range(3):
        claim = [{"from": {"userId": "bot"}, "commentText": f"Clinically proven claim {n}"}]
        key = f"claim-{n}"
        annotation = {"annotationId": key, "type": "suggestion", "commentData": claim}
        await c.data("/v2/commentannotations/add", {**where, "commentAnnotations": [annotation]})
        reject = {"annotationId": key, "action": "reject", "user": {"userId": "carol"}}
        reason = "Unsupported medical claim without a citation."
        await c.data(
            "/v2/commentannotations/suggestions/resolve", {**where, **reject, "reason": reason}
        )
    judged = {"decision": "rejected"}
    await c.until("/v2/memory/judgments/query", judged, lambda r: r["total"] >= 3)
    triggered = await c.ok("/v2/memory/consolidation/trigger", {})
    assert triggered["alertsRaised"] >= 1, triggered
    [alert, *_] = await c.ok("/v2/memory/alerts/list", {})
    await c.ok("/v2/memory/alerts/dismiss", {"alertId": alert["id"], "user": {"uid": "carol"}})
    await c.ok("/v2/memory/alerts/action", {"alertId": alert["id"]})


REVIEW = definition(
    "seeded-review",
    [human("review", ("alice", True)), mock_agent("ship"), mock_agent("fix")],
    [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
)
SCAN = definition(
    "seeded-scan",
    [
        {
            "nodeId": "scan",
            "type": "agent",
            "config": {"agentId": "link-check", "url": "https://example.com/p"},
        }
    ],
    [],
)


async def workflow(c: Conformance, runner: WebhookReceiver) -> None:
    slack = await c.ok("/v2/workflow/slack/config/update", {"botToken": "xoxb-seeded-0000"})
    assert slack["botTokenSet"] is True
    created = await c.ok("/v2/workflow/definitions/create", REVIEW)
    key = {"definitionId": created["definitionId"]}
    assert (await c.ok("/v2/workflow/definitions/get", key))["version"] == 1
    updated = await c.ok(
        "/v2/workflow/definitions/update", {**REVIEW, "name": "Seeded review", "ifVersion": 1}
    )
    assert updated["version"] == 2

    # One execution per call that ends its step or itself, each with its own waiting step.
    decided, resolved, step_cancelled, cancelled = [
        (await c.ok("/v2/workflow/executions/dispatch", key))["executionId"] for _ in range(4)
    ]
    steps = {e: await waiting(c, e, "review") for e in (decided, resolved, step_cancelled)}

    recorded = await c.ok(
        "/v2/workflow/steps/recordReviewerDecision",
        {
            "executionId": decided,
            "stepId": steps[decided],
            "reviewerId": "alice",
            "decision": "approve",
        },
    )
    assert recorded["aggregatorStatus"] == "resolved"
    forced = await c.ok(
        "/v2/workflow/steps/resolve",
        {
            "executionId": resolved,
            "stepId": steps[resolved],
            "action": "force-approve",
            "actorId": "ops",
        },
    )
    assert forced["resolved"] is True
    dropped = await c.ok(
        "/v2/workflow/steps/cancel",
        {"executionId": step_cancelled, "stepId": steps[step_cancelled], "actorId": "ops"},
    )
    assert dropped["cancelled"] is True
    stopped = await c.ok("/v2/workflow/executions/cancel", {"executionId": cancelled})
    assert stopped == {"cancelled": True, "executionId": cancelled}

    done = await c.until("/v2/workflow/executions/get", {"executionId": decided}, ended)
    assert [s["nodeId"] for s in done["steps"]] == ["review", "ship"]
    events = await c.ok(
        "/v2/workflow/executions/getEvents", {"executionId": decided, "sinceSeq": 0}
    )
    assert events["events"][-1]["type"] == "execution.completed"

    await agent_resolution(c, runner)

    for execution_id in (resolved, step_cancelled, cancelled):
        await c.until("/v2/workflow/executions/get", {"executionId": execution_id}, ended)
    deleted = await c.ok("/v2/workflow/definitions/delete", key)
    assert deleted["deleted"] is True


async def waiting(c: Conformance, execution_id: str, node_id: str) -> str:
    execution = await c.until(
        "/v2/workflow/executions/get",
        {"executionId": execution_id},
        lambda e: waiting_step(e, node_id) is not None,
    )
    step_id = waiting_step(execution, node_id)
    assert step_id is not None
    return step_id


async def agent_resolution(c: Conformance, runner: WebhookReceiver) -> None:
    """An agent step the runner took (202) waits; a resolution recorded from outside ends it."""
    await c.ok("/v2/workflow/definitions/create", SCAN)
    runner.scripted = [202]
    dispatched = await c.ok("/v2/workflow/executions/dispatch", {"definitionId": "seeded-scan"})
    execution_id = dispatched["executionId"]
    await runner.wait_for(1, path="/runner")
    step_id = await waiting(c, execution_id, "scan")
    recorded = await c.ok(
        "/v2/workflow/steps/recordAgentResolution",
        {
            "executionId": execution_id,
            "stepId": step_id,
            "responseId": "resp-1",
            "resolution": "resolved",
            "actorId": "u1",
        },
    )
    assert recorded == {"recorded": True, "aggregatorStatus": "resolved", "resumeScheduled": True}
    execution = await c.until("/v2/workflow/executions/get", {"executionId": execution_id}, ended)
    assert execution["status"] == "completed", execution


async def mail(c: Conformance) -> None:
    """An invitation mailed and rejected, and a login link mailed to the workspace's owner."""
    invitation = {
        "email": "invitee@example.com",
        "organizationId": ORG,
        "type": "doc_user",
        "documentId": DOC,
    }
    invited = await c.data("/v2/users/invite/add", invitation)
    assert invited["status"] == "PENDING"
    rejected = await c.data("/v2/users/invite/respond", {**invitation, "status": "REJECTED"})
    assert rejected["status"] == "REJECTED"
    sent = await c.ok(
        "/v2/workspace/email/send-login-link",
        {"email": c.ws.body["owner"]["email"], "continueUrl": "http://localhost/"},
    )
    assert sent["message"] == "Login link sent successfully"


async def test_every_route_that_needs_state_succeeds_as_documented(
    api: ApiClient, ws: Workspace, doc: Json, receiver: WebhookReceiver
) -> None:
    c = Conformance(api, ws, doc)
    await identity(c)
    await mail(c)
    await activities(c)
    await notifications(c)
    await comments(c)
    await knowledge(c)
    await alerts(c)
    await workflow(c, receiver)
    await personal_data(c)
    assert c.checked >= SEEDED, sorted(SEEDED - c.checked)


async def test_the_two_sweeps_together_cover_every_route(
    api: ApiClient, ws: Workspace, doc: Json
) -> None:
    result = await sweep(api, ws, doc)
    assert not result.nonconforming, json.dumps(result.nonconforming, indent=1)
    refused = set(result.refused)
    # Every route is checked: by the sweep where it succeeds, by the test above where it refuses.
    not_seeded = {path: result.refused[path] for path in sorted(refused - SEEDED)}
    assert not not_seeded, "refused by the sweep and not seeded: " + json.dumps(
        not_seeded, indent=1
    )
    # And the table holds no more than it must: a route the sweep comes to satisfy leaves it.
    assert refused >= SEEDED, f"satisfied by the sweep now: {sorted(SEEDED - refused)}"
