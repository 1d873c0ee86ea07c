"""Agent nodes: hand the page and the mapped input to the agent runner the operator configured.

The runner is an HTTP endpoint, called through the guarded client with a JSON body:
`{agentId, url, input, userContext, promptOverride?, crossPageExecute, maxUrlsToProcess?,
agentMaxRuntimeMs, executionId, definitionId, stepId, nodeId, workspaceId, organizationId,
documentId, callback: {url, token, tokenHeader}}`, and `Authorization: Bearer <token>` when one
is configured. It answers either at once, `{status: "completed" | "failed", agentExecutionId?,
output?, error?}`, or later: HTTP 202 (or `{status: "running", agentExecutionId?}`) parks the
step in `waiting`, and the runner posts `{status, output?, error?}` to the callback, read by
`agent_callback_outcome`.

The runner's `output` may say how the agent judged the page: `decision` (`approve`|`reject`) or
`passed` (bool); a completed run that says neither passed. It may also carry
`agentResultsSummary` and `agentDurationMs`; its other keys pass through to the step output.

The page passes the address guard before the runner is called (`page_guard`): a page inside
this network (loopback, private ranges, the metadata service) fails the step, terminally.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from redline.webhooks import Reply, WebhookClient, is_header_value
from redline.workflow.engine.expressions import lookup
from redline.workflow.engine.nodes.outcome import (
    RETRYABLE,
    TERMINAL,
    Json,
    NodeOutcome,
    StepRun,
    completed,
    failed,
    given,
    misconfigured,
    retry,
    retry_after,
    shareable_context,
    waiting,
)
from redline.workflow.engine.nodes.page_guard import page_refusal
from redline.workflow.engine.nodes.webhook import CallbackBody, callback_error

if TYPE_CHECKING:
    from redline.workflow.definitions.nodes import AgentConfig

MOCK_AGENT_ID = "__mock__"
_JSON = {"Content-Type": "application/json"}
_ANSWER_LIMIT = 1024 * 1024


class AgentRunner:
    """The operator's agent runner: `url` takes the runs, `token` (sent as a bearer token) tells
    it the request comes from this deployment. `timeout_s` bounds the runner's answer, not the
    agent's run: a runner that needs longer answers 202 and uses the callback."""

    def __init__(self, url: str, *, token: str | None = None, timeout_s: float = 30.0) -> None:
        if token is not None and (not token or not is_header_value(token)):
            raise ValueError("the agent runner token must be printable ASCII")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        self.url = url
        self._token = token
        self._timeout_s = timeout_s

    def __repr__(self) -> str:  # without the token, nor the URL (it may carry one)
        return f"AgentRunner(token={'set' if self._token else 'unset'})"

    async def start(self, client: WebhookClient, run: Json) -> Reply:
        """Ask the runner to start `run` (the JSON body described above)."""
        headers = dict(_JSON)
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        body = msgspec.json.encode(run)
        return await client.request(
            "POST", self.url, body, headers, timeout_s=self._timeout_s, read_limit=_ANSWER_LIMIT
        )


class _RunnerAnswer(msgspec.Struct):
    """A runner's immediate answer; other fields are ignored."""

    status: Literal["completed", "failed", "running"]
    agentExecutionId: str | None = None
    output: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


async def run_agent(
    config: AgentConfig, run: StepRun, runner: AgentRunner | None, client: WebhookClient
) -> NodeOutcome:
    """Run the agent once; `runner` is None when the operator configured none."""
    if config.blocking is True:
        return misconfigured(
            "agent-blocking-not-supported",
            "blocking agents are not supported; put a human node after the agent node instead",
        )
    context = shareable_context(run.triggerContext)
    page = config.resolve_url(context)
    if config.agentId == MOCK_AGENT_ID:
        return _mock(page)
    if page is None:
        return misconfigured(
            "agent-url-unresolved", "neither url nor urlPath gave the page the agent runs against"
        )
    if runner is None:
        return misconfigured(
            "agent-runner-not-configured",
            "agent nodes need an agent runner, and none is configured",
        )
    if run.callback is None:
        return misconfigured(
            "agent-callback-unavailable", "the step has no callback for the agent runner to answer"
        )
    refusal = await page_refusal(client.guard, page)
    if refusal is not None:
        return misconfigured("agent-url-blocked", f"the page URL is not allowed: {refusal}")
    started_ms = _now_ms()
    reply = await runner.start(client, runner_request(config, run, page))
    return _interpret(reply, config, page, started_ms)


def runner_request(config: AgentConfig, run: StepRun, page: str) -> Json:
    """The body the agent runner gets."""
    context = shareable_context(run.triggerContext)
    mapping = given(config.inputMapping, {})
    request: Json = {
        "agentId": config.agentId,
        "url": page,
        "input": _mapped(mapping, context, run.input) if mapping else run.input,
        "userContext": _mapped(given(config.userContextMapping, {}), context, None),
        "crossPageExecute": config.effective_cross_page_execute,
        "agentMaxRuntimeMs": config.effective_max_runtime_ms,
        "executionId": run.executionId,
        "definitionId": run.definitionId,
        "stepId": run.stepId,
        "nodeId": run.nodeId,
        "workspaceId": run.workspaceId,
        "organizationId": run.organizationId,
        "documentId": run.documentId,
        "callback": msgspec.to_builtins(run.callback),
    }
    if not isinstance(config.promptOverride, msgspec.UnsetType):
        request["promptOverride"] = config.promptOverride
    if not isinstance(config.maxUrlsToProcess, msgspec.UnsetType):
        request["maxUrlsToProcess"] = config.maxUrlsToProcess
    return request


def _mapped(mapping: Mapping[str, Any], context: Json, step_input: Json | None) -> Json:
    """`{field: dotPath}` resolved: a path starting `input.` reads the step's input (when
    `step_input` is given), one starting `triggerContext.` or any other path reads the trigger
    context; what resolves to nothing is null. Values that are not strings are passed as given."""
    resolved: Json = {}
    for field, path in mapping.items():
        if not isinstance(path, str):
            resolved[field] = path
            continue
        root: Any = context
        parts = path.split(".")
        if parts[0] == "input" and step_input is not None:
            root, parts = step_input, parts[1:]
        elif parts[0] == "triggerContext":
            parts = parts[1:]
        resolved[field] = lookup(root, parts)
    return resolved


def _mock(page: str | None) -> NodeOutcome:
    """The reserved test agent: approves at once, without a runner."""
    data: Json = {"agentId": MOCK_AGENT_ID, "synthetic": True, "decision": "approve"}
    output = dict(data)
    if page is not None:
        output["resolvedUrl"] = page
    return completed(output, data)


def _interpret(reply: Reply, config: AgentConfig, page: str, started_ms: int) -> NodeOutcome:
    outcome = reply.outcome
    if outcome.blocked:
        return _runner_failure("agent-runner-blocked", outcome.error or "", TERMINAL, reply)
    if outcome.status is None:
        return _runner_failure("agent-runner-unavailable", outcome.error or "", RETRYABLE, reply)
    if not outcome.ok:
        retryable = outcome.status >= 500 or outcome.status in (408, 429)
        retry_class = RETRYABLE if retryable else TERMINAL
        code = "agent-runner-unavailable" if retryable else "agent-runner-refused"
        return _runner_failure(code, f"HTTP {outcome.status}", retry_class, reply)
    answer = _answer(reply)
    if answer is None:
        return _runner_failure(
            "agent-runner-invalid-answer", "the answer is not a run status", TERMINAL, reply
        )
    parked = {
        "agentId": config.agentId,
        "agentExecutionId": answer.agentExecutionId,
        "resolvedUrl": page,
        "requestedAt": started_ms,
    }
    if answer.status == "running":
        return _waiting(config, parked)
    return _finished(answer.status, answer.output or {}, answer.error or {}, parked, "runner")


def _answer(reply: Reply) -> _RunnerAnswer | None:
    """The runner's answer; a 202 with no body (or an unreadable one) means "running"."""
    try:
        return msgspec.json.decode(reply.body, type=_RunnerAnswer)
    except msgspec.DecodeError:
        if reply.outcome.status == 202:
            return _RunnerAnswer(status="running")
        return None


def _waiting(config: AgentConfig, parked: Json) -> NodeOutcome:
    poll_ms = config.effective_poll_interval_ms
    output = {
        **parked,
        "agentExecutionStatus": "running",
        "pollIntervalMs": poll_ms,
        "agentMaxRuntimeMs": config.effective_max_runtime_ms,
    }
    data = {
        "agentId": config.agentId,
        "agentExecutionId": parked["agentExecutionId"],
        "pollIntervalMs": poll_ms,
    }
    return waiting(output, data)


def agent_callback_outcome(
    body: CallbackBody, waiting_output: Mapping[str, Any], *, now_ms: int | None = None
) -> NodeOutcome:
    """What the runner's callback does to the step it parked; `waiting_output` is the output
    the step was parked with (it knows the agent, the page and when the run was asked for)."""
    parked = {
        "agentId": waiting_output.get("agentId"),
        "agentExecutionId": waiting_output.get("agentExecutionId"),
        "resolvedUrl": waiting_output.get("resolvedUrl"),
        "requestedAt": waiting_output.get("requestedAt"),
    }
    output = given(body.output, {})
    error = given(body.error, {})
    return _finished(body.status, output, error, parked, "callback", now_ms=now_ms)


def _finished(
    status: Literal["completed", "failed"],
    output: Json,
    error: Json,
    parked: Json,
    source: str,
    *,
    now_ms: int | None = None,
) -> NodeOutcome:
    """A run that ended, as the runner reported it (`source`: `runner` or `callback`)."""
    execution_id = output.get("agentExecutionId", parked["agentExecutionId"])
    decision = _decision(output) if status == "completed" else "reject"
    result = {
        **output,
        "agentId": parked["agentId"],
        "agentExecutionId": execution_id,
        "agentExecutionStatus": status,
        "agentResultsSummary": output.get("agentResultsSummary"),
        "resolvedUrl": parked["resolvedUrl"],
        "agentDurationMs": _duration_ms(output, parked, now_ms),
        "decision": decision,
    }
    data = {
        "agentExecutionId": execution_id,
        "agentExecutionStatus": status,
        "decision": decision,
        "source": source,
    }
    if status == "completed":
        return completed(result, data)
    code, message = callback_error(error, "agent-execution-failed", "the agent run failed")
    return failed(code, message, {**data, "retryClass": TERMINAL}, output=result)


def _decision(output: Json) -> str:
    decision = output.get("decision")
    if decision in ("approve", "reject"):
        return str(decision)
    return "reject" if output.get("passed") is False else "approve"


def _duration_ms(output: Json, parked: Json, now_ms: int | None) -> int | None:
    reported = output.get("agentDurationMs")
    if isinstance(reported, int) and not isinstance(reported, bool) and reported >= 0:
        return reported
    requested = parked["requestedAt"]
    if not isinstance(requested, int):
        return None
    return max(0, (_now_ms() if now_ms is None else now_ms) - requested)


def _runner_failure(code: str, detail: str, retry_class: str, reply: Reply) -> NodeOutcome:
    message = f"the agent runner did not take the run: {detail}"
    data = {
        "agentExecutionId": None,
        "agentExecutionStatus": None,
        "decision": None,
        "source": "runner",
        "retryClass": retry_class,
        "httpStatus": reply.outcome.status,
    }
    if retry_class == RETRYABLE:
        return retry(code, message, data, after_s=retry_after(reply.headers.get("retry-after")))
    return failed(code, message, data)


def _now_ms() -> int:
    return int(time.time() * 1000)
