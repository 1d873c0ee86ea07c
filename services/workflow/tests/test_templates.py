"""Notification templates: dot-path substitution only, with JSON text for what is not a string."""

from __future__ import annotations

from typing import Any

import pytest

from redline.workflow.engine.templates import (
    MAX_RENDERED_CHARS,
    MAX_SUBSTITUTION_CHARS,
    TemplateTooLarge,
    render,
    template_roots,
)

ROOTS: dict[str, Any] = {
    "input": {
        "decision": "approve",
        "agentResultsSummary": {"summary": "All good", "totalFindings": 3},
        "score": 0.5,
        "approved": True,
        "rejected": False,
        "items": [1, "two"],
        "nothing": None,
    },
    "execution": {
        "executionId": "exec_1",
        "triggerContext": {"page": {"title": "Launch"}},
    },
    "step": {"stepId": "s1", "nodeId": "notify"},
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Approval {{input.decision}}", "Approval approve"),
        ("{{ input.decision }}!", "approve!"),
        ("for {{execution.triggerContext.page.title}}", "for Launch"),
        ("Found {{input.agentResultsSummary.totalFindings}} link(s)", "Found 3 link(s)"),
        ("{{input.score}}", "0.5"),
        ("{{input.approved}}/{{input.rejected}}", "true/false"),
        ("{{input.items}}", '[1,"two"]'),
        ("{{input.agentResultsSummary}}", '{"summary":"All good","totalFindings":3}'),
        ("{{input.items.1}}", "two"),
        ("[{{input.missing}}]", "[]"),
        ("[{{input.nothing}}]", "[]"),
        ("[{{input.decision.deeper}}]", "[]"),
        ("[{{foo.bar}}]", "[]"),
        ("[{{input..decision}}]", "[]"),
        ("{{step.nodeId}} in {{execution.executionId}}", "notify in exec_1"),
        ("no tokens, {single} braces", "no tokens, {single} braces"),
        ("{{unclosed", "{{unclosed"),
    ],
)
def test_render(template: str, expected: str) -> None:
    assert render(template, ROOTS) == expected


def test_render_runs_no_code() -> None:
    assert render("{{input.__class__}}{{ __import__('os') }}", ROOTS) == ""


def test_render_is_linear_on_hostile_text() -> None:
    text = "{{" + " " * 16_000
    assert render(text, ROOTS) == text


def test_template_roots() -> None:
    template = "{{input.a}} {{ execution.b.c }} {{foo.x}} {{step}} {{ bad token }}"
    assert template_roots(template) == {"input", "execution", "foo", "step", "bad token"}
    assert template_roots("plain") == set()


def _big_roots(chars: int) -> dict[str, Any]:
    return {"execution": {"triggerContext": {"payload": "x" * chars}}, "input": {}, "step": {}}


def test_a_template_rendering_past_the_cap_is_refused_before_it_is_built() -> None:
    # 200 copies of a 100,000-character context: 20 MB if it were built.
    template = "{{execution.triggerContext}}\n" * 200
    with pytest.raises(TemplateTooLarge) as raised:
        render(template, _big_roots(100_000))
    assert raised.value.limit == MAX_RENDERED_CHARS
    # It stopped at the first substitution past the cap, not after building the rest.
    assert raised.value.size <= MAX_RENDERED_CHARS + MAX_SUBSTITUTION_CHARS


def test_one_substitution_past_its_cap_is_refused() -> None:
    with pytest.raises(TemplateTooLarge) as raised:
        render("{{ execution.triggerContext.payload }}", _big_roots(MAX_SUBSTITUTION_CHARS + 1))
    assert raised.value.limit == MAX_SUBSTITUTION_CHARS


def test_a_template_within_the_caps_renders_whole() -> None:
    rendered = render("{{execution.triggerContext.payload}}|" * 3, _big_roots(100_000))
    assert rendered == ("x" * 100_000 + "|") * 3
