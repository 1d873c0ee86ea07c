"""What every rule family reads: the body as decoded, its resolved graph, and the address guard
that outbound URLs must pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from msgspec import UnsetType

from redline.envelope.errors import Issue
from redline.webhooks import AddressGuard
from redline.workflow.definitions.graph import DefinitionGraph
from redline.workflow.definitions.models import DefinitionBody

T = TypeVar("T")

# A problem is an envelope issue: `details.issues` lists them as they are.
Problem = Issue


@dataclass(frozen=True)
class Subject:
    body: DefinitionBody
    graph: DefinitionGraph
    guard: AddressGuard


def problem(code: str, path: str, message: str) -> Problem:
    return Problem(code=code, path=path, message=message)


def listed(value: list[T] | UnsetType) -> list[T]:
    return [] if isinstance(value, UnsetType) else value
