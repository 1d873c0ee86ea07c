"""The step worker: claims due tasks and does them — runs a step's node, or breaches a step
whose SLA ran out. One per process; replicas share the queue (`queue.claim_tasks`), fairly
between API keys.

A run is three moves: in one transaction the step is marked running; the node's side effect
happens outside any transaction; in a second transaction the outcome is recorded, only if this
worker still holds the task. A worker that dies anywhere leaves the task to come due again for
another: the side effect may then happen twice (receivers dedupe on the step id), but the step
completes once, and every event is written once, in the transaction of its change.

The transaction that records an outcome also takes up the next step it makes due at once (the
first, when it makes several): marked running and its task written already claimed by this
worker, which runs it next. A chain of steps costs one transaction per step rather than a
claim, a start and an outcome each. The step keeps the place of the one that ended (no key has
more in flight for it), and after MAX_CHAINED_STEPS in a row the worker goes back to the queue,
where other keys' tasks wait their turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any

from redline.pg import DeadHolderSweeps, Holder
from redline.pg.listen import Listener
from redline.runtime.keys import Sealer
from redline.workflow.callbacks.links import CallbackLinks
from redline.workflow.engine import queue, storage
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.nodes.outcome import NodeOutcome, StepRun
from redline.workflow.engine.queue import ClaimedTask
from redline.workflow.engine.routing import step_metadata
from redline.workflow.engine.runners import NodeRunners
from redline.workflow.engine.runs import breach, finish_run
from redline.workflow.engine.scheduling import start_run
from redline.workflow.engine.state import ExecutionState, StepState
from redline.workflow.engine.transition import Transition

log = logging.getLogger("redline.workflow.worker")

IDLE_POLL_S = 1.0
ERROR_BACKOFF_S = 1.0
# A task that failed on this side (say, PostgreSQL went away mid-run) is tried again after this.
RETRY_FAULT_S = 5.0
# Steps of one execution a worker runs one after the other before it claims from the queue.
MAX_CHAINED_STEPS = 32


class StepWorker:
    def __init__(
        self,
        engine: Engine,
        runners: NodeRunners,
        callbacks: CallbackLinks,
        sealer: Sealer,
        *,
        concurrency: int,
        concurrency_per_key: int,
        lease_s: float,
        holder: Holder,
    ) -> None:
        self._engine = engine
        self._pool = engine.pool
        self._runners = runners
        self._callbacks = callbacks
        self._sealer = sealer
        self._concurrency = concurrency
        # Tasks of one API key in flight at once, across replicas.
        self._concurrency_per_key = concurrency_per_key
        self._lease_s = lease_s
        # Names this process on its claims: they are free again as soon as it dies.
        self._holder = holder
        self._sweeps = DeadHolderSweeps()
        self._wakeup = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        listener = Listener(self._pool, storage.TASK_CHANNEL, self.wake)
        try:
            await self._claim_forever(listener)
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await listener.close()

    async def _claim_forever(self, listener: Listener) -> None:
        while True:
            self._wakeup.clear()
            free = self._concurrency - len(self._tasks)
            try:
                await listener.renew()
                async with self._pool.acquire() as conn:
                    if self._sweeps.due():
                        # What dead processes held is due again within seconds.
                        await queue.free_dead_holders(conn)
                    claimed = (
                        await queue.claim_tasks(
                            conn,
                            free,
                            self._concurrency_per_key,
                            self._lease_s,
                            self._holder.number,
                        )
                        if free
                        else []
                    )
                    wait_s = 0.0 if len(claimed) == free and free else IDLE_POLL_S
                    if not claimed and free:
                        due = await queue.next_task_due(conn)
                        wait_s = IDLE_POLL_S if due is None else min(IDLE_POLL_S, due)
            except Exception as exc:
                log.warning("task claim failed (%s); retrying", exc)
                await asyncio.sleep(ERROR_BACKOFF_S)
                continue
            for task in claimed:
                job = asyncio.create_task(self._do(task), name=f"workflow-task-{task.step_id}")
                self._tasks.add(job)
                job.add_done_callback(self._done)
            if wait_s > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait_s):
                        await self._wakeup.wait()

    def _done(self, job: asyncio.Task[None]) -> None:
        self._tasks.discard(job)
        self.wake()

    async def _do(self, task: ClaimedTask) -> None:
        current = task
        try:
            if task.kind == "deadline":
                await self._deadline(task)
                return
            taken = await self._start(task)
            chained = 0
            while taken is not None:
                current, run, node = taken
                outcome = await self._runners.run(node, run)
                chained += 1
                taken = await self._finish(
                    current, outcome, take_up_next=chained < MAX_CHAINED_STEPS
                )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "task %s of %s failed; it will be tried again", current.kind, current.step_id
            )
            with contextlib.suppress(Exception):
                async with self._pool.acquire() as conn:
                    await queue.release_task(conn, current, RETRY_FAULT_S)

    async def _deadline(self, task: ClaimedTask) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            state = await self._locked(conn, task)
            if state is None:
                return
            step = state.steps.get(task.step_id)

            def rule(t: Transition) -> None:
                if step is None:
                    return
                t.drop_task(step, "deadline")
                sla = t.graph.nodes[step.node_id].get("slaMs")
                breach(t, step, int(sla or 0))

            await self._engine.apply(conn, state, rule)
            if step is None:
                await queue.delete_task(conn, task)

    async def _start(self, task: ClaimedTask) -> tuple[ClaimedTask, StepRun, dict[str, Any]] | None:
        """Mark the step running (in its own transaction) and build what its runner gets."""
        async with self._pool.acquire() as conn, conn.transaction():
            state = await self._locked(conn, task)
            if state is None:
                return None
            step = state.steps.get(task.step_id)

            def rule(t: Transition) -> bool:
                if step is not None and start_run(t, step):
                    return True
                if step is not None:
                    t.drop_task(step, "run")
                return False

            started = await self._engine.apply(conn, state, rule)
            if step is None:
                await queue.delete_task(conn, task)
            if not started or step is None:
                return None
            run, node = await self._run_of(conn, state, step)
        return task, run, node

    async def _finish(
        self, task: ClaimedTask, outcome: NodeOutcome, *, take_up_next: bool
    ) -> tuple[ClaimedTask, StepRun, dict[str, Any]] | None:
        """Record the run's outcome; returns the next step taken up with it, if any."""
        async with self._pool.acquire() as conn, conn.transaction():
            state = await self._locked(conn, task)
            if state is None:
                log.warning("step %s finished after its claim was taken over", task.step_id)
                return None
            step = state.steps[task.step_id]

            def rule(t: Transition) -> ClaimedTask | None:
                # Done with this task; a retry puts it back, due later.
                t.drop_task(step, "run")
                finish_run(t, step, outcome, self._engine.retry_delays_s)
                return self._take_up_next(t) if take_up_next else None

            taken = await self._engine.apply(conn, state, rule)
            if taken is None:
                return None
            run, node = await self._run_of(conn, state, state.steps[taken.step_id])
        return taken, run, node

    def _take_up_next(self, t: Transition) -> ClaimedTask | None:
        """Start the first step this change made that a worker is to run now, its task written
        held by this worker; None when there is none."""
        for change in t.changes.tasks:
            step = t.execution.steps.get(change.step_id)
            if (
                change.kind != "run"
                or change.due_at_ms is None
                or change.due_at_ms > t.now
                or step is None
                or not step.new
            ):
                continue
            if not start_run(t, step):
                return None
            token = str(uuid.uuid4())
            t.hold_task(step, "run", t.now + int(self._lease_s * 1000), token, self._holder.number)
            return ClaimedTask(t.execution.execution_id, step.step_id, "run", token)
        return None

    async def _run_of(
        self, conn: Any, state: ExecutionState, step: StepState
    ) -> tuple[StepRun, dict[str, Any]]:
        """What the runner of a started step gets, and its node."""
        graph = await self._engine.graph(conn, state.definition_uid, state.definition_version)
        # Only a webhook step signs with the execution's secret: no other reads it.
        node = graph.nodes[step.node_id]
        secret = await self._receiver_secret(conn, state) if node["type"] == "webhook" else None
        run = StepRun(
            apiKey=state.api_key,
            workspaceId=state.workspace_id,
            executionId=state.execution_id,
            definitionId=state.definition_id,
            correlationId=state.correlation_id,
            stepId=step.step_id,
            nodeId=step.node_id,
            attempt=step.attempts,
            triggerContext=state.trigger_context,
            input=step.input,
            step=step_metadata(step),
            webhookSecret=secret,
            organizationId=state.organization_id,
            documentId=state.document_id,
            callback=self._callbacks.link(state.execution_id, step.step_id),
        )
        return run, node

    async def _locked(self, conn: Any, task: ClaimedTask) -> ExecutionState | None:
        """The task's execution, locked, if this worker still holds the task (and the task's
        row, locked too, so no other worker claims it before this transaction ends)."""
        state, held = await storage.lock_claimed_execution(
            conn, task.execution_id, task.step_id, task.kind, task.claim_token
        )
        if state is None:
            await queue.delete_task(conn, task)
            return None
        return state if held else None

    async def _receiver_secret(self, conn: Any, state: ExecutionState) -> str | None:
        found = await storage.receiver_secret(conn, state.api_key, state.execution_id)
        if found is None:
            return None
        return self._sealer.unseal(found[1], storage.receiver_binding(state.execution_id))
