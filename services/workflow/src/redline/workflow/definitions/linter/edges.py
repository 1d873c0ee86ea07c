"""The edge contract: which fields go with which role, what a loop back-edge and an `exhausted`
route must be, what may leave a group, and that every human node has a way to reject. The
hosted product reports these one at a time with a rule text; so do these problems' messages."""

from __future__ import annotations

from collections.abc import Iterator

from msgspec import UnsetType

from redline.workflow.definitions.graph import DefinitionGraph, Link
from redline.workflow.definitions.linter.subject import Problem, Subject, problem
from redline.workflow.definitions.models import HumanNode
from redline.workflow.engine.expressions import WhenError, parse_when


def check(subject: Subject) -> Iterator[Problem]:
    graph = subject.graph
    for link in graph.links:
        yield from _when(link)
        yield from _loop_marker(link)
        yield from _group_source(graph, link)
        yield from _exhausted(graph, link)
        yield from _direction(graph, link)
    yield from _reject_paths(subject)


def _when(link: Link) -> Iterator[Problem]:
    path = f"data.edges[{link.index}].when"
    when = link.edge.when
    if link.role != "custom":
        if not isinstance(when, UnsetType):
            yield problem(
                "edge-when-only-for-custom",
                path,
                f'"when" is only allowed with on="custom", not with on="{link.role}"',
            )
        return
    if isinstance(when, UnsetType) or not when.strip():
        yield problem("edge-custom-requires-when", path, 'on="custom" requires a non-empty "when"')
        return
    try:
        parse_when(when)
    except WhenError as error:
        yield problem(error.code, path, error.reason)


def _loop_marker(link: Link) -> Iterator[Problem]:
    path = f"data.edges[{link.index}]"
    if not isinstance(link.edge.loop, UnsetType) and link.role != "reject":
        yield problem(
            "edge-loop-requires-reject", f"{path}.loop", '"loop" is only allowed on on="reject"'
        )
    if (link.is_loop_back or link.is_exhausted) and link.target.is_group:
        yield problem(
            "edge-loop-target-must-be-node",
            f"{path}.to",
            "a loop back-edge or an exhausted route must lead to a node, not a group",
        )


def _group_source(graph: DefinitionGraph, link: Link) -> Iterator[Problem]:
    path = f"data.edges[{link.index}]"
    if link.source.is_group and link.target.is_group:
        yield problem(
            "edge-group-to-group-forbidden", path, "an edge may not lead from a group to a group"
        )
    group = graph.groups.get(link.source.id) if link.source.is_group else None
    if group is None:
        return
    if link.role == "reject" and not link.is_loop_back and group.policy != "waitAll":
        yield problem(
            "group-from-reject-requires-loop",
            path,
            f'a forward on="reject" edge from {group.policy} group "{group.groupId}" never '
            "fires (the group fans out on approval only); mark it as a loop back-edge",
        )
    if link.is_loop_back and group.policy != "joinOnQuorum":
        yield problem(
            "group-from-loop-requires-joinonquorum",
            path,
            f'a reject loop back-edge from group "{group.groupId}" requires '
            'onQuorumMet="joinOnQuorum"',
        )


def _exhausted(graph: DefinitionGraph, link: Link) -> Iterator[Problem]:
    if not link.is_exhausted:
        return
    path = f"data.edges[{link.index}]"
    same_source = [other for other in graph.links if other.source == link.source]
    if not any(other.is_loop_back for other in same_source):
        yield problem(
            "edge-exhausted-requires-loop-sibling",
            path,
            f'on="exhausted" needs a reject loop back-edge from the same "from" '
            f"({link.source.label})",
        )
    if any(other.is_exhausted and other.index < link.index for other in same_source):
        yield problem(
            "edge-exhausted-duplicate",
            path,
            f'{link.source.label} already has an on="exhausted" edge; a loop has one',
        )


def _direction(graph: DefinitionGraph, link: Link) -> Iterator[Problem]:
    """A loop must lead back; a plain reject must not."""
    if link.role != "reject" or link.target.is_group or not graph.knows(link.target):
        return
    if not link.sources:
        return  # dangling: reported as such
    back = graph.leads_back(link)
    if link.is_loop_back and not back:
        yield problem(
            "edge-loop-requires-back-edge",
            f"data.edges[{link.index}].to",
            f"a loop edge must lead back to an ancestor of {link.source.label}; "
            f'"{link.target.id}" is not one',
        )
    elif not link.is_loop_back and (back or link.target.id in link.sources):
        yield problem(
            "edge-reject-cycle-requires-loop",
            f"data.edges[{link.index}]",
            f'on="reject" from {link.source.label} leads back to its ancestor '
            f'"{link.target.id}"; mark it with "loop"',
        )


def _reject_paths(subject: Subject) -> Iterator[Problem]:
    """Every human node needs an outgoing reject, its own or its group's (a back-edge counts)."""
    rejecting = {
        node for link in subject.graph.links if link.role == "reject" for node in link.sources
    }
    for index, node in enumerate(subject.body.nodes):
        if isinstance(node, HumanNode) and node.nodeId not in rejecting:
            yield problem(
                "human-node-requires-reject-path",
                f"data.nodes[{index}]",
                'every human node must have at least one outgoing edge with on="reject" '
                f"(a forward reject route or a reject back-edge): {node.nodeId}",
            )
