"""What an async webhook receiver's callback does to the step it parked."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from redline.workflow.engine.nodes.outcome import StepError
from redline.workflow.engine.nodes.webhook import CallbackBody, callback_outcome

BRANDS = ("redline", "velt")
CALLBACK = {
    "url": "https://redline.example.com/v2/workflow/callbacks/step_review_1",
    "token": "cb-token-1",
    "tokenHeader": "x-redline-callback-token",
}
TOKENS = {"webhookAuth": {"review": "tok-123", "other-node": "tok-other"}}


def callback(body: dict[str, Any]) -> CallbackBody:
    return msgspec.json.decode(msgspec.json.encode(body), type=CallbackBody)


def test_a_completed_callback_completes_the_step_with_its_output() -> None:
    outcome = callback_outcome(callback({"status": "completed", "output": {"score": 0.9}}))

    assert outcome.status == "completed"
    assert outcome.output == {"score": 0.9}
    assert outcome.data == {"nodeType": "webhook", "mode": "async", "source": "callback"}
    assert callback_outcome(callback({"status": "completed"})).output == {}


def test_a_failed_callback_fails_the_step_with_its_error() -> None:
    body = {"status": "failed", "error": {"code": "scan-failed", "message": "virus found"}}

    outcome = callback_outcome(callback(body))

    assert outcome.status == "failed"
    assert outcome.error == StepError("scan-failed", "virus found")
    assert outcome.data == {
        "httpStatus": None,
        "latencyMs": None,
        "retryClass": "terminal",
        "source": "callback",
    }


def test_a_failed_callback_without_a_usable_error_gets_a_default_one() -> None:
    body = {"status": "failed", "error": {"code": 7, "message": "x" * 5000}}

    outcome = callback_outcome(callback(body))

    assert outcome.error is not None
    assert outcome.error.code == "webhook-callback-failed"
    assert outcome.error.message == "x" * 2000


@pytest.mark.parametrize(
    "body",
    [
        {"status": "completed", "extra": 1},
        {"status": "done"},
        {"output": {}},
        {"status": "completed", "output": None},
    ],
)
def test_a_callback_body_with_unknown_fields_or_values_is_refused(body: dict[str, Any]) -> None:
    with pytest.raises(msgspec.ValidationError):
        callback(body)
