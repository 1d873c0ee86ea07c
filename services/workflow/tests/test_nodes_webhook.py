"""Webhook nodes against the real HTTPS test receiver: the body each template sends, each auth
mode (signatures checked by recomputing them), what the step keeps of the answer, which failures
are terminal and which are retried, and how an async receiver's callback is read."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.definitions.nodes import WebhookNodeConfig
from redline.workflow.engine.nodes.outcome import StepError
from redline.workflow.engine.nodes.webhook import run_webhook
from services.workflow.tests.nodes_support import (
    SECRET,
    Answer,
    ScriptedReceiver,
    json_answer,
    receiver_and_client,
    step_run,
)

BRANDS = ("redline", "velt")
CALLBACK = {
    "url": "https://redline.example.com/v2/workflow/callbacks/step_review_1",
    "token": "cb-token-1",
    "tokenHeader": "x-redline-callback-token",
}
TOKENS = {"webhookAuth": {"review": "tok-123", "other-node": "tok-other"}}


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[tuple[ScriptedReceiver, WebhookClient]]:
    async with receiver_and_client(tmp_path / "tls") as pair:
        yield pair


def node(receiver: ScriptedReceiver, **changes: Any) -> WebhookNodeConfig:
    return WebhookNodeConfig(**({"url": receiver.url("/hooks/review")} | changes))


def expected_signature(body: bytes) -> str:
    return "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()


# What is sent


async def test_a_sync_call_sends_the_signed_envelope_and_completes_with_the_answer(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(
        json_answer({"approved": True}, 200, **{"X-Request-Id": "req-9", "Set-Cookie": "s=1"})
    )
    run = step_run(triggerContext={"page": {"title": "Plan"}, **TOKENS})

    outcome = await run_webhook(node(receiver), run, client, BRANDS)

    assert outcome.status == "completed"
    assert outcome.output["httpStatus"] == 200
    assert outcome.output["responseJson"] == {"approved": True}
    assert outcome.output["responseText"] == '{"approved":true}'
    assert outcome.output["responseHeaders"] == {
        "content-type": "application/json",
        "content-length": "17",
        "x-request-id": "req-9",
    }
    assert outcome.data is not None
    assert outcome.data.pop("latencyMs") >= 0
    assert outcome.data == {"nodeType": "webhook", "mode": "sync", "httpStatus": 200}
    [request] = receiver.requests
    assert receiver.methods == ["POST"]
    assert request.path == "/hooks/review"
    assert request.headers["content-type"] == "application/json"
    # The trigger's tokens are for each node's own receiver, never sent in a body.
    assert request.json() == {
        "executionId": "exec_1700000000000_abc",
        "definitionId": "content-review",
        "correlationId": "corr-1",
        "stepId": "step_review_1",
        "nodeId": "review",
        "input": {"decision": "approve", "summary": {"text": "All good"}},
        "triggerContext": {"page": {"title": "Plan"}},
    }
    for brand in BRANDS:
        assert request.headers[f"x-{brand}-signature"] == expected_signature(request.body)


async def test_hmac_without_a_webhook_secret_fails_for_good_and_sends_nothing(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http

    outcome = await run_webhook(node(receiver), step_run(webhookSecret=None), client, BRANDS)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "webhook-secret-missing"
    assert outcome.data == {"reason": "webhook-secret-missing", "retryClass": "terminal"}
    assert receiver.requests == []


async def test_token_mode_sends_this_nodes_token_from_the_trigger(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    config = node(receiver, authMode="token", authTokenHeader="X-Api-Token")

    outcome = await run_webhook(config, step_run(triggerContext=TOKENS), client, BRANDS)

    assert outcome.status == "completed"
    [request] = receiver.requests
    assert request.headers["x-api-token"] == "tok-123"
    assert "x-redline-signature" not in request.headers
    assert "tok-" not in request.body.decode()


@pytest.mark.parametrize("context", [{}, {"webhookAuth": {"other-node": "t"}}, {"webhookAuth": 1}])
async def test_token_mode_without_a_token_for_the_node_fails_for_good(
    context: dict[str, Any], http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    config = node(receiver, authMode="token", authTokenHeader="X-Api-Token")

    outcome = await run_webhook(config, step_run(triggerContext=context), client, BRANDS)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "webhook-token-missing"
    assert receiver.requests == []


async def test_no_auth_sends_neither_signature_nor_token_and_extra_headers_cannot_forge_one(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    headers = {"X-Tenant": "acme", "X-Velt-Signature": "forged"}

    none_auth = node(receiver, authMode="none", requestHeaders={"X-Tenant": "acme"})
    await run_webhook(none_auth, step_run(), client, BRANDS)
    await run_webhook(node(receiver, requestHeaders=headers), step_run(), client, BRANDS)

    plain, signed = receiver.requests
    assert plain.headers["x-tenant"] == "acme"
    assert not any(name.lower().endswith("-signature") for name in plain.headers)
    assert signed.headers["x-tenant"] == "acme"
    assert signed.headers["x-velt-signature"] == expected_signature(signed.body)


async def test_get_without_a_body(http: tuple[ScriptedReceiver, WebhookClient]) -> None:
    receiver, client = http
    config = node(receiver, method="GET", bodyTemplate="none", authMode="none")

    outcome = await run_webhook(config, step_run(), client, BRANDS)

    assert outcome.status == "completed"
    [request] = receiver.requests
    assert receiver.methods == ["GET"]
    assert request.body == b""
    assert "content-type" not in request.headers


async def test_async_pass_through_sends_the_input_with_the_callback_and_waits(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(202))
    config = node(receiver, mode="async", bodyTemplate="pass-through")

    outcome = await run_webhook(config, step_run(), client, BRANDS)

    assert outcome.status == "waiting"
    assert outcome.data == {"nodeType": "webhook", "mode": "async", "httpStatus": 202}
    assert outcome.output["httpStatus"] == 202
    [request] = receiver.requests
    callback = {
        "callbackUrl": CALLBACK["url"],
        "callbackToken": CALLBACK["token"],
        "callbackTokenHeader": CALLBACK["tokenHeader"],
    }
    assert request.json() == {
        "decision": "approve",
        "summary": {"text": "All good"},
        "_velt": callback,
        "_redline": callback,
    }
    assert request.headers["x-redline-signature"] == expected_signature(request.body)


async def test_async_envelope_carries_the_callback(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http

    outcome = await run_webhook(node(receiver, mode="async"), step_run(), client, BRANDS)

    assert outcome.status == "waiting"
    [request] = receiver.requests
    assert request.json()["callback"] == CALLBACK


async def test_sync_mode_sends_no_callback(http: tuple[ScriptedReceiver, WebhookClient]) -> None:
    receiver, client = http

    await run_webhook(node(receiver, bodyTemplate="pass-through"), step_run(), client, BRANDS)

    [request] = receiver.requests
    assert request.json() == {"decision": "approve", "summary": {"text": "All good"}}


async def test_async_mode_needs_the_callback_the_secret_signs(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    run = step_run(webhookSecret=None, callback=None)

    outcome = await run_webhook(node(receiver, mode="async", authMode="none"), run, client, BRANDS)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "webhook-secret-missing"
    assert receiver.requests == []


# What comes back


@pytest.mark.parametrize("status", [400, 401, 404, 410, 302])
async def test_4xx_and_redirects_fail_for_good(
    status: int, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(Answer(status, b"nope", {"Location": "https://elsewhere.test/"}))

    outcome = await run_webhook(node(receiver), step_run(), client, BRANDS)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "webhook-http-error"
    assert f"HTTP {status}" in outcome.error.message
    assert outcome.data is not None
    assert outcome.data["httpStatus"] == status
    assert outcome.data["retryClass"] == "terminal"
    assert isinstance(outcome.data["latencyMs"], int)
    assert outcome.output["responseText"] == "nope"


@pytest.mark.parametrize(
    ("answer", "after_s"),
    [(Answer(500), None), (Answer(503, headers={"Retry-After": "12"}), 12.0), (Answer(429), None)],
)
async def test_5xx_and_429_are_retried(
    answer: Answer, after_s: float | None, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers.append(answer)

    outcome = await run_webhook(node(receiver), step_run(), client, BRANDS)

    assert outcome.status == "retry"
    assert outcome.retry_after_s == after_s
    assert outcome.error == StepError(
        "webhook-http-error", f"the receiver answered HTTP {answer.status}"
    )
    assert outcome.data is not None
    assert (outcome.data["httpStatus"], outcome.data["retryClass"]) == (answer.status, "retryable")


async def test_a_timeout_is_retried(http: tuple[ScriptedReceiver, WebhookClient]) -> None:
    receiver, client = http
    receiver.answers.append(Answer(200, delay_s=10))

    outcome = await run_webhook(node(receiver, timeoutMs=1000), step_run(), client, BRANDS)

    assert outcome.status == "retry"
    assert outcome.error == StepError(
        "webhook-unreachable", "the receiver could not be reached: timeout after 1 s"
    )
    assert outcome.data is not None
    assert outcome.data["httpStatus"] is None
    assert outcome.data["retryClass"] == "retryable"
    assert 900 <= outcome.data["latencyMs"] < 5000


async def test_a_target_the_guard_refuses_fails_for_good() -> None:
    config = WebhookNodeConfig(url="https://169.254.169.254/latest", authMode="none")
    async with WebhookClient(AddressGuard()) as client:
        outcome = await run_webhook(config, step_run(), client, BRANDS)

    assert outcome.status == "failed"
    assert outcome.error is not None
    assert outcome.error.code == "webhook-target-blocked"
    assert outcome.data is not None
    assert (outcome.data["httpStatus"], outcome.data["retryClass"]) == (None, "terminal")


async def test_expected_status_codes_replace_the_2xx_default(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers += [Answer(409), Answer(200)]
    config = node(receiver, expectedStatusCodes=[202, 409])

    conflict = await run_webhook(config, step_run(), client, BRANDS)
    ok = await run_webhook(config, step_run(), client, BRANDS)

    assert conflict.status == "completed"
    assert conflict.output["httpStatus"] == 409
    assert ok.status == "failed"
    assert ok.data is not None
    assert ok.data["retryClass"] == "terminal"


@pytest.mark.parametrize("body", [b"", b"  \n"])
async def test_an_empty_answer_fails_a_node_that_requires_output(
    body: bytes, http: tuple[ScriptedReceiver, WebhookClient]
) -> None:
    receiver, client = http
    receiver.answers += [Answer(200, body), Answer(200, body)]

    strict = await run_webhook(
        node(receiver), step_run(), client, BRANDS, require_non_empty_output=True
    )
    lenient = await run_webhook(node(receiver), step_run(), client, BRANDS)

    assert strict.status == "failed"
    assert strict.error is not None
    assert strict.error.code == "webhook-node-empty-response"
    assert strict.data is not None
    assert strict.data["reason"] == "webhook-node-empty-response"
    assert (strict.data["httpStatus"], strict.data["retryClass"]) == (200, "terminal")
    assert lenient.status == "completed"


async def test_requiring_output_does_not_apply_in_async_mode(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    config = node(receiver, mode="async")

    outcome = await run_webhook(config, step_run(), client, BRANDS, require_non_empty_output=True)

    assert outcome.status == "waiting"


async def test_only_an_answer_that_is_json_gives_response_json(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers += [
        Answer(200, b'{"a": 1}', {"Content-Type": "text/plain"}),
        Answer(200, b"{broken", {"Content-Type": "application/json"}),
        Answer(200, b'{"a": 1}', {"Content-Type": "application/problem+json; charset=utf-8"}),
    ]

    outcomes = [await run_webhook(node(receiver), step_run(), client, BRANDS) for _ in range(3)]

    assert [outcome.output.get("responseJson") for outcome in outcomes] == [None, None, {"a": 1}]
    assert "responseJson" not in outcomes[0].output
    assert outcomes[1].output["responseText"] == "{broken"


async def test_response_text_is_capped_at_64_kb(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    big = b"[" + b"1," * 50_000 + b"1]"
    receiver.answers.append(Answer(200, big, {"Content-Type": "application/json"}))

    outcome = await run_webhook(node(receiver), step_run(), client, BRANDS)

    assert outcome.status == "completed"
    assert len(outcome.output["responseText"]) == 64 * 1024
    assert "responseJson" not in outcome.output
