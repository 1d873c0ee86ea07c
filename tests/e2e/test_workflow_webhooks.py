"""Workflow executions seen from a customer's receiver: every visible event delivered by
notify, signed, in seq order; an outage reconciled through getEvents; an async webhook step
resumed by its callback."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook
from yarl import URL

from redline.cli.system import create_system_app
from redline.testing.api import ApiClient
from redline.testing.mail import smtp_server
from redline.testing.receiver import Received, WebhookReceiver
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent, webhook
from tests.e2e.conftest import StartApp

SECRET = "whsec_" + base64.b64encode(b"a workflow receiver secret!").decode()
PLAIN_SECRET = "a plain receiver secret"


@pytest.fixture
async def flow(notify_overrides: dict[str, Any], start_app: StartApp) -> Workflow:
    app, _ = create_system_app(
        {},
        **notify_overrides,
        header_brands=["redline", "velt"],
        workflow_webhook_retry_schedule_s=[0.05] * 3,
    )
    api: ApiClient = await start_app(app)
    workflow = Workflow(api, await api.create_workspace())
    await workflow.create(
        definition(
            "sign-off",
            [human("review", ("alice", True)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
        )
    )
    return workflow


async def _approve(flow: Workflow, execution_id: str) -> None:
    step_id = await flow.waiting_step(execution_id, "review")
    await flow.decide(execution_id, step_id, "alice", "approve")
    await flow.ended(execution_id)


def _verify_redline(request: Received, secret: str) -> None:
    expected = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    for brand in ("redline", "velt"):
        assert request.headers[f"x-{brand}-signature"] == f"sha256={expected}"
        assert request.headers[f"x-{brand}-event-id"] == request.json()["eventId"]


async def test_every_visible_event_arrives_signed_in_seq_order(
    flow: Workflow, receiver: WebhookReceiver
) -> None:
    execution_id = await flow.dispatch(
        "sign-off", webhookUrl=receiver.url("/approvals"), webhookSecret=SECRET
    )
    await _approve(flow, execution_id)
    events = await flow.events(execution_id)
    await receiver.wait_for(len(events), path="/approvals")
    received = receiver.delivered("/approvals")
    bodies = [r.json() for r in received]
    assert [b["seq"] for b in bodies] == [e["seq"] for e in events]
    assert [b["type"] for b in bodies] == [e["type"] for e in events]
    for request, body, event in zip(received, bodies, events, strict=True):
        assert {k: body[k] for k in event} == event
        assert body["event"] == event["type"]
        assert body["executionId"] == execution_id
        assert body["definitionId"] == "sign-off"
        assert request.headers["x-redline-attempt"] == "0"
        _verify_redline(request, SECRET)
        # The Standard Webhooks package takes a whsec_ secret as it is.
        Webhook(SECRET).verify(request.body, dict(request.headers))
    assert bodies[-1]["status"] == "completed"


async def test_a_plain_secret_verifies_with_standard_webhooks_as_base64(
    flow: Workflow, receiver: WebhookReceiver
) -> None:
    execution_id = await flow.dispatch(
        "sign-off", webhookUrl=receiver.url("/plain"), webhookSecret=PLAIN_SECRET
    )
    await receiver.wait_for(2, path="/plain")
    for request in receiver.delivered("/plain"):
        _verify_redline(request, PLAIN_SECRET)
        # The package base64-decodes a secret without the whsec_ prefix: give it the bytes so.
        Webhook(base64.b64encode(PLAIN_SECRET.encode()).decode()).verify(
            request.body, dict(request.headers)
        )
    assert (await flow.execution(execution_id))["status"] == "running"


async def test_an_outage_is_reconciled_through_get_events(
    flow: Workflow, receiver: WebhookReceiver
) -> None:
    execution_id = await flow.dispatch(
        "sign-off", webhookUrl=receiver.url("/down"), webhookSecret=SECRET
    )
    await receiver.wait_for(2, path="/down")  # dispatched, awaiting approval
    seen = [r.json()["seq"] for r in receiver.delivered("/down")]
    # The receiver fails every attempt from now on: the rest are retried, then given up on.
    receiver.scripted = [500] * 1000
    await _approve(flow, execution_id)
    deliveries = await _until_failed(flow, 2)
    assert all(d["attempts"] == 4 for d in deliveries)
    missed = await flow.events(execution_id, since=max(seen))
    all_events = await flow.events(execution_id)
    assert [e["seq"] for e in all_events] == seen + [e["seq"] for e in missed]
    assert [e["type"] for e in missed] == ["step.completed", "execution.completed"]
    failed_seqs = sorted(
        r.json()["seq"]
        for r in receiver.requests
        if r.path == "/down" and r.json()["seq"] > max(seen)
    )
    # The line held: the second missed event was tried only once the first was given up on.
    assert failed_seqs[0] == missed[0]["seq"]


async def _until_failed(flow: Workflow, count: int) -> list[dict[str, Any]]:
    async with asyncio.timeout(30):
        while True:
            listed = await flow.api.post(
                "/v2/webhooks/deliveries/list",
                {"status": "failed"},
                headers=flow.workspace.key_headers,
            )
            assert listed.status == 200, listed.body
            if len(listed.data) >= count:
                return list(listed.data)
            await asyncio.sleep(0.05)


async def test_an_async_webhook_step_waits_for_its_callback(
    flow: Workflow, receiver: WebhookReceiver
) -> None:
    await flow.create(
        definition(
            "hand-off",
            [
                webhook("export", receiver.url("/export"), mode="async", authMode="none"),
                mock_agent("after"),
            ],
            [edge("export", "after")],
        )
    )
    execution_id = await flow.dispatch("hand-off", triggerContext={"asset": "a-1"})
    await receiver.wait_for(1, path="/export")
    [request] = receiver.delivered("/export")
    sent = request.json()
    assert sent["triggerContext"] == {"asset": "a-1"}
    callback = sent["callback"]
    waiting = await flow.until(execution_id, lambda e: e["steps"][0]["status"] == "waiting")
    assert len(waiting["steps"]) == 1
    path = URL(callback["url"]).path
    refused = await flow.api.session.post(
        flow.api.base_url + path,
        json={"status": "completed"},
        headers={callback["tokenHeader"]: "not-the-token"},
    )
    assert refused.status == 401
    answered = await flow.api.session.post(
        flow.api.base_url + path,
        json={"status": "completed", "output": {"exported": 12}},
        headers={callback["tokenHeader"]: callback["token"]},
    )
    assert answered.status == 200, await answered.text()
    execution = await flow.ended(execution_id)
    assert execution["status"] == "completed"
    assert execution["steps"][0]["output"] == {"exported": 12}
    types = [e["type"] for e in await flow.events(execution_id)]
    assert types == [
        "execution.dispatched",
        "step.awaiting-approval",
        "step.completed",
        "step.completed",
        "execution.completed",
    ]
    again = await flow.api.session.post(
        flow.api.base_url + path,
        json={"status": "failed"},
        headers={callback["tokenHeader"]: callback["token"]},
    )
    assert again.status == 400


async def test_an_agent_step_waits_for_its_runner_and_email_reports_the_result(
    notify_overrides: dict[str, Any], start_app: StartApp, receiver: WebhookReceiver
) -> None:
    with smtp_server() as (mailbox, smtp_port):
        app, _ = create_system_app(
            {},
            **notify_overrides,
            agent_runner_url=receiver.url("/runner"),
            smtp_host="127.0.0.1",
            smtp_port=smtp_port,
            smtp_security="none",
        )
        api: ApiClient = await start_app(app)
        flow = Workflow(api, await api.create_workspace())
        await flow.create(
            definition(
                "page-scan",
                [
                    {
                        "nodeId": "scan",
                        "type": "agent",
                        "config": {"agentId": "broken-links", "urlPath": "page.url"},
                    },
                    {
                        "nodeId": "tell",
                        "type": "notification",
                        "config": {
                            "channel": "email",
                            "recipients": ["web@example.com"],
                            "subjectTemplate": "Scan of {{execution.triggerContext.page.url}}",
                            "bodyTemplate": "Findings: {{input.agentResultsSummary.total}}",
                        },
                    },
                ],
                [edge("scan", "tell")],
            )
        )
        receiver.scripted = [202]  # the runner takes the run and answers later
        execution_id = await flow.dispatch(
            "page-scan", triggerContext={"page": {"url": "acme.example.com/pricing"}}
        )
        await receiver.wait_for(1, path="/runner")
        sent = receiver.delivered("/runner")[0].json()
        assert (sent["agentId"], sent["url"]) == (
            "broken-links",
            "https://acme.example.com/pricing",
        )
        await flow.until(execution_id, lambda e: e["steps"][0]["status"] == "waiting")
        callback = sent["callback"]
        answered = await api.session.post(
            api.base_url + URL(callback["url"]).path,
            json={
                "status": "completed",
                "output": {"decision": "approve", "agentResultsSummary": {"total": 3}},
            },
            headers={callback["tokenHeader"]: callback["token"]},
        )
        assert answered.status == 200, await answered.text()
        execution = await flow.ended(execution_id)
        assert execution["status"] == "completed", execution
        [mail] = await mailbox.wait_for(1)
        assert mail.recipients == ["web@example.com"]
        assert mail.message["Subject"] == "Scan of acme.example.com/pricing"
        text = mail.message.get_content()
        assert text.startswith("Findings: 3\n")
        assert f"written by workspace {flow.workspace.id}, a workspace on Redline" in text
        scan = execution["steps"][0]
        assert scan["output"]["decision"] == "approve"
        assert [e["type"] for e in await flow.events(execution_id)] == [
            "execution.dispatched",
            "step.awaiting-approval",
            "step.completed",
            "step.completed",
            "execution.completed",
        ]
