"""The compiled view of a definition: the forward edges the engine fans out on, and the loop
regions derived from reject back-edges.

- Forward edges are every authored edge but loop back-edges (`on: "reject"` with `loop`) and
  `exhausted` routes, with group endpoints expanded to one edge per member (naming the group in
  `fromGroupId` / `toGroupId`) and roles compiled to predicates: `approve` and `reject` test
  `output.decision`, `custom` is its parsed `when`, `always` has none.
- A loop per back-edge: `loopId` is `loop:<from>-><to>` (a group source written as its groupId),
  the entry is the edge's `to`, the body is every node on a forward path from the entry to the
  edge's `from` (every member, for a group source), both ends included, in declaration order,
  and `onExhausted` is the target of the `exhausted` edge leaving the same `from`.

Compile a body the linter accepted: a custom edge whose `when` does not parse raises WhenError.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

from redline.workflow.definitions.graph import DefinitionGraph, Link
from redline.workflow.definitions.models import (
    CompiledEdge,
    CompiledGraph,
    CompiledLoop,
    DefinitionBody,
    RouteTo,
)
from redline.workflow.engine.expressions import parse_when

__all__ = ["compile_graph", "loop_id", "roots"]


def compile_graph(body: DefinitionBody) -> CompiledGraph:
    graph = DefinitionGraph(body)
    forward = [edge for link in graph.links if link.is_forward for edge in _expanded(link)]
    loops = [_loop(graph, link) for link in graph.links if _derives_loop(graph, link)]
    return CompiledGraph(forwardEdges=forward, loops=loops)


def roots(body: DefinitionBody) -> list[str]:
    """The nodes a run starts at, in declaration order: those no edge enters except a loop's
    way back, and never an `exhausted` route's target."""
    return DefinitionGraph(body).roots()


def loop_id(link: Link) -> str:
    return f"loop:{link.source.id}->{link.target.id}"


def _expanded(link: Link) -> list[CompiledEdge]:
    when = _predicate(link)
    from_group = link.source.id if link.source.is_group else UNSET
    to_group = link.target.id if link.target.is_group else UNSET
    return [
        CompiledEdge(
            source=source,
            target=target,
            role=link.role,
            when=when,
            fromGroupId=from_group,
            toGroupId=to_group,
        )
        for source in link.sources
        for target in link.targets
    ]


def _predicate(link: Link) -> dict[str, Any] | None:
    if link.role in ("approve", "reject"):
        return {"op": "eq", "args": [{"var": "output.decision"}, link.role]}
    if link.role == "custom" and not isinstance(link.edge.when, UnsetType):
        return parse_when(link.edge.when)
    return None


def _derives_loop(graph: DefinitionGraph, link: Link) -> bool:
    """A back-edge whose entry is a declared node (the linter refuses the others)."""
    return link.is_loop_back and not link.target.is_group and graph.knows(link.target)


def _loop(graph: DefinitionGraph, link: Link) -> CompiledLoop:
    assert not isinstance(link.edge.loop, UnsetType)
    entry = link.target.id
    exhausted = next(
        (
            other
            for other in graph.links
            if other.is_exhausted and other.source == link.source and not other.target.is_group
        ),
        None,
    )
    return CompiledLoop(
        loopId=loop_id(link),
        entryNodeId=entry,
        bodyNodeIds=graph.loop_body(entry, link.sources),
        maxIterations=link.edge.loop.maxIterations,
        onExhausted=None if exhausted is None else RouteTo(routeToNodeId=exhausted.target.id),
    )
