"""The engine: runs a rule of `engine.*` on one execution inside one transaction — lock and read
the execution, apply the rule, write what changed with its events and outgoing messages — and
keeps the graphs of the definition versions it has run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from prometheus_client import Histogram

from redline.envelope.errors import NotFound
from redline.pg import Connection, Pool
from redline.proto.events import now_ms
from redline.workflow.engine import storage
from redline.workflow.engine.graph import Graph, GraphCache, build_graph
from redline.workflow.engine.outgoing import outgoing_events
from redline.workflow.engine.state import ExecutionState
from redline.workflow.engine.transition import Transition

R = TypeVar("R")

STEP_SECONDS = Histogram(
    "redline_workflow_step_duration_seconds",
    "Time from a step's creation to its end (waits for reviewers included), by node type and "
    "how it ended.",
    ("node_type", "status"),
    buckets=(0.01, 0.05, 0.25, 1, 5, 30, 120, 600, 3600, 6 * 3600, 86400, 7 * 86400),
)


class Engine:
    def __init__(
        self, pool: Pool, *, retry_delays_s: Sequence[float], max_steps_per_execution: int
    ) -> None:
        self.pool = pool
        # Waits before running a node again after each retryable failure; one more fails it.
        self.retry_delays_s = tuple(retry_delays_s)
        # The most steps one execution makes: the one that would pass it fails the execution.
        self.max_steps = max_steps_per_execution
        self._graphs = GraphCache()

    async def graph(self, conn: Connection, uid: str, version: int) -> Graph:
        graph = self._graphs.get(uid, version)
        if graph is None:
            found = await storage.definition_version(conn, uid, version)
            if found is None:
                raise NotFound(f"Version {version} of the definition is gone.")
            body, compiled = found
            graph = build_graph(body["definitionId"], version, body, compiled)
            self._graphs.put(uid, version, graph)
        return graph

    async def change(
        self, execution_id: str, api_key: str | None, rule: Callable[[Transition], R]
    ) -> R:
        """Apply `rule` to the execution (of `api_key`, when given) and commit; NOT_FOUND if
        there is no such execution. An error the rule raises rolls everything back."""
        async with self.pool.acquire() as conn, conn.transaction():
            state = await storage.lock_execution(conn, execution_id, api_key)
            if state is None:
                raise NotFound(f"Execution {execution_id} not found.")
            return await self.apply(conn, state, rule)

    async def apply(
        self, conn: Connection, state: ExecutionState, rule: Callable[[Transition], R]
    ) -> R:
        """Apply `rule` to an execution already locked in the caller's transaction."""
        graph = await self.graph(conn, state.definition_uid, state.definition_version)
        transition = self.transition(state, graph, now_ms())
        result = rule(transition)
        await self.write(conn, transition)
        return result

    def transition(self, state: ExecutionState, graph: Graph, now: int) -> Transition:
        """A change of `state` at `now`, under this engine's limits."""
        return Transition(state, graph, now, max_steps=self.max_steps)

    @staticmethod
    async def write(conn: Connection, transition: Transition) -> None:
        state = transition.execution
        outgoing = outgoing_events(state, transition.changes)
        ended = [
            step
            for step in state.steps.values()
            if step.changed and step.completed_at == transition.now
        ]
        await storage.flush(conn, state, transition.changes, outgoing)
        for step in ended:
            duration_s = (transition.now - step.created_at) / 1000
            STEP_SECONDS.labels(step.node_type, step.status).observe(duration_s)
