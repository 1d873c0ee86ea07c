"""Loop regions (linter rules): bodies of different loops must not share a node, and a body
either has a single node that edges leave it from (the iteration's terminal; Redline also
accepts none, a body whose approval ends the run), or is bounded by a `joinOnQuorum` group
whose members are exactly the nodes edges leave it from, with quorum equal to expectedSteps.

Only true back-edges to a node derive a region; the others are the edge contract's problems."""

from __future__ import annotations

from collections.abc import Iterator

from redline.workflow.definitions.compiler import loop_id
from redline.workflow.definitions.graph import DefinitionGraph, Link
from redline.workflow.definitions.linter.subject import Problem, Subject, problem


def check(subject: Subject) -> Iterator[Problem]:
    graph = subject.graph
    regions: list[tuple[Link, set[str]]] = []
    for link in graph.links:
        if not (link.is_loop_back and graph.knows(link.target) and graph.leads_back(link)):
            continue
        body = graph.loop_body(link.target.id, link.sources)
        yield from _overlap(graph, link, set(body), regions)
        regions.append((link, set(body)))
        yield from _shape(graph, link, body)


def _overlap(
    graph: DefinitionGraph, link: Link, body: set[str], regions: list[tuple[Link, set[str]]]
) -> Iterator[Problem]:
    for other, other_body in regions:
        shared = body & other_body
        if shared:
            yield problem(
                "loop-node-in-multiple-loops",
                f"data.edges[{link.index}]",
                f"the loop {loop_id(link)} shares {', '.join(graph.in_order(shared))} with "
                f"the loop {loop_id(other)} (data.edges[{other.index}]); use one group-source "
                "back-edge instead",
            )
            return


def _shape(graph: DefinitionGraph, link: Link, body: list[str]) -> Iterator[Problem]:
    inside = set(body)
    exits = {
        source
        for other in graph.links
        if other.is_forward and any(target not in inside for target in other.targets)
        for source in other.sources
        if source in inside
    }
    if len(exits) <= 1:
        return
    bounding = next(
        (
            group
            for group in graph.groups.values()
            if group.policy == "joinOnQuorum" and set(graph.members_of(group)) == exits
        ),
        None,
    )
    path = f"data.edges[{link.index}]"
    if bounding is None:
        yield problem(
            "loop-body-must-have-single-terminal",
            path,
            f"the body of loop {loop_id(link)} ({', '.join(body)}) is left from "
            f"{', '.join(graph.in_order(exits))}: it must be left from one node only, or from "
            "exactly the members of one joinOnQuorum group",
        )
    elif bounding.quorum != bounding.expectedSteps:
        yield problem(
            "loop-group-bounded-quorum-must-equal-expected",
            path,
            f'the body of loop {loop_id(link)} is bounded by group "{bounding.groupId}", whose '
            f"quorum ({bounding.quorum}) must equal expectedSteps ({bounding.expectedSteps})",
        )
