"""The official SDK's workflow methods against Redline, unchanged but for its base URL: define a
review, dispatch it, record the reviewer's decision and read the events; then each way of ending
a step or an execution, and an agent step resolved from outside."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from velt_py.models import (
    CancelExecutionRequest,
    CancelStepRequest,
    CreateWorkflowDefinitionRequest,
    DeleteWorkflowDefinitionRequest,
    DispatchExecutionRequest,
    GetExecutionEventsRequest,
    GetExecutionRequest,
    GetWorkflowDefinitionRequest,
    ListExecutionsRequest,
    ListWorkflowDefinitionsRequest,
    RecordAgentResolutionRequest,
    RecordReviewerDecisionRequest,
    ResolveStepRequest,
    UpdateWorkflowDefinitionRequest,
)

from redline.testing.api import StartApi
from redline.testing.receiver import WebhookReceiver
from tests.api.sdk_support import Sdk, sdk_for
from tests.api.workflow_support import edge, human, mock_agent

REVIEW: dict[str, Any] = {
    "definitionId": "doc-signoff",
    "name": "Sign-off",
    "nodes": [human("review", ("alice", True)), mock_agent("ship"), mock_agent("fix")],
    "edges": [edge("review", "ship", "approve"), edge("review", "fix", "reject")],
}
SCAN: dict[str, Any] = {
    "definitionId": "link-scan",
    "name": "Link scan",
    "nodes": [
        {
            "nodeId": "scan",
            "type": "agent",
            "config": {"agentId": "link-check", "url": "https://example.com/p"},
        }
    ],
    "edges": [],
}


@pytest.fixture
async def runner(tmp_path: Path) -> AsyncIterator[WebhookReceiver]:
    """The operator's agent runner: it takes every run with a 202 and answers later."""
    server = WebhookReceiver(tmp_path / "runner-tls")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def sdk(start_api: StartApi, runner: WebhookReceiver, monkeypatch: pytest.MonkeyPatch) -> Sdk:
    settings: dict[str, Any] = {
        "agent_runner_url": runner.url("/runner"),
        "webhook_allow": ["127.0.0.1"],
        "webhook_ca_file": str(runner.ca_file),
    }
    return await sdk_for(None, start_api, None, monkeypatch, **settings)


async def execution(sdk: Sdk, execution_id: str) -> dict[str, Any]:
    got = await sdk.result(
        sdk.api.workflow.getExecution, GetExecutionRequest(executionId=execution_id)
    )
    return dict(got)


async def waiting_step(sdk: Sdk, execution_id: str, node_id: str) -> str:
    async with asyncio.timeout(30):
        while True:
            steps = (await execution(sdk, execution_id))["steps"]
            found = [
                s["stepId"] for s in steps if s["nodeId"] == node_id and s["status"] == "waiting"
            ]
            if found:
                return str(found[0])
            await asyncio.sleep(0.05)


async def ended(sdk: Sdk, execution_id: str) -> dict[str, Any]:
    async with asyncio.timeout(30):
        while True:
            state = await execution(sdk, execution_id)
            if state["status"] in ("completed", "failed", "cancelled"):
                return state
            await asyncio.sleep(0.05)


async def test_define_dispatch_decide_and_read_the_events(sdk: Sdk) -> None:
    flows = sdk.api.workflow
    created = await sdk.result(flows.createDefinition, CreateWorkflowDefinitionRequest(**REVIEW))
    assert created["version"] == 1
    updated = await sdk.result(
        flows.updateDefinition,
        UpdateWorkflowDefinitionRequest(**{**REVIEW, "name": "Sign-off v2"}, ifVersion=1),
    )
    assert updated["version"] == 2
    got = await sdk.result(
        flows.getDefinition, GetWorkflowDefinitionRequest(definitionId="doc-signoff")
    )
    assert got["name"] == "Sign-off v2"
    listed = await sdk.result(flows.listDefinitions, ListWorkflowDefinitionsRequest(pageSize=10))
    assert "doc-signoff" in str(listed)

    dispatched = await sdk.result(
        flows.dispatchExecution,
        DispatchExecutionRequest(definitionId="doc-signoff", idempotencyKey="run-1"),
    )
    execution_id = dispatched["executionId"]
    step_id = await waiting_step(sdk, execution_id, "review")
    decided = await sdk.result(
        flows.recordReviewerDecision,
        RecordReviewerDecisionRequest(
            executionId=execution_id, stepId=step_id, reviewerId="alice", decision="approve"
        ),
    )
    assert decided["aggregatorStatus"] == "resolved"
    assert (await ended(sdk, execution_id))["status"] == "completed"
    events = await sdk.result(
        flows.getExecutionEvents,
        GetExecutionEventsRequest(executionId=execution_id, sinceSeq=0, pageSize=50),
    )
    assert events["events"][0]["type"] == "execution.dispatched"
    assert events["events"][-1]["type"] == "execution.completed"
    runs = await sdk.result(flows.listExecutions, ListExecutionsRequest(definitionId="doc-signoff"))
    assert execution_id in str(runs)


async def test_ending_steps_and_executions(sdk: Sdk, runner: WebhookReceiver) -> None:
    flows = sdk.api.workflow
    await sdk.result(flows.createDefinition, CreateWorkflowDefinitionRequest(**REVIEW))
    forced, dropped, stopped = [
        (
            await sdk.result(
                flows.dispatchExecution, DispatchExecutionRequest(definitionId="doc-signoff")
            )
        )["executionId"]
        for _ in range(3)
    ]
    step = await waiting_step(sdk, forced, "review")
    resolved = await sdk.result(
        flows.resolveStep,
        ResolveStepRequest(executionId=forced, stepId=step, action="force-approve", actorId="ops"),
    )
    assert resolved["resolved"] is True
    step = await waiting_step(sdk, dropped, "review")
    cancelled = await sdk.result(
        flows.cancelStep, CancelStepRequest(executionId=dropped, stepId=step, actorId="ops")
    )
    assert cancelled["cancelled"] is True
    halted = await sdk.result(
        flows.cancelExecution, CancelExecutionRequest(executionId=stopped, reason="no longer")
    )
    assert halted["cancelled"] is True

    await sdk.result(flows.createDefinition, CreateWorkflowDefinitionRequest(**SCAN))
    runner.scripted = [202]
    scan = (
        await sdk.result(
            flows.dispatchExecution, DispatchExecutionRequest(definitionId="link-scan")
        )
    )["executionId"]
    await runner.wait_for(1, path="/runner")
    step = await waiting_step(sdk, scan, "scan")
    recorded = await sdk.result(
        flows.recordAgentResolution,
        RecordAgentResolutionRequest(
            executionId=scan, stepId=step, responseId="resp-1", resolution="resolved", actorId="u1"
        ),
    )
    assert recorded["recorded"] is True
    assert (await ended(sdk, scan))["status"] == "completed"
    for execution_id in (forced, dropped, stopped):
        await ended(sdk, execution_id)
    deleted = await sdk.result(
        flows.deleteDefinition, DeleteWorkflowDefinitionRequest(definitionId="doc-signoff")
    )
    assert deleted["deleted"] is True
