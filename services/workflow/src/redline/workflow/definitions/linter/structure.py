"""The graph as a whole (linter rules): unique node ids, edges that name declared nodes and
groups, no cycle but declared loops, every node reachable from a root, and a route for the
breach of every node with a deadline."""

from __future__ import annotations

from collections.abc import Iterator

from msgspec import UnsetType

from redline.workflow.definitions.graph import DefinitionGraph, Link, cycles, reachable
from redline.workflow.definitions.linter.subject import Problem, Subject, problem
from redline.workflow.engine.expressions import WhenError, parse_when, var_paths


def check(subject: Subject) -> Iterator[Problem]:
    yield from _duplicate_nodes(subject)
    yield from _dangling(subject.graph)
    yield from _cycles(subject.graph)
    yield from _unreachable(subject)
    yield from _breach_routes(subject)


def _duplicate_nodes(subject: Subject) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, node in enumerate(subject.body.nodes):
        if node.nodeId in seen:
            yield problem(
                "duplicate-node-id",
                f"data.nodes[{index}].nodeId",
                f'nodeId "{node.nodeId}" is declared more than once',
            )
        seen.add(node.nodeId)


def _dangling(graph: DefinitionGraph) -> Iterator[Problem]:
    for link in graph.links:
        for field, point in (("from", link.source), ("to", link.target)):
            if not graph.knows(point):
                yield problem(
                    "dangling-edge",
                    f"data.edges[{link.index}].{field}",
                    f"the edge's {field} names an undeclared {point.label}",
                )


def _cycles(graph: DefinitionGraph) -> Iterator[Problem]:
    """Each cycle once, at its first edge; only loop back-edges may revisit a node."""
    found = []
    for component in cycles(graph.adjacency(link for link in graph.links if not link.is_loop_back)):
        first = min(link.index for link in graph.links if _inside(link, component))
        found.append((first, graph.in_order(component)))
    for index, nodes in sorted(found):
        yield problem(
            "cycle-detected",
            f"data.edges[{index}]",
            "the graph has a cycle through " + ", ".join(nodes) + "; only a reject edge marked "
            '"loop" may lead back',
        )


def _inside(link: Link, component: set[str]) -> bool:
    return (
        not link.is_loop_back
        and any(source in component for source in link.sources)
        and any(target in component for target in link.targets)
    )


def _unreachable(subject: Subject) -> Iterator[Problem]:
    graph = subject.graph
    everything = graph.adjacency(graph.links)
    reached = reachable(graph.roots(), everything)
    seen: set[str] = set()
    for index, node in enumerate(subject.body.nodes):
        if node.nodeId not in reached and node.nodeId not in seen:
            yield problem(
                "unreachable-node",
                f"data.nodes[{index}]",
                f'node "{node.nodeId}" cannot be reached from any root',
            )
        seen.add(node.nodeId)


def _breach_routes(subject: Subject) -> Iterator[Problem]:
    """A node with `slaMs` and edges of its own needs one that fires on `breached`. Only edges
    leaving the node itself count: a group's collective edges route a breached member as the
    group's (not approved), so a member without edges of its own needs none."""
    own: dict[str, list[Link]] = {}
    for link in subject.graph.links:
        if not link.source.is_group:
            own.setdefault(link.source.id, []).append(link)
    for index, node in enumerate(subject.body.nodes):
        outgoing = own.get(node.nodeId, [])
        if isinstance(node.slaMs, UnsetType) or not outgoing:
            continue
        if not any(_routes_breach(link) for link in outgoing):
            yield problem(
                "missing-breach-edge",
                f"data.nodes[{index}].slaMs",
                f'node "{node.nodeId}" sets slaMs and has outgoing edges, but none routes a '
                'breach: add an on="always" edge, or an on="custom" edge whose when tests '
                "step.status",
            )


def _routes_breach(link: Link) -> bool:
    """`always` fires on a breach; a `custom` edge counts when its `when` reads `step.status`
    (the one place a breach shows: the breached step's output is empty). Approve, reject and
    exhausted never fire on one."""
    if link.role == "always":
        return True
    if link.role != "custom" or isinstance(link.edge.when, UnsetType):
        return False
    try:
        tree = parse_when(link.edge.when)
    except WhenError:
        return True  # reported as a bad `when` already; one problem is enough
    return "step.status" in var_paths(tree)
