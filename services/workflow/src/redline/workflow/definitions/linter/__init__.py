"""The definition linter: every reason a definition cannot be stored, found in one pass.

`lint` returns every problem, in a stable order: first the rules the hosted product checks
before it looks at the graph (scope, node configs, outbound URLs, the edge contract, triggers),
then its linter rules (graph structure, groups, loops), each family in request order. It never
raises on a body that decoded: a dangling edge or a repeated id makes the checks that need the
missing piece skip it, and the others still run.

`error_for` words the INVALID_ARGUMENT as the hosted product does:
- when any problem breaks one of the first kind of rules, the message is the first such
  problem's rule text (for example `reviewers must include at least one mandatory reviewer`,
  or `every human node must have at least one outgoing edge with on="reject" (...): review`),
  since the hosted product stops at the first of those;
- otherwise `Definition linter failed: ` followed by a compact JSON array of
  `{"code", "message", "path"}`, one entry per problem, which clients parse for the codes.
Unlike the hosted product, `details.issues` always lists every problem (`code`, `path`,
`message`), whichever the message is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import msgspec
from msgspec import UnsetType

from redline.envelope.errors import InvalidArgument
from redline.webhooks import AddressGuard
from redline.workflow.definitions.graph import DefinitionGraph
from redline.workflow.definitions.linter import (
    edges,
    groups,
    loops,
    nodes,
    scope,
    structure,
    targets,
    triggers,
)
from redline.workflow.definitions.linter.subject import Problem, Subject
from redline.workflow.definitions.models import DefinitionBody

__all__ = ["LINTER_CODES", "Problem", "error_for", "lint", "needs_app_platform"]

_CHECKS: tuple[Callable[[Subject], Iterable[Problem]], ...] = (
    scope.check,
    nodes.check,
    targets.check,
    edges.check,
    triggers.check,
    structure.check,
    groups.check,
    loops.check,
)

# The hosted product's linter table: reported together, as a JSON array in the message.
LINTER_CODES = frozenset(
    {
        "duplicate-node-id",
        "dangling-edge",
        "cycle-detected",
        "unreachable-node",
        "node-missing-config",
        "missing-breach-edge",
        "group-duplicate-id",
        "group-members-empty",
        "group-member-missing",
        "group-expected-steps-invalid",
        "group-quorum-invalid",
        "group-cancelonquorum-requires-quorum-lt-expected",
        "group-joinonquorum-members-must-share-successors",
        "group-required-not-in-members",
        "group-required-exceeds-quorum",
        "group-node-in-multiple-groups",
        "loop-node-in-multiple-loops",
        "loop-body-must-have-single-terminal",
        "loop-group-bounded-quorum-must-equal-expected",
    }
)

_LINTER_FAILED = "Definition linter failed: "


class _Entry(msgspec.Struct):
    code: str
    message: str
    path: str


def lint(body: DefinitionBody, guard: AddressGuard) -> list[Problem]:
    subject = Subject(body=body, graph=DefinitionGraph(body), guard=guard)
    return [found for check in _CHECKS for found in check(subject)]


def error_for(problems: Sequence[Problem]) -> InvalidArgument:
    """The error for a non-empty list of problems (see the module's docstring)."""
    rule = next((found for found in problems if found.code not in LINTER_CODES), None)
    if rule is not None:
        message = rule.message
    else:
        entries = [_Entry(found.code, found.message, found.path) for found in problems]
        message = _LINTER_FAILED + msgspec.json.encode(entries).decode()
    return InvalidArgument(
        message, details={"issues": [msgspec.to_builtins(found) for found in problems]}
    )


def needs_app_platform(body: DefinitionBody) -> bool:
    """Whether a trigger binds an installed app: refused as FAILED_PRECONDITION, since no app
    platform is connected to a Redline deployment."""
    return any(not isinstance(t.appTrigger, UnsetType) for t in body.trigger_list)
