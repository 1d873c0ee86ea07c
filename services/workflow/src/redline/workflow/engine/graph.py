"""A pinned definition version as the engine walks it: nodes by id, the compiled forward edges
from each node and each group, groups by member, and loops by the node or group whose reject
sends the run back.

Built from the version as stored (the authored body and its compiled view, both JSON), once per
version: versions never change, so a process keeps the graphs it has built.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import msgspec

from redline.workflow.definitions.compiler import loop_id
from redline.workflow.definitions.graph import DefinitionGraph
from redline.workflow.definitions.models import DefinitionBody

Json = dict[str, Any]

# Group policies (onQuorumMet).
WAIT_ALL = "waitAll"
CANCEL_ON_QUORUM = "cancelOnQuorum"
JOIN_ON_QUORUM = "joinOnQuorum"


@dataclass(frozen=True)
class ForwardEdge:
    source: str  # node id
    target: str  # node id
    role: str  # approve, reject, always or custom
    when: Json | None  # the predicate tree (approve and reject compile to one too)
    from_group: str | None
    to_group: str | None


@dataclass(frozen=True)
class GroupSpec:
    group_id: str
    members: tuple[str, ...]
    expected_steps: int
    quorum: int
    policy: str
    required: tuple[str, ...]


@dataclass(frozen=True)
class LoopSpec:
    loop_id: str
    source: str  # the node or group id whose mandatory reject iterates the loop
    source_is_group: bool
    entry: str
    body: tuple[str, ...]
    max_iterations: int
    on_exhausted: str | None


@dataclass
class Graph:
    definition_id: str
    version: int
    nodes: dict[str, Json]  # node id -> node as authored
    roots: list[str]
    edges_from_node: dict[str, list[ForwardEdge]] = field(default_factory=dict)
    # A group's collective edges, one per target and role (the compiled view repeats them once
    # per member).
    edges_from_group: dict[str, list[ForwardEdge]] = field(default_factory=dict)
    groups: dict[str, GroupSpec] = field(default_factory=dict)
    group_of: dict[str, GroupSpec] = field(default_factory=dict)
    loops_by_source: dict[str, LoopSpec] = field(default_factory=dict)

    def node_type(self, node_id: str) -> str:
        return str(self.nodes[node_id]["type"])

    def loops_containing(self, node_id: str) -> list[LoopSpec]:
        return [loop for loop in self.loops_by_source.values() if node_id in loop.body]


def build_graph(definition_id: str, version: int, body: Json, compiled: Json) -> Graph:
    """The engine's view of a stored version. Roots and loop sources come from the definition
    layer's own reading of the edges (`DefinitionGraph`), so the rules that decide them live
    there once."""
    typed = msgspec.convert(body, DefinitionBody)
    authored = DefinitionGraph(typed)
    nodes = {str(node["nodeId"]): node for node in body["nodes"]}
    graph = Graph(definition_id, version, nodes, roots=authored.roots())
    for raw in body.get("groups") or []:
        spec = GroupSpec(
            group_id=raw["groupId"],
            members=tuple(raw["memberNodeIds"]),
            expected_steps=int(raw["expectedSteps"]),
            quorum=int(raw["quorum"]),
            policy=raw.get("onQuorumMet", WAIT_ALL),
            required=tuple(raw.get("requiredNodeIds") or ()),
        )
        graph.groups[spec.group_id] = spec
        for member in spec.members:
            graph.group_of[member] = spec
    _add_forward_edges(graph, compiled)
    loops = {raw["loopId"]: raw for raw in compiled["loops"]}
    for link in authored.links:
        loop = loops.get(loop_id(link)) if link.is_loop_back else None
        if loop is None:
            continue
        exhausted = loop.get("onExhausted")
        graph.loops_by_source[link.source.id] = LoopSpec(
            loop_id=loop["loopId"],
            source=link.source.id,
            source_is_group=link.source.is_group,
            entry=loop["entryNodeId"],
            body=tuple(loop["bodyNodeIds"]),
            max_iterations=int(loop["maxIterations"]),
            on_exhausted=exhausted["routeToNodeId"] if exhausted else None,
        )
    return graph


def _add_forward_edges(graph: Graph, compiled: Json) -> None:
    """Each distinct edge once: an edge written twice (or a group's edge, which the compiled
    view repeats once per member) fires once."""
    seen: set[tuple[str | None, str, str, str, str]] = set()
    for raw in compiled["forwardEdges"]:
        edge = ForwardEdge(
            source=raw["from"],
            target=raw["to"],
            role=raw["role"],
            when=raw.get("when"),
            from_group=raw.get("fromGroupId"),
            to_group=raw.get("toGroupId"),
        )
        # A group's collective edge is one whichever member the compiled view names.
        source = edge.source if edge.from_group is None else ""
        key = (edge.from_group, source, edge.target, edge.role, repr(edge.when))
        if key in seen:
            continue
        seen.add(key)
        if edge.from_group is None:
            graph.edges_from_node.setdefault(edge.source, []).append(edge)
        else:
            graph.edges_from_group.setdefault(edge.from_group, []).append(edge)


class GraphCache:
    """Graphs of the versions this process has run, least recently used forgotten first."""

    def __init__(self, capacity: int = 1024) -> None:
        self._capacity = capacity
        self._graphs: OrderedDict[tuple[str, int], Graph] = OrderedDict()

    def get(self, uid: str, version: int) -> Graph | None:
        graph = self._graphs.get((uid, version))
        if graph is not None:
            self._graphs.move_to_end((uid, version))
        return graph

    def put(self, uid: str, version: int, graph: Graph) -> None:
        self._graphs[(uid, version)] = graph
        if len(self._graphs) > self._capacity:
            self._graphs.popitem(last=False)
