"""The `when` language: trees are checked when parsed, and evaluation is total (anything odd is
False, never an exception); regex matching cannot stall."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from redline.workflow.engine.expressions import (
    WhenError,
    evaluate,
    lookup,
    parse_when,
    var_paths,
)

CONTEXT: dict[str, Any] = {
    "execution": {"input": {"page": {"title": "Launch", "tags": ["a", "b"]}, "count": 3}},
    "output": {
        "decision": "approve",
        "score": 0.9,
        "items": [1, 2, 3],
        "body": "URGENT: fix the header",
        "empty": "",
        "none": None,
        "flag": True,
        "meta": {"k": "v"},
    },
    "step": {"stepId": "s1", "nodeId": "n1", "status": "breached", "retryCount": 0},
}


def var(path: str) -> dict[str, str]:
    return {"var": path}


def op(name: str, *args: Any) -> dict[str, Any]:
    return {"op": name, "args": list(args)}


def holds(tree: dict[str, Any], context: dict[str, Any] = CONTEXT) -> bool:
    # Through the parser, as a stored definition's trees are.
    return evaluate(parse_when(json.dumps(tree)), context)


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        (op("eq", var("output.decision"), "approve"), True),
        (op("eq", var("output.decision"), "reject"), False),
        (op("ne", var("output.decision"), "reject"), True),
        (op("eq", var("output.score"), 0.9), True),
        (op("eq", var("execution.input.count"), 3.0), True),
        (op("eq", var("output.none"), None), True),
        (op("ne", var("output.decision"), None), True),
        (op("eq", var("output.items"), [1, 2, 3]), True),
        (op("gt", var("output.score"), 0.8), True),
        (op("gte", var("execution.input.count"), 3), True),
        (op("lt", var("output.score"), 0.5), False),
        (op("lte", var("output.score"), 0.9), True),
        (op("gt", var("output.decision"), "apple"), True),
        (op("in", var("output.decision"), ["approve", "maybe"]), True),
        (op("in", "URGENT", var("output.body")), True),
        (op("contains", var("output.items"), 2), True),
        (op("contains", var("output.body"), "header"), True),
        (op("contains", var("output.meta"), "k"), True),
        (op("includes", var("execution.input.page.tags"), "b"), True),
        (op("includes", var("execution.input.page.tags"), "c"), False),
        (op("startsWith", var("output.body"), "URGENT"), True),
        (op("endsWith", var("output.body"), "header"), True),
        (op("exists", var("output.decision")), True),
        (op("exists", var("output.nope")), False),
        (op("exists", var("output.none")), False),
        (op("regex", var("output.body"), "^urgent"), False),
        (op("regex", var("output.body"), "(?i)^urgent"), True),
        (op("regex", var("output.body"), r"fix\s+the"), True),
        (op("gt", op("length", var("output.items")), 2), True),
        (op("eq", op("length", var("output.body")), 22), True),
        (op("isEmpty", var("output.empty")), True),
        (op("isEmpty", var("output.none")), True),
        (op("isEmpty", var("output.items")), False),
        (op("not", op("isEmpty", var("output.items"))), True),
        (
            op("and", op("eq", var("step.status"), "breached"), op("gt", var("output.score"), 0)),
            True,
        ),
        (
            op("and", op("eq", var("step.status"), "breached"), op("lt", var("output.score"), 0)),
            False,
        ),
        (
            op(
                "or",
                op("eq", var("step.status"), "failed"),
                op("eq", var("step.status"), "breached"),
            ),
            True,
        ),
        (op("not", op("eq", var("output.decision"), "reject")), True),
        (op("eq", var("execution.input.page.tags.1"), "b"), True),
        (op("eq", var("output.flag"), True), True),
    ],
)
def test_every_op(tree: dict[str, Any], expected: bool) -> None:
    assert holds(tree) is expected


def test_nesting() -> None:
    tree = op(
        "or",
        op("and", op("exists", var("output.score")), op("not", op("lt", var("output.score"), 0.5))),
        op("eq", var("step.status"), "failed"),
    )
    assert holds(tree) is True


@pytest.mark.parametrize(
    "tree",
    [
        op("eq", var("output.nope"), "approve"),
        op("ne", var("output.nope"), "approve"),
        op("not", op("eq", var("output.nope"), "x")),
        op("eq", var("output.decision.deeper"), "x"),
        op("eq", var("execution.input.page.tags.9"), "x"),
        op("isEmpty", var("output.nope")),
        op("gt", op("length", var("output.nope")), -1),
    ],
)
def test_an_unknown_path_is_false(tree: dict[str, Any]) -> None:
    assert holds(tree) is False


@pytest.mark.parametrize(
    "tree",
    [
        op("eq", var("output.decision"), 1),
        op("ne", var("output.decision"), 1),
        op("eq", var("output.flag"), 1),
        op("gt", var("output.decision"), 1),
        op("not", op("gt", var("output.decision"), 1)),
        op("startsWith", var("output.items"), "x"),
        op("regex", var("output.score"), "9"),
        op("in", var("output.decision"), 5),
        op("not", var("output.decision")),
        op("length", var("output.items")),
    ],
)
def test_a_type_mismatch_is_false(tree: dict[str, Any]) -> None:
    assert evaluate(tree, CONTEXT) is False


def test_three_valued_logic() -> None:
    unknown = op("eq", var("output.nope"), 1)
    assert holds(op("or", unknown, op("eq", var("output.decision"), "approve"))) is True
    assert holds(op("and", unknown, op("eq", var("output.decision"), "reject"))) is False
    assert holds(op("not", op("and", unknown, op("eq", var("output.flag"), True)))) is False


def test_evaluation_never_raises() -> None:
    odd: list[Any] = [
        {},
        {"op": "eq"},
        {"op": "eq", "args": "x"},
        {"op": "nope", "args": []},
        {"op": "eq", "args": [1]},
        {"var": 3},
        {"op": "regex", "args": ["x", "("]},
        {"op": "and", "args": [{"op": "and", "args": [None]}]},
    ]
    for tree in odd:
        assert evaluate(tree, CONTEXT) is False
    assert evaluate(op("eq", var("output.x"), 1), {"output": object()}) is False
    deep: dict[str, Any] = op("eq", 1, 1)
    for _ in range(5000):
        deep = op("not", deep)
    assert evaluate(deep, CONTEXT) is False


@pytest.mark.parametrize(
    ("text", "code", "reason"),
    [
        ("output.decision == 'approve'", "when-invalid-json", "JSON"),
        ('"approve"', "when-invalid", "top of a when"),
        ('{"var": "output.decision"}', "when-invalid", "top of a when"),
        ('{"op": "matches", "args": [1, 2]}', "when-unknown-op", "unknown op 'matches'"),
        ('{"op": "eq", "args": [1]}', "when-invalid", "eq takes 2 argument(s), got 1"),
        ('{"op": "not", "args": [true, false]}', "when-invalid", "not takes 1"),
        ('{"op": "and", "args": []}', "when-invalid", "at least 1"),
        ('{"op": "eq", "args": {"a": 1}}', "when-invalid", "must be an array"),
        ('{"op": "eq", "args": [{"var": "input.x"}, 1]}', "when-unknown-var-root", "input.x"),
        ('{"op": "eq", "args": [{"var": "execution.x"}, 1]}', "when-unknown-var-root", "root"),
        ('{"op": "eq", "args": [{"var": "output..x"}, 1]}', "when-invalid", "dot path"),
        ('{"op": "eq", "args": [{"var": "output.x", "y": 1}, 1]}', "when-invalid", "keys var, y"),
        ('{"op": "eq", "args": [{"a": 1}, 1]}', "when-invalid", "keys a"),
        ('{"op": "in", "args": [1, [{"var": "output.x"}]]}', "when-invalid", "literal values"),
        ('{"op": "exists", "args": ["x"]}', "when-invalid", "exists takes"),
        (
            '{"op": "regex", "args": [{"var": "output.x"}, {"var": "output.y"}]}',
            "when-invalid",
            "string literal",
        ),
        ('{"op": "regex", "args": [{"var": "output.x"}, "(a"]}', "when-invalid", "missing )"),
        (
            '{"op": "regex", "args": [{"var": "output.x"}, "(a)\\\\1"]}',
            "when-invalid",
            "invalid escape sequence",
        ),
        ('{"op": "length", "args": [{"var": "output.x"}]}', "when-invalid", "boolean"),
    ],
)
def test_bad_trees_are_refused_with_a_reason(text: str, code: str, reason: str) -> None:
    with pytest.raises(WhenError) as refused:
        parse_when(text)
    assert refused.value.code == code
    assert reason in str(refused.value)


def test_depth_is_capped() -> None:
    tree: dict[str, Any] = op("eq", var("output.x"), 1)
    for _ in range(30):
        tree = op("not", tree)
    parse_when(json.dumps(tree))
    for _ in range(5):
        tree = op("not", tree)
    with pytest.raises(WhenError, match="deeper than 32"):
        parse_when(json.dumps(tree))


def test_regex_patterns_are_capped() -> None:
    with pytest.raises(WhenError, match="at most 200"):
        parse_when(json.dumps(op("regex", var("output.body"), "a" * 201)))
    parse_when(json.dumps(op("regex", var("output.body"), "a" * 200)))


def test_regex_subject_is_capped() -> None:
    context = {"output": {"body": "a" * 10_000 + "needle"}}
    assert holds(op("regex", var("output.body"), "needle"), context) is False
    assert holds(op("regex", var("output.body"), "a{3}"), context) is True


@pytest.mark.parametrize("pattern", ["(a+)+$", ".*.*.*x", "(a|aa)*c", "(a?){25}a{25}c"])
def test_regex_cannot_stall(pattern: str) -> None:
    context = {"output": {"body": "a" * 9_999 + "!"}}
    started = time.monotonic()
    assert holds(op("regex", var("output.body"), pattern), context) is False
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"\d{3}-\d{4}", "call 555-1234", True),
        (r"\bcat\b", "concat", False),
        (r"\bcat\b", "a cat!", True),
        ("colou?r", "color", True),
        ("[^a-z]", "abc", False),
        ("x{2,3}y", "xy", False),
        ("(?:foo|bar)+baz", "foobarbaz", True),
        ("(?P<name>ab)c", "abc", True),
        ("ab$", "abc", False),
        ("caf\\x{e9}", "café", True),
        ("(?i)URGENT", "urgent: now", True),
        (".", "\n", False),
    ],
)
def test_regex_dialect(pattern: str, text: str, expected: bool) -> None:
    context = {"output": {"body": text}}
    assert holds(op("regex", var("output.body"), pattern), context) is expected


@pytest.mark.parametrize(
    "pattern", ["a)", "*a", "a**", "(?=a)", "[z-a]", "a{5,2}", "(a{100}){100}", r"(a)\1"]
)
def test_regex_outside_the_dialect_is_refused(pattern: str) -> None:
    with pytest.raises(WhenError, match="invalid regex pattern"):
        parse_when(json.dumps(op("regex", var("output.body"), pattern)))


def test_lookup_and_var_paths() -> None:
    assert lookup({"a": [{"b": 1}]}, ["a", "0", "b"]) == 1
    assert lookup({"a": 1}, ["a", "b"], "missing") == "missing"
    tree = op("and", op("eq", var("step.status"), "breached"), op("exists", var("output.x")))
    assert var_paths(tree) == ["step.status", "output.x"]
