"""Rate limits hold across replicas: two replicas of one service, on one PostgreSQL and NATS as
a deployment's are, share a tenant's limit instead of granting it once each."""

from __future__ import annotations

from typing import Any

from redline.envelope.ratelimit import unsynced_allowance
from redline.identity.app import create_app
from redline.identity.settings import IdentitySettings
from redline.runtime.settings import load_settings
from redline.workflow.app import create_app as create_workflow_app
from redline.workflow.settings import WorkflowSettings
from tests.api.workflow_support import mock_agent
from tests.e2e.conftest import StartApp

LIMIT = 10


async def test_two_replicas_of_a_service_hold_one_limit_between_them(
    runtime_overrides: dict[str, Any], start_app: StartApp
) -> None:
    settings = load_settings(
        IdentitySettings, {}, **{**runtime_overrides, "rate_limit_general": LIMIT}
    )
    replicas = [await start_app(create_app(settings)) for _ in range(2)]
    ws = await replicas[0].create_workspace("replicas@example.com")

    # A balancer sends the tenant's requests to each replica in turn.
    statuses = [
        (await replicas[n % 2].post("/v2/workspace/domains/get", headers=ws.key_headers)).status
        for n in range(3 * LIMIT)
    ]

    accepted = statuses.count(200)
    # Each replica may admit its unsynced allowance on a view the other has not folded into.
    assert LIMIT <= accepted <= LIMIT + 2 * unsynced_allowance(LIMIT)
    assert statuses.count(429) == len(statuses) - accepted


async def test_two_replicas_of_workflow_hold_one_limit_per_trigger(
    runtime_overrides: dict[str, Any], start_app: StartApp
) -> None:
    identity = await start_app(create_app(load_settings(IdentitySettings, {}, **runtime_overrides)))
    settings = load_settings(
        WorkflowSettings, {}, **{**runtime_overrides, "trigger_rate_limit": LIMIT}
    )
    replicas = [await start_app(create_workflow_app(settings)) for _ in range(2)]
    ws = await identity.create_workspace("triggers@example.com")
    bearer = {"authMode": "bearer", "secret": "trigger-secret-0123456789"}
    created = await replicas[0].post(
        "/v2/workflow/definitions/create",
        {
            "definitionId": "hooked",
            "name": "hooked",
            "nodes": [mock_agent("check")],
            "edges": [],
            "triggers": [{"triggerId": "ci", "inboundWebhook": bearer}],
        },
        headers=ws.key_headers,
    )
    assert created.status == 200, created.body
    query = "?definitionId=hooked&triggerId=ci"
    headers = {"x-redline-api-key": ws.api_key, "authorization": f"Bearer {bearer['secret']}"}

    # Each delivery (no event id: a run each) goes to the replicas in turn.
    statuses = [
        (
            await replicas[n % 2].post(
                "/v2/workflow/webhook-inbound/trigger" + query, raw=b"{}", headers=headers
            )
        ).status
        for n in range(3 * LIMIT)
    ]

    accepted = statuses.count(200)
    assert LIMIT <= accepted <= LIMIT + 2 * unsynced_allowance(LIMIT)
    assert statuses.count(429) == len(statuses) - accepted
