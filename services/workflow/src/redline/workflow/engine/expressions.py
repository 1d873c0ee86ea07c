"""The `when` language of custom edges: a JSON tree, checked once when a definition is written
(`parse_when`) and evaluated each time a step fans out (`evaluate`).

A tree is `{"op": <op>, "args": [...]}`; an argument is another operator node, a variable
`{"var": "output.score"}` (roots `output`, `step` and `execution.input`) or a literal (a JSON
scalar or an array of them). Evaluation is total and free of side effects: it never raises and
never runs code. A missing path or a comparison that makes no sense (a string against a number)
is *unknown*; unknown propagates through every operator (`and`/`or`/`not` use three-valued
logic), and only an exact `true` at the top makes an edge fire.

`regex` patterns (at most 200 characters, a string literal) are compiled when the definition is
written and matched against at most the first 10,000 characters of the subject by RE2, whose
time is linear in the text whatever the pattern: a definition's author cannot make an edge hang.
RE2 has no lookaround and no backreferences; a pattern using them is refused when written.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import re2

__all__ = ["MAX_DEPTH", "WhenError", "evaluate", "lookup", "parse_when", "var_paths"]

MAX_DEPTH = 32
MAX_PATTERN_CHARS = 200
MAX_SUBJECT_CHARS = 10_000

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the author's answer, not a log line


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, _RE2_OPTIONS)


# Each op's (fewest, most) arguments; None: no upper bound.
_ARITY: dict[str, tuple[int, int | None]] = {
    **dict.fromkeys(("eq", "ne", "gt", "gte", "lt", "lte"), (2, 2)),
    **dict.fromkeys(("in", "contains", "includes", "startsWith", "endsWith", "regex"), (2, 2)),
    **dict.fromkeys(("exists", "not", "length", "isEmpty"), (1, 1)),
    **dict.fromkeys(("and", "or"), (1, None)),
}
_VAR_ROOTS = (("output",), ("step",), ("execution", "input"))


class WhenError(ValueError):
    """A `when` the language refuses; `code` names the kind of problem, the message says it."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


# ---- parsing


def parse_when(text: str) -> dict[str, Any]:
    """The checked tree of a `when` string; raises WhenError saying what is wrong."""
    try:
        tree = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        raise WhenError(
            "when-invalid-json",
            'when must be a JSON string holding a tree such as {"op":"eq","args":'
            '[{"var":"output.decision"},"approve"]}, not an expression',
        ) from None
    if not isinstance(tree, dict) or "op" not in tree:
        raise WhenError("when-invalid", 'the top of a when must be an {"op": ..., "args": [...]}')
    _check(tree, 1)
    if tree["op"] == "length":
        raise WhenError("when-invalid", 'the top of a when must yield a boolean, "length" does not')
    return tree


def _check(node: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise WhenError("when-invalid", f"when nests deeper than {MAX_DEPTH} levels")
    if isinstance(node, dict):
        if node.keys() == {"var"}:
            _check_var(node["var"])
        elif node.keys() == {"op", "args"}:
            _check_op(node["op"], node["args"], depth)
        else:
            keys = ", ".join(sorted(node))
            raise WhenError(
                "when-invalid",
                'an object in a when is {"op": ..., "args": [...]} or {"var": "path"}, '
                f"not one with keys {keys}",
            )
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                raise WhenError("when-invalid", "an array in a when holds literal values only")
            _check(item, depth + 1)


def _check_op(op: Any, args: Any, depth: int) -> None:
    if not isinstance(op, str) or op not in _ARITY:
        known = ", ".join(_ARITY)
        raise WhenError("when-unknown-op", f"unknown op {op!r} (known: {known})")
    if not isinstance(args, list):
        raise WhenError("when-invalid", f'the "args" of {op} must be an array')
    fewest, most = _ARITY[op]
    if len(args) < fewest or (most is not None and len(args) > most):
        wanted = f"{fewest}" if fewest == most else f"at least {fewest}"
        raise WhenError("when-invalid", f"{op} takes {wanted} argument(s), got {len(args)}")
    if op == "exists" and not (isinstance(args[0], dict) and args[0].keys() == {"var"}):
        raise WhenError("when-invalid", 'exists takes a {"var": "path"}')
    if op == "regex":
        _check_pattern(args[1])
    for arg in args:
        _check(arg, depth + 1)


def _check_var(path: Any) -> None:
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise WhenError("when-invalid", f"var must be a dot path such as output.decision: {path!r}")
    parts = tuple(path.split("."))
    if not any(parts[: len(root)] == root for root in _VAR_ROOTS):
        raise WhenError(
            "when-unknown-var-root",
            f'unknown var root in "{path}": a path starts with output, step or execution.input',
        )


def _check_pattern(pattern: Any) -> None:
    if not isinstance(pattern, str):
        raise WhenError("when-invalid", "the pattern of regex must be a string literal")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise WhenError(
            "when-invalid", f"a regex pattern may have at most {MAX_PATTERN_CHARS} characters"
        )
    try:
        _compiled(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise WhenError("when-invalid", f"invalid regex pattern {pattern!r}: {reason}") from None


def var_paths(tree: Any) -> list[str]:
    """Every `var` path a tree reads, in order (the linter looks for `step.status`)."""
    found: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("var"), str):
                found.append(node["var"])
            stack.extend(reversed(node.get("args") or []))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


# ---- evaluation


class _Unknown:
    """A missing path, or a value no comparison can be made of."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


def lookup(value: Any, path: Sequence[str], default: Any = None) -> Any:
    """Follow a dot path's parts through objects (keys) and arrays (decimal indexes)."""
    for part in path:
        if isinstance(value, Mapping):
            if part not in value:
                return default
            value = value[part]
        elif isinstance(value, list) and part.isascii() and part.isdigit() and len(part) < 10:
            index = int(part)
            if index >= len(value):
                return default
            value = value[index]
        else:
            return default
    return value


def evaluate(ast: Mapping[str, Any], context: Mapping[str, Any]) -> bool:
    """Whether a parsed `when` holds. `context` has `execution` (`{"input": triggerContext}`),
    `output` and `step`. Anything but an exact true, errors included, is False."""
    try:
        return _value(ast, context, 0) is True
    except Exception:
        # Total by contract: a tree stored by an older version, or a value of a shape nobody
        # foresaw, makes the edge not fire instead of breaking the run.
        return False


def _value(node: Any, context: Mapping[str, Any], depth: int) -> Any:
    if depth > MAX_DEPTH:
        return UNKNOWN
    if not isinstance(node, Mapping):
        return node
    if "var" in node:
        path = node["var"]
        return lookup(context, path.split("."), UNKNOWN) if isinstance(path, str) else UNKNOWN
    op, args = node.get("op"), node.get("args")
    if not isinstance(args, list):
        return UNKNOWN
    if op in ("and", "or"):
        return _logic(op, args, context, depth)
    function = _OPS.get(op) if isinstance(op, str) else None
    if function is None:
        return UNKNOWN
    return function(*(_value(arg, context, depth + 1) for arg in args))


def _logic(op: str, args: list[Any], context: Mapping[str, Any], depth: int) -> Any:
    """Three-valued `and`/`or`: a decisive operand wins, else any unknown makes it unknown."""
    decisive = op == "or"  # true decides an `or`, false an `and`
    unknown = False
    for arg in args:
        value = _value(arg, context, depth + 1)
        if value is decisive:
            return decisive
        if value is not (not decisive):
            unknown = True
    return UNKNOWN if unknown else not decisive


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _eq(a: Any, b: Any) -> Any:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if a is None or b is None:
        return a is b
    if type(a) is not type(b):
        return UNKNOWN
    return bool(a == b)


def _ne(a: Any, b: Any) -> Any:
    same = _eq(a, b)
    return UNKNOWN if same is UNKNOWN else not same


def _ordering(test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    def compare(a: Any, b: Any) -> Any:
        if (_is_number(a) and _is_number(b)) or (isinstance(a, str) and isinstance(b, str)):
            return test(a, b)
        return UNKNOWN

    return compare


def _member(item: Any, container: Any) -> Any:
    if isinstance(container, list) and item is not UNKNOWN:
        return any(_eq(item, element) is True for element in container)
    if isinstance(container, str) and isinstance(item, str):
        return item in container
    if isinstance(container, Mapping) and isinstance(item, str):
        return item in container
    return UNKNOWN


def _strings(test: Callable[[str, str], bool]) -> Callable[[Any, Any], Any]:
    def check(a: Any, b: Any) -> Any:
        return test(a, b) if isinstance(a, str) and isinstance(b, str) else UNKNOWN

    return check


def _regex(subject: Any, pattern: Any) -> Any:
    if not isinstance(subject, str) or not isinstance(pattern, str):
        return UNKNOWN
    if len(pattern) > MAX_PATTERN_CHARS:
        return UNKNOWN
    try:
        return _compiled(pattern).search(subject[:MAX_SUBJECT_CHARS]) is not None
    except re2.error:
        return UNKNOWN


def _length(value: Any) -> Any:
    return len(value) if isinstance(value, str | list | Mapping) else UNKNOWN


def _is_empty(value: Any) -> Any:
    if value is None:
        return True
    return len(value) == 0 if isinstance(value, str | list | Mapping) else UNKNOWN


def _not(value: Any) -> Any:
    return (not value) if isinstance(value, bool) else UNKNOWN


_OPS: dict[str, Callable[..., Any]] = {
    "eq": _eq,
    "ne": _ne,
    "gt": _ordering(lambda a, b: a > b),
    "gte": _ordering(lambda a, b: a >= b),
    "lt": _ordering(lambda a, b: a < b),
    "lte": _ordering(lambda a, b: a <= b),
    "in": _member,
    "contains": lambda container, item: _member(item, container),
    "includes": lambda container, item: _member(item, container),
    "startsWith": _strings(str.startswith),
    "endsWith": _strings(str.endswith),
    "regex": _regex,
    "exists": lambda value: value is not UNKNOWN and value is not None,
    "not": _not,
    "length": _length,
    "isEmpty": _is_empty,
}
