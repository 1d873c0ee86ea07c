"""Agent nodes: the reserved mock agent, the page the agent runs against, and the agent runner
(on the real HTTPS test receiver) answering at once, later through the callback, or not at all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.definitions.nodes import AgentConfig
from redline.workflow.engine.nodes.agent import AgentRunner, agent_callback_outcome, run_agent
from redline.workflow.engine.nodes.outcome import NodeOutcome, StepError
from redline.workflow.engine.nodes.webhook import CallbackBody
from services.workflow.tests.nodes_support import (
    HOST,
    Answer,
    ScriptedReceiver,
    free_port,
    json_answer,
    receiver_and_client,
    step_run,
)


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[tuple[ScriptedReceiver, WebhookClient]]:
    async with receiver_and_client(tmp_path / "tls") as pair:
        yield pair


def agent(**changes: Any) -> AgentConfig:
    return AgentConfig(**({"agentId": "brand-agent-v1", "urlPath": "page.url"} | changes))


def runner_at(receiver: ScriptedReceiver) -> AgentRunner:
    return AgentRunner(receiver.url("/runs"), token="runner-token", timeout_s=5)


def unused_client() -> WebhookClient:
    """A client the agent never reaches (never started: using it would raise)."""
    return WebhookClient(AddressGuard())


def error_code(outcome: NodeOutcome) -> str:
    assert outcome.error is not None
    return outcome.error.code


# Before any runner is called


async def test_the_mock_agent_approves_at_once_without_a_runner() -> None:
    outcome = await run_agent(agent(agentId="__mock__"), step_run(), None, unused_client())

    assert outcome.status == "completed"
    assert outcome.output == {
        "agentId": "__mock__",
        "synthetic": True,
        "decision": "approve",
        "resolvedUrl": "https://docs.acme.dev/launch",
    }
    assert outcome.data == {"agentId": "__mock__", "synthetic": True, "decision": "approve"}


async def test_the_mock_agent_needs_no_url() -> None:
    config = agent(agentId="__mock__", urlPath="page.missing")

    outcome = await run_agent(config, step_run(), None, unused_client())

    assert outcome.status == "completed"
    assert "resolvedUrl" not in outcome.output


@pytest.mark.parametrize("agent_id", ["__mock__", "brand-agent-v1"])
async def test_blocking_agents_fail_for_good(agent_id: str) -> None:
    config = agent(agentId=agent_id, blocking=True, resolutionPolicy={"mode": "any"})

    outcome = await run_agent(config, step_run(), None, unused_client())

    assert outcome.status == "failed"
    assert error_code(outcome) == "agent-blocking-not-supported"
    assert outcome.data == {"reason": "agent-blocking-not-supported", "retryClass": "terminal"}


@pytest.mark.parametrize(
    ("changes", "context"),
    [
        ({"urlPath": "page.missing"}, {"page": {"url": "x.dev"}}),
        ({"urlPath": "page.url"}, {"page": {"url": 42}}),
        ({"urlPath": "page.url"}, {"page": {"url": "  "}}),
    ],
)
async def test_a_url_path_that_resolves_to_nothing_fails_for_good(
    changes: dict[str, Any], context: dict[str, Any], http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    run = step_run(triggerContext=context)

    outcome = await run_agent(agent(**changes), run, runner_at(receiver), client)

    assert outcome.status == "failed"
    assert error_code(outcome) == "agent-url-unresolved"
    assert receiver.requests == []


async def test_without_a_runner_the_step_fails_for_good() -> None:
    outcome = await run_agent(agent(), step_run(), None, unused_client())

    assert outcome.status == "failed"
    assert outcome.error == StepError(
        "agent-runner-not-configured", "agent nodes need an agent runner, and none is configured"
    )
    assert outcome.data == {"reason": "agent-runner-not-configured", "retryClass": "terminal"}


# The runner's request


async def test_the_runner_gets_the_page_the_mapped_input_and_the_callback(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(202))
    config = agent(
        url="http://fixed.acme.dev/page",
        inputMapping={
            "title": "triggerContext.page.title",
            "previous": "input.decision",
            "bare": "page.title",
            "missing": "page.nothing",
            "limit": 5,
        },
        userContextMapping={"team": "user.team", "token": "webhookAuth.review"},
        promptOverride="Check the brand voice.",
        crossPageExecute=True,
        maxUrlsToProcess=20,
    )
    run = step_run(
        triggerContext={
            "page": {"title": "Launch plan"},
            "user": {"team": "growth"},
            "webhookAuth": {"review": "secret-token"},
        }
    )

    await run_agent(config, run, runner_at(receiver), client)

    [request] = receiver.requests
    assert request.path == "/runs"
    assert request.headers["authorization"] == "Bearer runner-token"
    assert request.json() == {
        "agentId": "brand-agent-v1",
        "url": "http://fixed.acme.dev/page",
        "input": {
            "title": "Launch plan",
            "previous": "approve",
            "bare": "Launch plan",
            "missing": None,
            "limit": 5,
        },
        "userContext": {"team": "growth", "token": None},
        "promptOverride": "Check the brand voice.",
        "crossPageExecute": True,
        "maxUrlsToProcess": 20,
        "agentMaxRuntimeMs": 600000,
        "executionId": "exec_1700000000000_abc",
        "definitionId": "content-review",
        "stepId": "step_review_1",
        "nodeId": "review",
        "workspaceId": "ws_1",
        "organizationId": "org_1",
        "documentId": "doc_1",
        "callback": {
            "url": "https://redline.example.com/v2/workflow/callbacks/step_review_1",
            "token": "cb-token-1",
            "tokenHeader": "x-redline-callback-token",
        },
    }


async def test_without_an_input_mapping_the_runner_gets_the_step_input_and_the_url_path_page(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(202))

    await run_agent(agent(), step_run(), runner_at(receiver), client)

    [request] = receiver.requests
    sent = request.json()
    assert sent["url"] == "https://docs.acme.dev/launch"
    assert sent["input"] == {"decision": "approve", "summary": {"text": "All good"}}
    assert sent["userContext"] == {}
    assert sent["crossPageExecute"] is False
    assert "promptOverride" not in sent
    assert "maxUrlsToProcess" not in sent


@pytest.mark.parametrize(
    "page",
    [
        "https://127.0.0.2/admin",
        "http://169.254.169.254/latest/meta-data/",
        "https://10.0.0.5/internal",
        "https://[::1]:8443/",
        "https://localhost/admin",
        "https://metadata.google.internal/computeMetadata/v1/",
        "ftp://files.acme.dev/page",
    ],
)
async def test_a_page_inside_this_network_fails_the_step_and_never_reaches_the_runner(
    http: tuple[ScriptedReceiver, WebhookClient], page: str
) -> None:
    receiver, client = http

    outcome = await run_agent(agent(url=page), step_run(), runner_at(receiver), client)

    assert outcome.status == "failed"
    assert error_code(outcome) == "agent-url-blocked"
    assert outcome.error is not None
    assert outcome.error.message.startswith("the page URL is not allowed: ")
    assert outcome.data == {"reason": "agent-url-blocked", "retryClass": "terminal"}
    assert receiver.requests == []


async def test_a_page_on_an_allow_listed_host_reaches_the_runner(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    # The client's guard allows the test receiver's host, as REDLINE_WEBHOOK_ALLOW would.
    receiver, client = http
    receiver.answers.append(Answer(202))
    page = f"http://{HOST}:8080/preview"

    outcome = await run_agent(agent(url=page), step_run(), runner_at(receiver), client)

    assert outcome.status == "waiting"
    [request] = receiver.requests
    assert request.json()["url"] == page


# The runner's answer


async def test_a_sync_answer_completes_the_step(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    summary = {"summary": "Tone matches", "issues": 0}
    receiver.answers.append(
        json_answer(
            {
                "status": "completed",
                "agentExecutionId": "ax_1",
                "output": {"passed": True, "agentResultsSummary": summary, "agentDurationMs": 812},
            }
        )
    )

    outcome = await run_agent(agent(), step_run(), runner_at(receiver), client)

    assert outcome.status == "completed"
    assert outcome.output == {
        "passed": True,
        "agentId": "brand-agent-v1",
        "agentExecutionId": "ax_1",
        "agentExecutionStatus": "completed",
        "agentResultsSummary": summary,
        "resolvedUrl": "https://docs.acme.dev/launch",
        "agentDurationMs": 812,
        "decision": "approve",
    }
    assert outcome.data == {
        "agentExecutionId": "ax_1",
        "agentExecutionStatus": "completed",
        "decision": "approve",
        "source": "runner",
    }


@pytest.mark.parametrize(
    ("output", "decision"),
    [({"passed": False}, "reject"), ({"decision": "reject"}, "reject"), ({}, "approve")],
)
async def test_the_decision_follows_the_agents_verdict(
    output: dict[str, Any], decision: str, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer({"status": "completed", "output": output}))

    outcome = await run_agent(agent(), step_run(), runner_at(receiver), client)

    assert outcome.status == "completed"
    assert outcome.output["decision"] == decision
    assert isinstance(outcome.output["agentDurationMs"], int)


async def test_a_failed_run_fails_the_step(http: tuple[ScriptedReceiver, WebhookClient]) -> None:
    receiver, client = http
    error = {"code": "page-unreachable", "message": "the page answered 404"}
    receiver.answers.append(
        json_answer({"status": "failed", "agentExecutionId": "ax_3", "error": error})
    )

    outcome = await run_agent(agent(), step_run(), runner_at(receiver), client)

    assert outcome.status == "failed"
    assert outcome.error == StepError("page-unreachable", "the page answered 404")
    assert outcome.data == {
        "agentExecutionId": "ax_3",
        "agentExecutionStatus": "failed",
        "decision": "reject",
        "source": "runner",
        "retryClass": "terminal",
    }


async def test_an_accepted_run_waits_and_the_callback_finishes_it(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer({"status": "running", "agentExecutionId": "ax_2"}))

    parked = await run_agent(agent(pollIntervalMs=5000), step_run(), runner_at(receiver), client)

    assert parked.status == "waiting"
    assert parked.data == {
        "agentId": "brand-agent-v1",
        "agentExecutionId": "ax_2",
        "pollIntervalMs": 5000,
    }
    assert parked.output["agentExecutionStatus"] == "running"
    requested_at = parked.output["requestedAt"]
    sent = {
        "status": "completed",
        "output": {"decision": "reject", "agentResultsSummary": "2 issues"},
    }
    body = msgspec.json.decode(msgspec.json.encode(sent), type=CallbackBody)

    finished = agent_callback_outcome(body, parked.output, now_ms=requested_at + 4500)

    assert finished.status == "completed"
    assert finished.output == {
        "decision": "reject",
        "agentId": "brand-agent-v1",
        "agentExecutionId": "ax_2",
        "agentExecutionStatus": "completed",
        "agentResultsSummary": "2 issues",
        "resolvedUrl": "https://docs.acme.dev/launch",
        "agentDurationMs": 4500,
    }
    assert finished.data == {
        "agentExecutionId": "ax_2",
        "agentExecutionStatus": "completed",
        "decision": "reject",
        "source": "callback",
    }


async def test_a_202_without_a_body_waits_and_a_failed_callback_fails_the_step(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(202))

    parked = await run_agent(agent(), step_run(), runner_at(receiver), client)

    assert parked.status == "waiting"
    assert parked.data == {
        "agentId": "brand-agent-v1",
        "agentExecutionId": None,
        "pollIntervalMs": 15000,
    }
    body = CallbackBody(status="failed", output={"agentExecutionId": "ax_9"})
    finished = agent_callback_outcome(body, parked.output)
    assert finished.status == "failed"
    assert finished.error == StepError("agent-execution-failed", "the agent run failed")
    assert finished.data is not None
    assert finished.data["agentExecutionId"] == "ax_9"
    assert finished.data["source"] == "callback"


@pytest.mark.parametrize(
    ("answer", "status", "code"),
    [
        (Answer(503, headers={"Retry-After": "20"}), "retry", "agent-runner-unavailable"),
        (Answer(500), "retry", "agent-runner-unavailable"),
        (Answer(400), "failed", "agent-runner-refused"),
        (Answer(401), "failed", "agent-runner-refused"),
        (Answer(200, b"<html>hello</html>"), "failed", "agent-runner-invalid-answer"),
        (json_answer({"status": "queued"}), "failed", "agent-runner-invalid-answer"),
    ],
)
async def test_runner_failures_are_retried_or_terminal(
    answer: Answer, status: str, code: str, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(answer)

    outcome = await run_agent(agent(), step_run(), runner_at(receiver), client)

    assert outcome.status == status
    assert error_code(outcome) == code
    assert outcome.data is not None
    assert outcome.data["retryClass"] == ("retryable" if status == "retry" else "terminal")
    assert outcome.data["source"] == "runner"
    if answer.status == 503:
        assert outcome.retry_after_s == 20.0


async def test_an_unreachable_runner_is_retried(tmp_path: Path) -> None:
    async with receiver_and_client(tmp_path / "tls") as (_, client):
        runner = AgentRunner(f"https://127.0.0.1:{free_port()}/runs", timeout_s=5)
        outcome = await run_agent(agent(), step_run(), runner, client)

    assert outcome.status == "retry"
    assert error_code(outcome) == "agent-runner-unavailable"
    assert outcome.data is not None
    assert outcome.data["httpStatus"] is None


def test_the_runner_does_not_show_its_token() -> None:
    runner = AgentRunner("https://runner.example.com/runs", token="runner-secret")

    assert "runner-secret" not in repr(runner)
    with pytest.raises(ValueError, match="printable"):
        AgentRunner("https://runner.example.com/runs", token="bad\ntoken")
