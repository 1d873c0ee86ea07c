"""Decoding requests into typed Structs, and encoding the success and failure envelopes.

Decoders and encoders are built once per type and reused (msgspec is fastest that way).
"""

from __future__ import annotations

import ast
import functools
import re
from itertools import accumulate, count, repeat
from operator import mul, sub
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from redline.envelope.errors import ApiError, InvalidArgument, Issue

if TYPE_CHECKING:
    from typing_extensions import TypeForm

T = TypeVar("T")

_encoder = msgspec.json.Encoder()


class _RequestEnvelope(msgspec.Struct, forbid_unknown_fields=True):
    # `data` stays raw here so that its own decode reports paths relative to `data`.
    data: msgspec.Raw = msgspec.Raw(b"{}")


_envelope_decoder = msgspec.json.Decoder(_RequestEnvelope)


_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def _decoder_for(tp: Any) -> msgspec.json.Decoder[Any]:
    decoder = _decoders.get(tp)
    if decoder is None:
        decoder = _decoders[tp] = msgspec.json.Decoder(tp)
    return decoder


# msgspec names the value it refused in "Invalid enum value '...'"; a client's megabyte
# string need not come back in the answer.
_ENUM_VALUE = re.compile(r"(?<=^Invalid enum value ').*(?='$)", re.DOTALL)
_SHOWN_CHARS = 64


def _shortened(value: re.Match[str]) -> str:
    text = value.group(0)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"


_AT = re.compile(r"^(?P<text>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_FIELD = re.compile(r"field `(?P<name>[^`]+)`")


def issue_from_validation(exc: msgspec.DecodeError, root: str) -> Issue:
    """Turn msgspec's one-line message into an issue with a field path and a stable code."""
    match = _AT.match(str(exc))
    text = _ENUM_VALUE.sub(_shortened, match.group("text") if match else str(exc))
    path = root + ((match.group("path") or "") if match else "")
    code = "invalid_value"
    if text.startswith("Object missing required field"):
        code = "missing_field"
    elif text.startswith("Object contains unknown field"):
        code = "unknown_field"
    elif text.startswith("Expected `") and (" matching regex " in text or " multiple of " in text):
        code = "invalid_value"  # checked first: a pattern may itself contain ">=" or "length"
    elif text.startswith("Expected `") and (" of length " in text or " with length " in text):
        code = "invalid_length"
    elif text.startswith("Expected `") and any(op in text for op in (">=", "<=", " > ", " < ")):
        code = "out_of_range"
    elif text.startswith("Expected `"):
        code = "invalid_type"
    elif text.startswith("JSON is malformed") or text.startswith("Input data was truncated"):
        code = "malformed_json"
    if code == "invalid_value" and _fails_an_email_pattern(text):
        text = "not an email address"
    if code in ("missing_field", "unknown_field"):
        field = _FIELD.search(text)
        if field:
            name = field.group("name")
            path = f"{path}.{name}" if path else name
    return Issue(code=code, path=path, message=text)


# msgspec quotes the pattern a string failed to match as a Python literal.
_PATTERN = re.compile(r"^Expected `str` matching regex (?P<pattern>'.*'|\".*\")$", re.DOTALL)


def _fails_an_email_pattern(text: str) -> bool:
    match = _PATTERN.match(text)
    return match is not None and _is_email_pattern(ast.literal_eval(match.group("pattern")))


@functools.cache
def _is_email_pattern(pattern: str) -> bool:
    """Whether a field's pattern checks an email address: it takes one, and not once its `@` is
    gone. Services spell the check in their own ways; what the pattern does is what counts."""
    compiled = re.compile(pattern)
    return bool(compiled.search("name@example.com")) and not compiled.search("name.example.com")


def decode_request(body: bytes, tp: TypeForm[T]) -> T:
    """Decode `{"data": {...}}` into `tp` (a Struct, or a union of them). An empty body means
    `{"data": {}}`."""
    if not body.strip():
        body = b"{}"
    try:
        envelope = _envelope_decoder.decode(body)
    except msgspec.ValidationError as exc:
        issue = issue_from_validation(exc, "")
        raise InvalidArgument.from_issues([issue], _unwrapped_fields_message(issue, body)) from None
    except msgspec.DecodeError as exc:
        raise _malformed(str(exc)) from None
    except UnicodeDecodeError:
        raise _malformed(_NOT_UTF8) from None
    except RecursionError:
        raise _too_deep() from None
    if _may_nest_deeper(body) and _nesting(bytes(envelope.data)) > MAX_NESTING:
        raise _too_deep()
    # msgspec checks the UTF-8 of `data`'s strings only now, when it decodes them.
    return _decode_checked(bytes(envelope.data), tp, "data", nul_possible=_NUL_ESCAPE in body)


def _unwrapped_fields_message(issue: Issue, body: bytes) -> str | None:
    """The likely mistake behind an unknown field beside no `data`: fields sent unwrapped."""
    if issue.code != "unknown_field":
        return None
    try:
        # msgspec refuses at the first unknown key; `data` may still come after it.
        keys = msgspec.json.decode(body, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    if "data" in keys:
        return None
    return f'{issue.path}: {issue.message}; requests wrap their fields in {{"data": …}}'


def decode_document(body: bytes, tp: type[T]) -> T:
    """Decode a whole JSON document into `tp`, with the checks of `decode_request`, for the
    endpoints that take a body as another system sends it (no `data` envelope)."""
    try:
        _envelope_free_check(body)
    except RecursionError:
        raise _too_deep() from None
    return _decode_checked(body, tp, "", nul_possible=_NUL_ESCAPE in body)


def _envelope_free_check(body: bytes) -> None:
    try:
        msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        raise _malformed(str(exc)) from None
    except UnicodeDecodeError:
        raise _malformed(_NOT_UTF8) from None
    if _may_nest_deeper(body) and _nesting(body) > MAX_NESTING:
        raise _too_deep()


def _decode_checked(raw: bytes, tp: TypeForm[T], root: str, *, nul_possible: bool) -> T:
    try:
        data: T = _decoder_for(tp).decode(raw)
    except msgspec.DecodeError as exc:
        raise InvalidArgument.from_issues([issue_from_validation(exc, root)]) from None
    except UnicodeDecodeError:
        raise _malformed(_NOT_UTF8) from None
    if nul_possible:
        _refuse_nul(raw, root)
    return data


_NOT_UTF8 = "JSON text must be UTF-8"


def _malformed(message: str) -> InvalidArgument:
    return InvalidArgument(
        "Request body is not valid JSON.",
        details={"issues": [{"code": "malformed_json", "path": "", "message": message}]},
    )


# How deep arrays and objects may nest in `data`. Fields that take any JSON (metadata, entity
# data, a comment's context) are copied, stored and encoded again by code that recurses, a few
# Python frames a level; without a bound well inside Python's recursion limit, a value the decoder
# still took could fail on its way to the database. No request needs more.
MAX_NESTING = 100

# Escapes first (so that an escaped quote ends no string), then strings (their brackets are
# text), then all but brackets: what is left is the structure.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_OPENING = bytes.maketrans(b"[]{}", b"\x01\x00\x01\x00")


def _may_nest_deeper(body: bytes) -> bool:
    """Whether `body` has enough brackets to nest past the bound: most requests do not, and skip
    the scan."""
    return body.count(b"[") + body.count(b"{") > MAX_NESTING


def _nesting(json: bytes) -> int:
    """How deep arrays and objects nest in a valid JSON text, in one pass at C speed."""
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", _ESCAPE.sub(b"", json)))
    # After the i-th bracket the depth is openings less closings so far: 2 * openings - i.
    openings = accumulate(brackets.translate(_OPENING))
    return max(map(sub, map(mul, openings, repeat(2)), count(1)), default=0)


# JSON can carry U+0000 only escaped; PostgreSQL can store it in neither text nor jsonb, so no
# request may hold it anywhere (a key included). The byte scan is cheap; the walk that names the
# field runs only when the escape is there (it may also be an escaped backslash before "u0000").
_NUL_ESCAPE = b"\\u0000"


def _refuse_nul(data: bytes, root: str) -> None:
    path = _nul_path(msgspec.json.decode(data), root)
    if path is not None:
        raise InvalidArgument.from_issues(
            [Issue(code="invalid_value", path=path, message="must not contain U+0000 (NUL)")]
        )


def _nul_path(value: Any, path: str) -> str | None:
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = path if "\x00" in key else _nul_path(item, f"{path}.{key}" if path else key)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _nul_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _too_deep() -> InvalidArgument:
    """Nesting past MAX_NESTING, or past Python's recursion limit (msgspec decodes nested JSON
    recursively, and raises RecursionError there before the bound is checked)."""
    return InvalidArgument.from_issues(
        [
            Issue(
                code="too_deep",
                path="",
                message=f"JSON may nest arrays and objects at most {MAX_NESTING} levels deep",
            )
        ]
    )


def encode(value: Any) -> bytes:
    return _encoder.encode(value)


def success_body(data: Any, message: str, extra: dict[str, Any] | None = None) -> bytes:
    result = {"status": "success", "message": message, "data": data}
    if extra:
        result.update(extra)
    return _encoder.encode({"result": result})


def plain_body(result: Any) -> bytes:
    """Memory and workflow endpoints: `{"result": {...}}` without status or message."""
    return _encoder.encode({"result": result})


def error_body(error: ApiError) -> bytes:
    payload: dict[str, Any] = {"status": error.code, "message": error.message}
    if error.details is not None:
        payload["details"] = error.details
    return _encoder.encode({"error": payload})
