"""The linter: the reference's valid examples pass, its anti-patterns are refused with the codes
it names, the error says what the hosted product says, and nothing that decoded makes the
linter raise."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest

from redline.workflow.definitions.linter import error_for, lint, needs_app_platform
from redline.workflow.definitions.models import CreateDefinition
from services.workflow.tests.linter_support import (
    GUARD,
    WHEN,
    G,
    agent,
    definition,
    edge,
    group,
    human,
    notification,
    problems,
    reviewed,
    webhook,
)

# ---- the reference's valid definitions


def _send_back() -> CreateDefinition:
    return definition(
        [
            agent("agent-draft"),
            human("human-boss"),
            agent("agent-publish"),
            human("human-skip-level-mgr"),
            agent("archive"),
        ],
        [
            edge("agent-draft", "human-boss"),
            edge("human-boss", "agent-publish", "approve"),
            edge("human-boss", "agent-draft", "reject", loop={"maxIterations": 3}),
            edge("human-boss", "human-skip-level-mgr", "exhausted"),
            edge("human-skip-level-mgr", "archive", "reject"),
        ],
    )


def _rewind_stage() -> CreateDefinition:
    return definition(
        [
            agent("agent-draft"),
            human("human-legal"),
            human("human-brand"),
            human("human-finance"),
            agent("agent-publish"),
            human("human-cco"),
            agent("archive"),
        ],
        [
            edge("agent-draft", G("compliance-review")),
            edge(G("compliance-review"), "agent-publish", "approve"),
            edge(G("compliance-review"), "agent-draft", "reject", loop={"maxIterations": 3}),
            edge(G("compliance-review"), "human-cco", "exhausted"),
            edge("human-cco", "archive", "reject"),
        ],
        groups=[
            group(
                "compliance-review", ["human-legal", "human-brand", "human-finance"], "joinOnQuorum"
            )
        ],
    )


def _marketing_group_loop() -> CreateDefinition:
    return definition(
        [agent("agent-draft"), human("human-legal"), human("human-brand"), agent("agent-publish")],
        [
            edge("agent-draft", "human-legal"),
            edge("agent-draft", "human-brand"),
            edge("human-legal", "agent-publish"),
            edge("human-brand", "agent-publish"),
            edge(G("parallel-review"), "agent-draft", "reject", loop={"maxIterations": 3}),
        ],
        groups=[group("parallel-review", ["human-legal", "human-brand"], "joinOnQuorum")],
    )


def _collective_wait_all() -> CreateDefinition:
    return definition(
        [agent("draft"), human("a"), human("b"), agent("publish"), agent("redo")],
        [
            edge("draft", G("g")),
            edge(G("g"), "publish", "approve"),
            edge(G("g"), "redo", "reject"),
        ],
        groups=[group("g", ["a", "b"])],
    )


def _cancel_on_quorum() -> CreateDefinition:
    return definition(
        [agent("draft"), human("a"), human("b"), human("c"), agent("publish"), agent("redo")],
        [edge("draft", G("g"))]
        + [edge(m, "redo", "reject") for m in "abc"]
        + [edge(G("g"), "publish", "approve")],
        groups=[group("g", ["a", "b", "c"], "cancelOnQuorum", quorum=2)],
    )


def _agent_in_quorum_group() -> CreateDefinition:
    return definition(
        [agent("draft"), agent("agent-summarize"), human("human-legal"), agent("publish")],
        [
            edge("draft", G("x")),
            edge(G("x"), "publish", "approve"),
            edge(G("x"), "draft", "reject", loop={"maxIterations": 2}),
        ],
        groups=[group("x", ["agent-summarize", "human-legal"], "joinOnQuorum")],
    )


def _exhausted_target_reachable_elsewhere() -> CreateDefinition:
    # Accepted, though the escalation may run twice (the reference warns about it).
    return definition(
        [agent("draft"), human("review"), agent("escalate")],
        [
            edge("draft", "review"),
            edge("review", "escalate", "approve"),
            edge("review", "draft", "reject", loop={"maxIterations": 2}),
            edge("review", "escalate", "exhausted"),
        ],
    )


def _deadlines() -> CreateDefinition:
    breached = json.dumps({"op": "eq", "args": [{"var": "step.status"}, "breached"]})
    return definition(
        [
            human("first", sla=86_400_000),
            human("second", sla=3_600_000),
            human("last", sla=60_000),
            agent("sink"),
        ],
        [
            edge("first", "second", "approve"),
            edge("first", "sink", "reject"),
            edge("first", "sink"),
            edge("second", "last", "approve"),
            edge("second", "sink", "reject"),
            edge("second", "sink", "custom", when=breached),
            edge("last", "sink", "reject"),
            edge("last", "sink", "always"),
        ],
    )


def _everything_else() -> CreateDefinition:
    return reviewed(
        webhook(
            "hook",
            mode="async",
            method="GET",
            authMode="token",
            authTokenHeader="Authorization",
            bodyTemplate="none",
            requestHeaders={"x-acme-tenant": "t 1"},
            expectedStatusCodes=[202],
        ),
        notification("mail", subjectTemplate="{{ execution.triggerContext.title }}"),
        notification(
            "chat",
            channel="slack",
            slackTarget="https://hooks.slack.com/services/T/B/x",
            format="slack-blocks",
            recipients=None,
        ),
        agent("blocking", blocking=True, resolutionPolicy="any", url="https://acme.com/page"),
        scope={"level": "document", "organizationId": "org", "documentId": "doc"},
        organizationId="org",
        webhookConfig={"url": "https://receiver.acme.dev/events", "secret": "s" * 16},
        triggers=[
            {
                "triggerId": "custom",
                "inboundWebhook": {
                    "authMode": "hmac",
                    "secret": "s" * 16,
                    "provider": "custom",
                    "signatureHeader": "x-sig",
                    "signatureAlgorithm": "sha256",
                },
            },
            {
                "triggerId": "velt-bearer",
                "inboundWebhook": {"authMode": "bearer", "secret": "s" * 16},
            },
            {
                "triggerId": "nightly",
                "schedule": {"cron": "0 2 * * MON-FRI", "timezone": "UTC", "enabled": False},
            },
        ],
    )


REFERENCE_EXAMPLES = {
    "create-definition": lambda: definition(
        [
            agent("agent-draft"),
            human("human-review"),
            agent("agent-publish"),
            agent("agent-rework"),
        ],
        [
            edge("agent-draft", "human-review"),
            edge("human-review", "agent-publish", "approve"),
            edge("human-review", "agent-rework", "reject"),
        ],
        scope={"level": "apiKey"},
    ),
    "nightly-audit": lambda: definition(
        [
            {
                "nodeId": "audit",
                "type": "agent",
                "config": {"agentId": "broken-links", "url": "https://acme.com"},
            }
        ],
        triggers=[
            {
                "triggerId": "nightly-audit",
                "schedule": {
                    "cron": "0 2 * * *",
                    "timezone": "America/Los_Angeles",
                    "enabled": True,
                },
            }
        ],
    ),
    "doc-signoff": lambda: definition(
        [
            human("manager-approval"),
            {
                "nodeId": "rework-notice",
                "type": "agent",
                "config": {"agentId": "__mock__", "urlPath": "documentUrl"},
            },
        ],
        [edge("manager-approval", "rework-notice", "reject")],
    ),
    "send-somewhere-else": lambda: definition(
        [human("human-boss"), agent("agent-publish"), human("human-rework-team"), agent("archive")],
        [
            edge("human-boss", "agent-publish", "approve"),
            edge("human-boss", "human-rework-team", "reject"),
            edge("human-rework-team", "archive", "reject"),
        ],
    ),
    "vercel-scan": lambda: definition(
        [
            agent("scan", urlPath="payload.deployment.url", maxUrlsToProcess=50),
            notification(
                "notify",
                recipients=["web-team@acme.com"],
                subjectTemplate="Broken-link scan for "
                "{{execution.triggerContext.payload.deployment.url}}",
                bodyTemplate="Found {{input.agentResultsSummary.totalFindings}} broken link(s).",
                format="text",
            ),
        ],
        [edge("scan", "notify", "always")],
        triggers=[
            {
                "triggerId": "vercel-prod-deploys",
                "appTrigger": {"provider": "vercel", "installationRef": "icfg_AbC123xyz"},
            }
        ],
    ),
    "send-back": _send_back,
    "rewind-stage": _rewind_stage,
    "marketing-group-loop": _marketing_group_loop,
    "collective-wait-all": _collective_wait_all,
    "cancel-on-quorum": _cancel_on_quorum,
    "agent-in-quorum-group": _agent_in_quorum_group,
    "exhausted-target-reachable-elsewhere": _exhausted_target_reachable_elsewhere,
    "deadlines": _deadlines,
    "everything-else": _everything_else,
}


@pytest.mark.parametrize("name", REFERENCE_EXAMPLES)
def test_valid_definitions_have_no_problems(name: str) -> None:
    assert problems(REFERENCE_EXAMPLES[name]()) == []


def test_app_triggers_need_an_app_platform() -> None:
    assert needs_app_platform(REFERENCE_EXAMPLES["vercel-scan"]())
    assert not needs_app_platform(REFERENCE_EXAMPLES["nightly-audit"]())
    assert not needs_app_platform(REFERENCE_EXAMPLES["doc-signoff"]())


# ---- the error


def test_a_rule_problem_gives_its_own_message() -> None:
    found = lint(
        definition([agent("a"), human("final")], [edge("a", "final"), edge("a", "ghost")]), GUARD
    )
    assert [p.code for p in found] == ["human-node-requires-reject-path", "dangling-edge"]
    error = error_for(found)
    assert error.code == "INVALID_ARGUMENT"
    assert error.message.startswith("every human node must have at least one outgoing edge")
    assert error.details == {"issues": [msgspec.to_builtins(p) for p in found]}


def test_linter_problems_are_listed_in_the_message() -> None:
    found = lint(definition([agent("a"), agent("a")], [edge("a", "ghost")]), GUARD)
    error = error_for(found)
    prefix = "Definition linter failed: "
    assert error.message.startswith(prefix)
    assert json.loads(error.message.removeprefix(prefix)) == [
        {"code": p.code, "message": p.message, "path": p.path} for p in found
    ]
    assert [issue["code"] for issue in (error.details or {})["issues"]] == [
        "duplicate-node-id",
        "dangling-edge",
    ]


# ---- robustness


def test_lint_is_stable_and_total_on_hostile_graphs() -> None:
    chain = [agent(f"n{i}") for i in range(100)]
    edges = [edge(f"n{i}", f"n{(i + 1) % 100}") for i in range(100)]
    edges += [
        edge(f"n{i}", f"n{(i * 7) % 100}", "reject", loop={"maxIterations": 1}) for i in range(100)
    ]
    edges += [edge(f"n{i}", "n0", "exhausted") for i in range(100)]
    edges += [edge(G("g"), f"n{i}") for i in range(100)]
    body = definition(
        chain, edges, groups=[group("g", [f"n{i}" for i in range(100)] + ["ghost"], "joinOnQuorum")]
    )
    first = lint(body, GUARD)
    assert first == lint(body, GUARD)
    assert {p.code for p in first} >= {"cycle-detected", "unreachable-node"}


def test_lint_never_raises_on_random_definitions() -> None:
    rng = random.Random(7)
    roles = [None, "approve", "reject", "always", "exhausted", "custom"]
    for _ in range(300):
        ids = [f"n{i}" for i in range(rng.randint(1, 8))]
        points: list[Any] = [*ids, "ghost", G("g0"), G("g1"), G("none")]
        nodes = [
            rng.choice([human, agent, webhook, notification])(node_id) for node_id in ids + ids[:1]
        ]
        edges = []
        for _ in range(rng.randint(0, 12)):
            found = edge(rng.choice(points), rng.choice(points), rng.choice(roles))
            if found.get("on") == "custom":
                found["when"] = rng.choice(
                    [WHEN, "{", '{"op":"eq","args":[{"var":"step.status"},"x"]}']
                )
            if rng.random() < 0.3:
                found["loop"] = {"maxIterations": 2}
            edges.append(found)
        groups = [
            group(
                f"g{k}",
                rng.sample([*ids, "ghost"], k=rng.randint(1, len(ids))),
                rng.choice(["waitAll", "cancelOnQuorum", "joinOnQuorum"]),
            )
            for k in range(rng.randint(0, 2))
        ]
        found_problems = lint(definition(nodes, edges, groups=groups), GUARD)
        assert all(p.code and p.path.startswith("data") for p in found_problems)
