"""A definition's edges resolved against its nodes and groups, for the compiler and the linter.

Built from any body that decoded, however wrong: an endpoint naming nothing stands for no node,
a repeated node or group id counts once (its first declaration), and every walk is iterative, so
cycles and long chains cost neither recursion nor more than linear time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from redline.workflow.definitions.models import (
    DefinitionBody,
    Edge,
    EdgeEndpoint,
    Group,
    GroupRef,
    NodeRef,
    Role,
)

Adjacency = Mapping[str, list[str]]


@dataclass(frozen=True)
class Endpoint:
    id: str
    is_group: bool

    @property
    def label(self) -> str:
        return f'group "{self.id}"' if self.is_group else f'node "{self.id}"'


def endpoint(value: EdgeEndpoint) -> Endpoint:
    if isinstance(value, GroupRef):
        return Endpoint(value.groupId, True)
    if isinstance(value, NodeRef):
        return Endpoint(value.nodeId, False)
    return Endpoint(value, False)


@dataclass(frozen=True)
class Link:
    """One authored edge with its endpoints resolved to the node ids they stand for."""

    index: int
    edge: Edge
    source: Endpoint
    target: Endpoint
    sources: tuple[str, ...]
    targets: tuple[str, ...]

    @property
    def role(self) -> Role:
        return self.edge.role

    @property
    def is_loop_back(self) -> bool:
        return self.edge.is_loop_back

    @property
    def is_exhausted(self) -> bool:
        return self.role == "exhausted"

    @property
    def is_forward(self) -> bool:
        """What the engine fans out on: everything but loop back-edges and exhausted routes."""
        return not self.is_loop_back and not self.is_exhausted


@dataclass
class DefinitionGraph:
    body: DefinitionBody
    node_ids: list[str] = field(init=False)
    order: dict[str, int] = field(init=False)
    groups: dict[str, Group] = field(init=False)
    links: list[Link] = field(init=False)

    def __post_init__(self) -> None:
        self.order = {}
        for node in self.body.nodes:
            self.order.setdefault(node.nodeId, len(self.order))
        self.node_ids = list(self.order)
        self.groups = {}
        for group in self.body.group_list:
            self.groups.setdefault(group.groupId, group)
        self.links = [self._link(index, edge) for index, edge in enumerate(self.body.edges)]

    def _link(self, index: int, edge: Edge) -> Link:
        source, target = endpoint(edge.source), endpoint(edge.target)
        return Link(index, edge, source, target, self.members(source), self.members(target))

    def knows(self, point: Endpoint) -> bool:
        return point.id in (self.groups if point.is_group else self.order)

    def members(self, point: Endpoint) -> tuple[str, ...]:
        """The declared nodes an endpoint stands for (a group's members that exist)."""
        if not point.is_group:
            return (point.id,) if point.id in self.order else ()
        group = self.groups.get(point.id)
        return () if group is None else self.members_of(group)

    def members_of(self, group: Group) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m for m in group.memberNodeIds if m in self.order))

    def in_order(self, ids: Iterable[str]) -> list[str]:
        """Node ids in declaration order."""
        return sorted(set(ids) & self.order.keys(), key=self.order.__getitem__)

    def adjacency(self, links: Iterable[Link]) -> dict[str, list[str]]:
        successors: dict[str, list[str]] = {node_id: [] for node_id in self.node_ids}
        for link in links:
            for source in link.sources:
                successors[source].extend(link.targets)
        return successors

    @cached_property
    def forward(self) -> dict[str, list[str]]:
        return self.adjacency(link for link in self.links if link.is_forward)

    @cached_property
    def backward(self) -> dict[str, list[str]]:
        return reverse(self.forward)

    def roots(self) -> list[str]:
        """Where a run starts: nodes no edge enters except a loop's way back (an exhausted
        route's target is entered by that route, so it is never a root)."""
        entered = {t for link in self.links if not link.is_loop_back for t in link.targets}
        return [node_id for node_id in self.node_ids if node_id not in entered]

    def leads_back(self, link: Link) -> bool:
        """Whether the edge's `to` is a proper ancestor of its `from` (of a member, for a group
        source) along forward edges."""
        if link.target.is_group:
            return False
        parents = [parent for source in link.sources for parent in self.backward[source]]
        return link.target.id in reachable(parents, self.backward)

    def loop_body(self, entry: str, sources: Iterable[str]) -> list[str]:
        """The nodes on forward paths from `entry` to any of `sources`, both ends included."""
        ends = set(sources)
        inside = reachable([entry], self.forward) & reachable(ends, self.backward)
        return self.in_order(inside | ends | {entry})


def reachable(starts: Iterable[str], adjacency: Adjacency) -> set[str]:
    """`starts` and every node a path of `adjacency` leads to from them."""
    seen = set(starts)
    stack = list(seen)
    while stack:
        for successor in adjacency.get(stack.pop(), ()):
            if successor not in seen:
                seen.add(successor)
                stack.append(successor)
    return seen


def reverse(adjacency: Adjacency) -> dict[str, list[str]]:
    predecessors: dict[str, list[str]] = {node_id: [] for node_id in adjacency}
    for source, targets in adjacency.items():
        for target in targets:
            predecessors.setdefault(target, []).append(source)
    return predecessors


def cycles(adjacency: Adjacency) -> list[set[str]]:
    """The node sets of the cycles in `adjacency` (strongly connected components with more than
    one node, or one node with an edge to itself); Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    for start in adjacency:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            successors = adjacency.get(node, [])
            if position < len(successors):
                work.append((node, position + 1))
                successor = successors[position]
                if successor not in index:
                    work.append((successor, 0))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = _pop_component(stack, on_stack, node)
                if len(component) > 1 or node in successors:
                    found.append(component)
    return found


def _pop_component(stack: list[str], on_stack: set[str], root: str) -> set[str]:
    component: set[str] = set()
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.add(member)
        if member == root:
            return component
