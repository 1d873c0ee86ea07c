"""Driving the engine's rules in memory: a definition compiled as the service compiles it, an
execution state, and transitions one after another, as the storage would apply them."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.workflow.definitions.compiler import compile_graph
from redline.workflow.definitions.models import CreateDefinition
from redline.workflow.engine.graph import Graph, build_graph
from redline.workflow.engine.nodes.outcome import NodeOutcome
from redline.workflow.engine.routing import route
from redline.workflow.engine.runs import dispatch, finish_run
from redline.workflow.engine.scheduling import start_run
from redline.workflow.engine.state import EventRecord, ExecutionState, StepState
from redline.workflow.engine.transition import Transition

Json = dict[str, Any]


def graph_of(body: Json) -> Graph:
    definition = msgspec.convert(body, CreateDefinition)
    compiled = compile_graph(definition)
    stored = msgspec.to_builtins(definition)
    return build_graph(definition.definitionId, 1, stored, msgspec.to_builtins(compiled))


class Run:
    """One execution of `body`, changed by one transition at a time."""

    def __init__(
        self, body: Json, trigger_context: Json | None = None, *, max_steps: int = 1000
    ) -> None:
        self.graph = graph_of(body)
        self.max_steps = max_steps
        self.state = ExecutionState(
            execution_id="exec_1_test",
            api_key="key",
            workspace_id="ws",
            definition_id=self.graph.definition_id,
            definition_uid="uid",
            definition_version=1,
            status="running",
            correlation_id="corr",
            idempotency_key=None,
            trigger_context=trigger_context or {},
            organization_id=None,
            document_id=None,
            folder_id=None,
            receiver_url=None,
            receiver_event_types=None,
            graph_state={},
            last_seq=0,
            last_sent_seq=0,
            step_count=0,
            started_at=1,
        )
        self.events: list[EventRecord] = []
        self.now = 1_000
        self.change(dispatch)

    def change(self, rule: Any) -> Any:
        self.now += 10
        transition = Transition(self.state, self.graph, self.now, max_steps=self.max_steps)
        result = rule(transition)
        self.events += transition.changes.events
        self.last = transition.changes
        return result

    def step(self, node_id: str, status: str | None = None) -> StepState:
        """The node's latest step (in that status, when given)."""
        found = [
            s
            for s in self.state.steps.values()
            if s.node_id == node_id and (status is None or s.status == status)
        ]
        assert found, (node_id, status, self.statuses())
        return found[-1]

    def statuses(self) -> list[tuple[str, str]]:
        return [(s.node_id, s.status) for s in self.state.steps.values()]

    def run_node(self, node_id: str, outcome: NodeOutcome) -> None:
        """A worker runs the node's pending step and reports `outcome`."""
        step = self.step(node_id)
        assert self.change(lambda t: start_run(t, step))
        self.change(lambda t: finish_run(t, step, outcome, (1.0,)))

    def approve_agent(self, node_id: str) -> None:
        self.approve_agent_step(self.step(node_id))

    def approve_agent_step(self, step: StepState) -> None:
        """A worker runs `step` and its agent approves."""
        assert self.change(lambda t: start_run(t, step))
        approved = NodeOutcome(status="completed", output={"decision": "approve"}, data={})
        self.change(lambda t: finish_run(t, step, approved, (1.0,)))

    def visible(self) -> list[tuple[str, str | None]]:
        nodes = {s.step_id: s.node_id for s in self.state.steps.values()}
        return [(e.type, nodes.get(e.step_id or "")) for e in self.events if e.visible]

    def types(self) -> list[str]:
        return [e.type for e in self.events]


def human(node_id: str, *reviewers: tuple[str, bool], **extra: Any) -> Json:
    return {
        "nodeId": node_id,
        "type": "human",
        "config": {"reviewers": [{"userId": u, "mandatory": m} for u, m in reviewers]},
        **extra,
    }


def agent(node_id: str) -> Json:
    return {
        "nodeId": node_id,
        "type": "agent",
        "config": {"agentId": "copy", "url": "https://example.com"},
    }


def edge(source: Any, target: Any, on: str | None = None, **extra: Any) -> Json:
    found: Json = {"from": source, "to": target, **extra}
    if on is not None:
        found["on"] = on
    return found


def definition(nodes: list[Json], edges: list[Json], **extra: Any) -> Json:
    return {"definitionId": "test-flow", "name": "test", "nodes": nodes, "edges": edges, **extra}


__all__ = ["Run", "agent", "definition", "edge", "human", "route"]
