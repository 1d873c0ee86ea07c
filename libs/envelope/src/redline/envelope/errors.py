"""The one error hierarchy: each class is a status code of the envelope and its HTTP status.

Services raise these; the middleware renders them. Nobody builds a failure envelope by hand.

A failure has one spelling per place it shows, all from its class: the envelope's status is
`code` (`PERMISSION_DENIED`), an entry of a batch result names it by `entry_code`
(`permission-denied`, as the hosted product's batch results do), and an `Issue`'s `code` is a
reason of its own about one field (`missing_field`, `too_large`), lower case with underscores.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec


class Issue(msgspec.Struct, omit_defaults=True):
    """One validation problem, naming the offending path (for example `data.users[2].userId`)."""

    code: str
    path: str
    message: str


class ApiError(Exception):
    """Base of every error a client may see. Subclasses fix `code` and `http_status`."""

    code: ClassVar[str] = "UNKNOWN"
    http_status: ClassVar[int] = 500

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers or {}

    @classmethod
    def entry_code(cls) -> str:
        """The failure as an entry of a batch result names it: `ALREADY_EXISTS` is
        `already-exists`."""
        return cls.code.lower().replace("_", "-")


class InvalidArgument(ApiError):
    code = "INVALID_ARGUMENT"
    http_status = 400

    @classmethod
    def from_issues(cls, issues: list[Issue], message: str | None = None) -> InvalidArgument:
        text = message or "; ".join(
            f"{i.path}: {i.message}" if i.path else i.message for i in issues
        )
        return cls(text, details={"issues": [msgspec.to_builtins(i) for i in issues]})

    @classmethod
    def field(cls, path: str, message: str, code: str = "invalid_value") -> InvalidArgument:
        return cls.from_issues([Issue(code=code, path=path, message=message)])


class FailedPrecondition(ApiError):
    code = "FAILED_PRECONDITION"
    http_status = 400


class OutOfRange(ApiError):
    code = "OUT_OF_RANGE"
    http_status = 400


class Unauthenticated(ApiError):
    code = "UNAUTHENTICATED"
    http_status = 401


class PermissionDenied(ApiError):
    code = "PERMISSION_DENIED"
    http_status = 403


class NotFound(ApiError):
    code = "NOT_FOUND"
    http_status = 404


class AlreadyExists(ApiError):
    code = "ALREADY_EXISTS"
    http_status = 409


class Aborted(ApiError):
    code = "ABORTED"
    http_status = 409


class ResourceExhausted(ApiError):
    code = "RESOURCE_EXHAUSTED"
    http_status = 429

    def __init__(self, message: str, *, retry_after_s: int, details: dict[str, Any] | None = None):
        super().__init__(message, details=details, headers={"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s


class Internal(ApiError):
    code = "INTERNAL"
    http_status = 500


class Unknown(ApiError):
    code = "UNKNOWN"
    http_status = 500


class DataLoss(ApiError):
    code = "DATA_LOSS"
    http_status = 500


class Unimplemented(ApiError):
    code = "UNIMPLEMENTED"
    http_status = 501


class Unavailable(ApiError):
    code = "UNAVAILABLE"
    http_status = 503


class DeadlineExceeded(ApiError):
    code = "DEADLINE_EXCEEDED"
    http_status = 504


ERRORS_BY_CODE: dict[str, type[ApiError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        FailedPrecondition,
        OutOfRange,
        Unauthenticated,
        PermissionDenied,
        NotFound,
        AlreadyExists,
        Aborted,
        ResourceExhausted,
        Internal,
        Unknown,
        DataLoss,
        Unimplemented,
        Unavailable,
        DeadlineExceeded,
    )
}


def error_from_code(code: str, message: str, details: dict[str, Any] | None = None) -> ApiError:
    """Rebuild an error received over RPC; unknown codes become UNKNOWN rather than failing."""
    cls = ERRORS_BY_CODE.get(code, Unknown)
    if cls is ResourceExhausted:
        return ResourceExhausted(message, retry_after_s=60, details=details)
    return cls(message, details=details)
