"""Parallel groups (linter rules): unique ids, declared members each in one group only, a
quorum the members can reach, required members among the members, and for `joinOnQuorum`
members that all lead to the same places (the group fans out once, for all of them).

`group-members-empty`, `group-expected-steps-invalid` and a quorum below 1 are refused by the
schema already (`memberNodeIds` 1..500, `expectedSteps` and `quorum` at least 1)."""

from __future__ import annotations

from collections.abc import Iterator

from redline.workflow.definitions.graph import DefinitionGraph, Endpoint
from redline.workflow.definitions.linter.subject import Problem, Subject, listed, problem
from redline.workflow.definitions.models import Group


def check(subject: Subject) -> Iterator[Problem]:
    graph = subject.graph
    seen: set[str] = set()
    owner: dict[str, int] = {}
    for index, group in enumerate(subject.body.group_list):
        path = f"data.groups[{index}]"
        if group.groupId in seen:
            yield problem(
                "group-duplicate-id",
                f"{path}.groupId",
                f'groupId "{group.groupId}" is declared more than once',
            )
        seen.add(group.groupId)
        yield from _members(graph, group, index, owner)
        yield from _quorum(group, path)
        if group.policy == "joinOnQuorum" and graph.groups.get(group.groupId) is group:
            yield from _shared_successors(graph, group, path)


def _members(
    graph: DefinitionGraph, group: Group, index: int, owner: dict[str, int]
) -> Iterator[Problem]:
    for position, member in enumerate(group.memberNodeIds):
        path = f"data.groups[{index}].memberNodeIds[{position}]"
        if member not in graph.order:
            yield problem(
                "group-member-missing",
                path,
                f'group "{group.groupId}" names the undeclared node "{member}"',
            )
        elif owner.setdefault(member, index) != index:
            yield problem(
                "group-node-in-multiple-groups",
                path,
                f'node "{member}" is already a member of data.groups[{owner[member]}]',
            )


def _quorum(group: Group, path: str) -> Iterator[Problem]:
    if group.quorum > group.expectedSteps:
        yield problem(
            "group-quorum-invalid",
            f"{path}.quorum",
            f"quorum ({group.quorum}) must be between 1 and expectedSteps ({group.expectedSteps})",
        )
    elif group.policy == "cancelOnQuorum" and group.quorum >= group.expectedSteps:
        yield problem(
            "group-cancelonquorum-requires-quorum-lt-expected",
            f"{path}.quorum",
            f"cancelOnQuorum requires quorum ({group.quorum}) < expectedSteps "
            f"({group.expectedSteps}): there would be nobody left to cancel",
        )
    required = listed(group.requiredNodeIds)
    for position, node_id in enumerate(required):
        if node_id not in group.memberNodeIds:
            yield problem(
                "group-required-not-in-members",
                f"{path}.requiredNodeIds[{position}]",
                f'required node "{node_id}" is not a member of group "{group.groupId}"',
            )
    if len(required) > group.quorum:
        yield problem(
            "group-required-exceeds-quorum",
            f"{path}.requiredNodeIds",
            f"{len(required)} required nodes exceed the quorum ({group.quorum})",
        )


def _shared_successors(graph: DefinitionGraph, group: Group, path: str) -> Iterator[Problem]:
    targets: dict[str, frozenset[Endpoint]] = {}
    for link in graph.links:
        if link.is_forward and not link.source.is_group:
            targets[link.source.id] = targets.get(link.source.id, frozenset()) | {link.target}
    members = [m for m in group.memberNodeIds if m in graph.order]
    if not members:
        return
    first = members[0]
    expected = targets.get(first, frozenset())
    for position, member in enumerate(group.memberNodeIds):
        if member in graph.order and targets.get(member, frozenset()) != expected:
            yield problem(
                "group-joinonquorum-members-must-share-successors",
                f"{path}.memberNodeIds[{position}]",
                f'joinOnQuorum group "{group.groupId}": member "{member}" leads to '
                f'{_names(targets.get(member))} but "{first}" leads to {_names(expected)}',
            )


def _names(targets: frozenset[Endpoint] | None) -> str:
    if not targets:
        return "nothing"
    return ", ".join(sorted(point.label for point in targets))
