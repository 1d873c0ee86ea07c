"""Log lines as a log pipeline reads them: one JSON object per line, naming the request."""

from __future__ import annotations

import datetime as dt
import logging
import sys

import msgspec
import pytest

from redline.proto import request_context
from redline.runtime.logs import RequestContextFilter, configure_logging, formatter
from redline.runtime.settings import RuntimeSettings, SettingsError, load_settings


def record(message: str, *args: object, exc: bool = False) -> logging.LogRecord:
    """A record as `logging` makes it, through the context filter as the handler applies it."""
    exc_info = sys.exc_info() if exc else None
    made = logging.getLogger("redline.test").makeRecord(
        "redline.test", logging.WARNING, __file__, 1, message, args, exc_info
    )
    RequestContextFilter().filter(made)
    return made


def json_line(made: logging.LogRecord) -> dict[str, object]:
    text = formatter("json").format(made)
    assert "\n" not in text
    decoded: dict[str, object] = msgspec.json.decode(text)
    return decoded


def test_a_json_line_has_time_level_logger_message_and_the_request() -> None:
    with request_context.serving("req-1", "ws_1"):
        made = record("sent %d deliveries to %s", 3, "key_1")

    line = json_line(made)

    assert set(line) == {"time", "level", "logger", "message", "requestId", "workspaceId"}
    assert line["level"] == "WARNING"
    assert line["logger"] == "redline.test"
    assert line["message"] == "sent 3 deliveries to key_1"
    assert line["requestId"] == "req-1"
    assert line["workspaceId"] == "ws_1"
    assert isinstance(line["time"], str)
    assert line["time"].endswith("Z")
    logged_at = dt.datetime.fromisoformat(line["time"].replace("Z", "+00:00"))
    assert logged_at.utcoffset() == dt.timedelta(0)
    assert abs(logged_at.timestamp() - made.created) < 0.001


def test_a_line_outside_any_request_has_a_null_request_id_and_no_workspace() -> None:
    line = json_line(record("relay resumed"))

    assert line["requestId"] is None
    assert "workspaceId" not in line
    assert "exception" not in line


def test_a_logged_exception_comes_with_its_traceback_on_the_same_line() -> None:
    try:
        raise ValueError("the receiver said no")
    except ValueError:
        made = record("delivery %s could not be sent", "w1", exc=True)

    line = json_line(made)

    assert line["message"] == "delivery w1 could not be sent"
    exception = line["exception"]
    assert isinstance(exception, str)
    assert exception.startswith("Traceback (most recent call last):")
    assert exception.rstrip().endswith("ValueError: the receiver said no")


def test_a_message_over_several_lines_stays_one_json_line() -> None:
    line = json_line(record("first\nsecond"))

    assert line["message"] == "first\nsecond"


def test_a_text_line_keeps_the_old_format_with_the_request_id() -> None:
    text = formatter("text")
    with request_context.serving("req-7", "ws_2"):
        inside = text.format(record("handled %s", "e1"))
    outside = text.format(record("handled %s", "e2"))

    assert inside.endswith(" WARNING redline.test [req-7] handled e1")
    assert outside.endswith(" WARNING redline.test [-] handled e2")


def test_the_format_is_a_setting_json_by_default() -> None:
    assert load_settings(RuntimeSettings, {}).log_format == "json"
    assert load_settings(RuntimeSettings, {"REDLINE_LOG_FORMAT": "text"}).log_format == "text"


def test_an_unknown_log_format_is_refused_by_name() -> None:
    with pytest.raises(SettingsError, match="REDLINE_LOG_FORMAT"):
        configure_logging("INFO", "xml")
