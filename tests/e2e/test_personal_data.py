"""Personal data across every service: a user's comments, reactions, mentions, activity records,
judgments and workflow decisions are exported, erased by one job, and gone from a new export,
while another user's data stays; a job survives a service that is down while it runs."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats

from redline.cli.system import plugins
from redline.proto.subjects import (
    CONSUMER_MEMORY_JUDGMENTS,
    CONSUMER_NOTIFY_ACTIVITY,
    CONSUMER_NOTIFY_WEBHOOKS,
    STREAM,
)
from redline.runtime.app import build_app
from redline.runtime.settings import RuntimeSettings, load_settings
from redline.testing.api import ApiClient, Workspace, assert_failure
from redline.testing.receiver import WebhookReceiver
from tests.api.personal_data_support import (
    comment_texts,
    erase,
    export,
    export_all,
    status,
    until_completed,
)
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent
from tests.e2e.conftest import StartApp, StopApp
from tests.e2e.webhook_flows import enable_webhooks

ORG = {"organizationId": "acme", "documentId": "d1"}


async def _ok(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.result


async def _annotation(api: ApiClient, ws: Workspace, annotation_id: str, *comments: Any) -> Any:
    return await _ok(
        api,
        ws,
        "/v2/commentannotations/add",
        {
            **ORG,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [{"annotationId": annotation_id, "commentData": list(comments)}],
        },
    )


async def _suggestion_rejected_by(api: ApiClient, ws: Workspace, key: str, user: str) -> None:
    suggestion = {
        "commentText": "Proposed rewrite of clause 4.",
        "from": {"userId": "bot"},
        "agent": {
            "agentSource": "svc",
            "agentId": "style-checker",
            "reason": {"title": "Style", "description": key, "severity": "low"},
        },
    }
    await _annotation(api, ws, key, suggestion)
    await _ok(
        api,
        ws,
        "/v2/commentannotations/suggestions/resolve",
        {**ORG, "annotationId": key, "action": "reject", "user": {"userId": user}, "reason": "No."},
    )


async def _workflow_approved_by(api: ApiClient, ws: Workspace, reviewer: str) -> None:
    flow = Workflow(api, ws)
    await flow.create(
        definition(
            "sign-off",
            [human("review", (reviewer, True)), mock_agent("ship"), mock_agent("fix")],
            [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
        )
    )
    execution_id = await flow.dispatch("sign-off")
    step_id = await flow.waiting_step(execution_id, "review")
    await flow.decide(execution_id, step_id, reviewer, "approve", reason="Looks right.")
    assert (await flow.ended(execution_id))["status"] == "completed"


async def _seed(api: ApiClient, ws: Workspace, receiver: WebhookReceiver) -> None:
    """erin and olga in acme; erin writes, reacts, is tagged, judges and reviews; every comment
    event is recorded as activity and delivered as webhooks."""
    await enable_webhooks(api, ws, receiver)
    await _ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )
    await _ok(
        api,
        ws,
        "/v2/users/add",
        {
            "organizationId": "acme",
            "users": [
                {"userId": "erin", "name": "Erin", "email": "erin@example.com"},
                {"userId": "olga", "name": "Olga", "email": "olga@example.com"},
            ],
        },
    )
    await _annotation(api, ws, "a-erin", {"from": {"userId": "erin"}, "commentText": "erin's note"})
    tagged = {
        "from": {"userId": "olga", "name": "Olga"},
        "commentText": "olga's point for {{erin}}",
        "taggedUserContacts": [{"userId": "erin", "contact": {"userId": "erin", "name": "Erin"}}],
    }
    added = await _annotation(api, ws, "a-olga", tagged)
    [comment_id] = added["data"]["a-olga"]["commentIds"]
    await _ok(
        api,
        ws,
        "/v2/commentannotations/reactions/add",
        {
            **ORG,
            "annotationId": "a-olga",
            "commentId": comment_id,
            "icon": "heart",
            "user": {"userId": "erin", "name": "Erin"},
        },
    )
    await _suggestion_rejected_by(api, ws, "s-erin", "erin")
    await _suggestion_rejected_by(api, ws, "s-olga", "olga")
    await _workflow_approved_by(api, ws, "erin")


async def _until_consumers_idle(nats_url: str, *durables: str) -> None:
    """Every event already published has been handled by these consumers."""
    nc = await nats.connect(nats_url)
    try:
        async with asyncio.timeout(60):
            while True:
                infos = [await nc.jetstream().consumer_info(STREAM, d) for d in durables]
                if all(i.num_pending == 0 and i.num_ack_pending == 0 for i in infos):
                    return
                await asyncio.sleep(0.1)
    finally:
        await nc.drain()


async def test_a_users_data_is_exported_erased_everywhere_and_others_stay(
    api: ApiClient, nats_url: str, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("gdpr-e2e@example.com")
    await _seed(api, ws, receiver)
    # Both of erin's decisions reached memory, and nothing is left in flight to a consumer.
    async with asyncio.timeout(30):
        while True:
            if len((await export_all(api, ws, "erin"))["judgments"]) == 2:
                break
            await asyncio.sleep(0.1)
    await _until_consumers_idle(
        nats_url, CONSUMER_NOTIFY_ACTIVITY, CONSUMER_NOTIFY_WEBHOOKS, CONSUMER_MEMORY_JUDGMENTS
    )

    erin = await export_all(api, ws, "erin")
    assert comment_texts(erin) == ["erin's note"]
    assert [(r["annotationId"], r["icon"]) for r in erin["reactions"]] == [("a-olga", "heart")]
    assert {a["annotationId"] for a in erin["annotations"]} >= {"a-erin", "a-olga", "s-erin"}
    assert {a["actionUser"]["userId"] for a in erin["activities"]} == {"erin"}
    assert {a["actionType"] for a in erin["activities"]} >= {
        "comment.reaction_add",
        "comment_annotation.suggestion_reject",
    }
    assert sorted(j["decision"] for j in erin["judgments"]) == ["approve", "rejected"]
    [decision] = erin["workflowDecisions"]
    assert (decision["decision"], decision["reason"]) == ("approve", "Looks right.")
    assert [u["email"] for u in erin["users"]] == ["erin@example.com"]
    assert [m["resourceId"] for m in erin["memberships"]] == ["acme"]
    assert {d["eventType"] for d in erin["webhookDeliveries"]} >= {"comment.reaction_add"}
    olga_before = await export_all(api, ws, "olga")

    job = await erase(api, ws, "erin")
    state = await until_completed(api, ws, job)
    assert (state["isDeleteCompleted"], state["tasksLeft"]) == (True, 0)

    after = await export_all(api, ws, "erin")
    assert {k: v for k, v in after.items() if v} == {}
    olga = await export_all(api, ws, "olga")
    assert comment_texts(olga) == ["olga's point for "]
    assert [j["decision"] for j in olga["judgments"]] == ["rejected"]
    assert len(olga["activities"]) == len(olga_before["activities"])
    assert [u["email"] for u in olga["users"]] == ["olga@example.com"]
    [kept] = [a["annotation"] for a in olga["annotations"] if a["annotationId"] == "a-olga"]
    assert kept["comments"][0]["taggedUserContacts"] == []
    assert kept["comments"][0].get("reactionAnnotations", []) == []
    text = json.dumps(olga)
    assert '"erin"' not in text
    assert "{{erin}}" not in text
    assert "erin@example.com" not in text


async def test_a_job_completes_once_a_service_that_was_down_comes_back(
    notify_overrides: dict[str, Any], start_app: StartApp, stop_app: StopApp
) -> None:
    overrides = {**notify_overrides, "personal_data_retry_s": 0.5}

    def system(*, without: str | None = None) -> Any:
        settings = load_settings(RuntimeSettings, {}, **overrides)
        chosen = [p for p in plugins({}, overrides) if p.name != without]
        return build_app(settings, chosen)

    api = await start_app(system())
    ws = await api.create_workspace("gdpr-restart@example.com")
    await _annotation(api, ws, "a-rita", {"from": {"userId": "rita"}, "commentText": "rita's"})
    await _annotation(api, ws, "a-tom", {"from": {"userId": "tom"}, "commentText": "tom's"})
    await stop_app(api)

    # Comments is down: every other service erases and reports; the job waits for it.
    api = await start_app(system(without="comments"))
    job = await erase(api, ws, "rita")
    async with asyncio.timeout(30):
        while True:
            got = (await status(api, ws, job)).data
            if got["tasksLeft"] == 1:
                break
            await asyncio.sleep(0.05)
    assert (got["status"], got["isDeleteCompleted"]) == ("in_progress", False)
    # An export cannot be complete without comments, so it is refused, not partial.
    assert_failure(await export(api, ws, "rita"), 503, "UNAVAILABLE")
    await stop_app(api)

    api = await start_app(system())
    await until_completed(api, ws, job)
    assert comment_texts(await export_all(api, ws, "rita")) == []
    assert comment_texts(await export_all(api, ws, "tom")) == ["tom's"]
