"""Webhook nodes: call the customer's endpoint as a step, through the guarded client.

Sync mode completes the step with the answer; async mode parks it in `waiting` until the
receiver posts `{status, output?, error?}` to the callback (see `callback_outcome`).

A 2xx (or, when the node lists `expectedStatusCodes`, one of those instead) is success. Other
answers fail the step: terminally for a 4xx or a redirect (the receiver or the node needs
fixing), with retry for a 5xx, a 408 or 429 (the receiver asked to be tried later), a timeout or
a network error. A target the address guard refuses is terminal.

Output: `{httpStatus, responseHeaders, responseText, responseJson?}`; `responseHeaders` keeps
only headers a route or a person may need, `responseText` the first 64 KB, and `responseJson`
is there when the answer says it is JSON and all of it parsed. `step.failed` data:
`{httpStatus, latencyMs, retryClass}` (`reason` added for failures of the node's settings).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from redline.envelope import Request
from redline.webhooks import Reply, WebhookClient, is_header_value
from redline.workflow.engine.nodes.outcome import (
    RETRYABLE,
    TERMINAL,
    WEBHOOK_AUTH_KEY,
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

if TYPE_CHECKING:
    from redline.workflow.definitions.nodes import WebhookNodeConfig

RESPONSE_TEXT_LIMIT = 64 * 1024
RESPONSE_HEADERS_KEPT = frozenset(
    {
        "content-type",
        "content-length",
        "content-language",
        "etag",
        "last-modified",
        "location",
        "retry-after",
        "x-request-id",
        "x-correlation-id",
    }
)
# An HTTP header name (RFC 9110 token); aiohttp would refuse anything else at send time.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ERROR_CODE_LIMIT = 100
_ERROR_MESSAGE_LIMIT = 2000


class CallbackBody(Request):
    """What an async receiver posts to its callback URL."""

    status: Literal["completed", "failed"]
    output: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    error: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


async def run_webhook(
    config: WebhookNodeConfig,
    run: StepRun,
    client: WebhookClient,
    brands: Sequence[str],
    *,
    require_non_empty_output: bool = False,
) -> NodeOutcome:
    """Call the node's endpoint once. `brands` name the `x-<brand>-signature` headers;
    `require_non_empty_output` is the node's flag of that name (sync mode only)."""
    mode = config.effective_mode
    if mode == "async" and run.callback is None:
        # The engine makes a callback only when it can sign its token with the secret.
        return misconfigured(
            "webhook-secret-missing",
            "async webhook nodes need a webhookSecret on the execution to sign the callback token",
        )
    body = request_body(config.effective_body_template, run, is_async=mode == "async")
    headers = _request_headers(config, run, brands, body)
    if isinstance(headers, NodeOutcome):
        return headers
    reply = await client.request(
        config.effective_method,
        config.url,
        body,
        headers,
        timeout_s=config.effective_timeout_ms / 1000,
        read_limit=RESPONSE_TEXT_LIMIT,
    )
    return _interpret(reply, config, require_non_empty_output)


def request_body(template: str, run: StepRun, *, is_async: bool) -> bytes | None:
    """The request body `bodyTemplate` asks for; None for `none`."""
    callback = run.callback if is_async else None
    if template == "none":
        return None
    if template == "pass-through":
        passed: Json = dict(run.input)
        if callback is not None:
            fields = {
                "callbackUrl": callback.url,
                "callbackToken": callback.token,
                "callbackTokenHeader": callback.tokenHeader,
            }
            # `_velt` for receivers written for the hosted product, `_redline` for new ones.
            passed["_velt"] = fields
            passed["_redline"] = fields
        return msgspec.json.encode(passed)
    envelope: Json = {
        "executionId": run.executionId,
        "definitionId": run.definitionId,
        "correlationId": run.correlationId,
        "stepId": run.stepId,
        "nodeId": run.nodeId,
        "input": run.input,
        "triggerContext": shareable_context(run.triggerContext),
    }
    if callback is not None:
        envelope["callback"] = msgspec.to_builtins(callback)
    return msgspec.json.encode(envelope)


def signature(secret: str, body: bytes) -> str:
    """The `x-<brand>-signature` value: `sha256=<hex HMAC-SHA256(secret, body)>`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _request_headers(
    config: WebhookNodeConfig, run: StepRun, brands: Sequence[str], body: bytes | None
) -> dict[str, str] | NodeOutcome:
    """The node's extra headers, then the ones the engine owns (which win), or the failure
    that stops the request."""
    headers: dict[str, str] = {}
    for name, value in given(config.requestHeaders, {}).items():
        if not _HEADER_NAME.fullmatch(name) or not is_header_value(value):
            return misconfigured(
                "webhook-header-invalid", f"requestHeaders holds an invalid header: {name!r}"
            )
        headers[name.lower()] = value
    if body is not None:
        headers["content-type"] = "application/json"
    auth = _auth_headers(config, run, brands, body or b"")
    if isinstance(auth, NodeOutcome):
        return auth
    return headers | auth


def _auth_headers(
    config: WebhookNodeConfig, run: StepRun, brands: Sequence[str], body: bytes
) -> dict[str, str] | NodeOutcome:
    auth_mode = config.effective_auth_mode
    if auth_mode == "hmac":
        if not run.webhookSecret:
            return misconfigured(
                "webhook-secret-missing",
                "authMode hmac signs with the execution's webhookSecret, and it has none",
            )
        signed = signature(run.webhookSecret, body)
        return {f"x-{brand}-signature": signed for brand in brands}
    if auth_mode == "token":
        header = given(config.authTokenHeader, "")
        tokens = run.triggerContext.get(WEBHOOK_AUTH_KEY)
        token = tokens.get(run.nodeId) if isinstance(tokens, dict) else None
        if not header:
            return misconfigured("webhook-token-missing", "authMode token needs authTokenHeader")
        if not isinstance(token, str) or not token:
            return misconfigured(
                "webhook-token-missing",
                f"authMode token reads the token from triggerContext.{WEBHOOK_AUTH_KEY}"
                f"[{run.nodeId!r}], and there is none",
            )
        if not is_header_value(token) or not _HEADER_NAME.fullmatch(header):
            return misconfigured(
                "webhook-token-invalid", "the token or its header name cannot be sent as a header"
            )
        return {header.lower(): token}
    return {}


def _interpret(
    reply: Reply, config: WebhookNodeConfig, require_non_empty_output: bool
) -> NodeOutcome:
    outcome = reply.outcome
    status = outcome.status
    latency_ms = round(outcome.latency_ms)
    if outcome.blocked:
        message = f"the webhook URL is not allowed: {outcome.error}"
        return failed("webhook-target-blocked", message, _failed_data(None, latency_ms, TERMINAL))
    if status is None:
        message = f"the receiver could not be reached: {outcome.error}"
        return retry("webhook-unreachable", message, _failed_data(None, latency_ms, RETRYABLE))
    output = response_output(reply)
    if not config.accepts_status(status):
        return _unsuccessful(reply, status, latency_ms, output)
    if config.effective_mode == "async":
        return waiting(output, {"nodeType": "webhook", "mode": "async", "httpStatus": status})
    if require_non_empty_output and not reply.body.strip():
        return misconfigured(
            "webhook-node-empty-response",
            "the node requires a non-empty response and the receiver answered with an empty body",
            httpStatus=status,
            latencyMs=latency_ms,
        )
    data = {"nodeType": "webhook", "mode": "sync", "httpStatus": status, "latencyMs": latency_ms}
    return completed(output, data)


def _unsuccessful(reply: Reply, status: int, latency_ms: int, output: Json) -> NodeOutcome:
    message = f"the receiver answered HTTP {status}"
    if status >= 500 or status in (408, 429):
        data = _failed_data(status, latency_ms, RETRYABLE)
        after_s = retry_after(reply.headers.get("retry-after"))
        return retry("webhook-http-error", message, data, after_s=after_s, output=output)
    if 300 <= status < 400:
        message += " (redirects are not followed)"
    data = _failed_data(status, latency_ms, TERMINAL)
    return failed("webhook-http-error", message, data, output=output)


def response_output(reply: Reply) -> Json:
    """The step output for an answer."""
    headers = {
        name: value for name, value in reply.headers.items() if name in RESPONSE_HEADERS_KEPT
    }
    output: Json = {
        "httpStatus": reply.outcome.status,
        "responseHeaders": headers,
        "responseText": reply.body.decode("utf-8", "replace"),
    }
    media_type = headers.get("content-type", "").partition(";")[0].strip().lower()
    is_json = media_type == "application/json" or media_type.endswith("+json")
    if is_json and not reply.truncated:
        # A body that says it is JSON and is not stays readable as responseText.
        with contextlib.suppress(msgspec.DecodeError):
            output["responseJson"] = msgspec.json.decode(reply.body)
    return output


def _failed_data(http_status: int | None, latency_ms: int | None, retry_class: str) -> Json:
    return {"httpStatus": http_status, "latencyMs": latency_ms, "retryClass": retry_class}


def callback_outcome(body: CallbackBody) -> NodeOutcome:
    """What an async receiver's callback does to the step it parked."""
    output = given(body.output, {})
    if body.status == "completed":
        return completed(output, {"nodeType": "webhook", "mode": "async", "source": "callback"})
    code, message = callback_error(
        given(body.error, {}), "webhook-callback-failed", "the receiver reported a failure"
    )
    data = {**_failed_data(None, None, TERMINAL), "source": "callback"}
    return failed(code, message, data, output=output)


def callback_error(error: Json, default_code: str, default_message: str) -> tuple[str, str]:
    """The step error a callback's `error` object names, bounded; the defaults fill gaps."""
    code = error.get("code")
    message = error.get("message")
    if not isinstance(code, str) or not code or len(code) > _ERROR_CODE_LIMIT:
        code = default_code
    if not isinstance(message, str) or not message:
        message = default_message
    return code, message[:_ERROR_MESSAGE_LIMIT]
