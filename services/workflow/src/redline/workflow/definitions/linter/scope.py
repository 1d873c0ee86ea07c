"""Scope: the ids a level needs, given in `scope` or at the top level of the request, and equal
where both are given. Top-level ids a level does not use are accepted and ignored (the hosted
product's SDK sends them on every call); ids inside `scope` that its level does not take are
refused, since the scope would not mean what it says."""

from __future__ import annotations

from collections.abc import Iterator

from msgspec import UnsetType

from redline.workflow.definitions.linter.subject import Problem, Subject, problem

_IDS = ("organizationId", "documentId")


def check(subject: Subject) -> Iterator[Problem]:
    body = subject.body
    scope = body.scope
    if isinstance(scope, UnsetType):
        return
    for name in _IDS:
        inner: str | UnsetType = getattr(scope, name)
        outer: str | UnsetType = getattr(body, name)
        if not _takes(scope.level, name):
            if not isinstance(inner, UnsetType):
                yield problem(
                    "scope-id-not-allowed",
                    f"data.scope.{name}",
                    f'scope level "{scope.level}" takes no {name}',
                )
        elif isinstance(inner, UnsetType) and isinstance(outer, UnsetType):
            yield problem(
                "scope-id-required",
                f"data.scope.{name}",
                f'scope level "{scope.level}" requires {name}',
            )
        elif isinstance(inner, str) and isinstance(outer, str) and inner != outer:
            yield problem("scope-id-mismatch", f"data.{name}", f"{name} must equal scope.{name}")


def _takes(level: str, name: str) -> bool:
    if name == "organizationId":
        return level in ("organization", "document")
    return level == "document"
