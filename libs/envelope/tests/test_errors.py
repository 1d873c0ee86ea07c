from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from redline.envelope import AuthLevel, Call, Endpoint
from redline.envelope.errors import (
    ERRORS_BY_CODE,
    ApiError,
    InvalidArgument,
    ResourceExhausted,
    Unknown,
    error_from_code,
)
from redline.testing.api import ApiClient

Serve = Callable[..., Awaitable[ApiClient]]

# The contract clients rely on, written out rather than read back from the classes.
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "ABORTED": 409,
    "RESOURCE_EXHAUSTED": 429,
    "INTERNAL": 500,
    "UNKNOWN": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}


class Empty(msgspec.Struct, forbid_unknown_fields=True):
    pass


def build(cls: type[ApiError], message: str, details: dict[str, Any] | None = None) -> ApiError:
    if cls is ResourceExhausted:
        return ResourceExhausted(message, retry_after_s=17, details=details)
    return cls(message, details=details)


def raising(error: ApiError) -> Endpoint:
    async def handler(call: Call, request: Empty) -> None:
        raise error

    return Endpoint("/v1/fail", handler, Empty, None, auth=AuthLevel.NONE)


def test_every_error_class_has_a_status_in_the_contract() -> None:
    assert set(ERRORS_BY_CODE) == set(HTTP_STATUS)


@pytest.mark.parametrize("code", sorted(ERRORS_BY_CODE))
async def test_error_is_answered_with_its_http_status_and_envelope(serve: Serve, code: str) -> None:
    api = await serve([raising(build(ERRORS_BY_CODE[code], f"It went wrong ({code})."))])

    got = await api.post("/v1/fail")

    assert got.status == HTTP_STATUS[code]
    assert got.headers["Content-Type"].startswith("application/json")
    assert got.body == {"error": {"status": code, "message": f"It went wrong ({code})."}}


async def test_resource_exhausted_tells_when_to_retry(serve: Serve) -> None:
    api = await serve([raising(ResourceExhausted("Slow down.", retry_after_s=17))])

    got = await api.post("/v1/fail")

    assert got.status == 429
    assert got.headers["Retry-After"] == "17"


async def test_other_errors_send_no_retry_after(serve: Serve) -> None:
    api = await serve([raising(ERRORS_BY_CODE["UNAVAILABLE"]("Try later."))])

    got = await api.post("/v1/fail")

    assert "Retry-After" not in got.headers


@pytest.mark.parametrize("code", sorted(ERRORS_BY_CODE))
async def test_error_details_are_passed_through_unchanged(serve: Serve, code: str) -> None:
    details = {"reason": "quota", "limits": [1, 2], "nested": {"ok": False}}
    api = await serve([raising(build(ERRORS_BY_CODE[code], "Nope.", details))])

    got = await api.post("/v1/fail")

    assert got.body == {"error": {"status": code, "message": "Nope.", "details": details}}


async def test_field_error_names_the_offending_path(serve: Serve) -> None:
    api = await serve([raising(InvalidArgument.field("data.email", "Not an email address."))])

    got = await api.post("/v1/fail")

    assert got.status == 400
    assert got.error == {
        "status": "INVALID_ARGUMENT",
        "message": "data.email: Not an email address.",
        "details": {
            "issues": [
                {"code": "invalid_value", "path": "data.email", "message": "Not an email address."}
            ]
        },
    }


@pytest.mark.parametrize("code", sorted(ERRORS_BY_CODE))
def test_error_received_over_rpc_is_rebuilt_as_its_class(code: str) -> None:
    error = error_from_code(code, "Remote said no.", {"why": "because"})

    assert type(error) is ERRORS_BY_CODE[code]
    assert (error.code, error.message, error.details) == (
        code,
        "Remote said no.",
        {"why": "because"},
    )


def test_rebuilt_resource_exhausted_asks_to_retry_after_a_minute() -> None:
    error = error_from_code("RESOURCE_EXHAUSTED", "Slow down.")

    assert error.headers == {"Retry-After": "60"}


def test_unknown_code_from_rpc_becomes_unknown() -> None:
    error = error_from_code("SOMETHING_NEW", "From a newer peer.")

    assert type(error) is Unknown
    assert error.message == "From a newer peer."


def test_a_batch_entry_names_a_failure_as_the_hosted_product_does() -> None:
    assert {cls.entry_code() for cls in ERRORS_BY_CODE.values()} >= {
        "already-exists",
        "invalid-argument",
        "not-found",
        "permission-denied",
        "failed-precondition",
    }
