"""Background tasks of a service process: its consumers and workers, run for the life of the app.

A task that dies of an error while it should run is logged at once and named by `/readyz`, so
that an orchestrator replaces a replica that has quietly stopped working.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Coroutine
from typing import Any

log = logging.getLogger("redline.runtime.tasks")


@contextlib.asynccontextmanager
async def running(work: Coroutine[Any, Any, None], *, name: str) -> AsyncIterator[None]:
    """Run `work` as a task for the life of the block; cancel and await it on the way out. A task
    that fails while the block lasts is logged at once and makes `/readyz` fail."""
    task = asyncio.create_task(work, name=name)
    _BACKGROUND.add(task)
    task.add_done_callback(_report_failure)
    try:
        yield
    finally:
        _BACKGROUND.discard(task)
        await _stop(task)


# The background tasks of this process (its service's consumers and workers) while they should run.
_BACKGROUND: set[asyncio.Task[None]] = set()


def failed_background_tasks() -> list[str]:
    """Names of this process's background tasks that died of an error while they should run."""
    return sorted(task.get_name() for task in _BACKGROUND if _failure(task) is not None)


def _failure(task: asyncio.Task[None]) -> BaseException | None:
    return task.exception() if task.done() and not task.cancelled() else None


def _report_failure(task: asyncio.Task[None]) -> None:
    failure = _failure(task)
    if failure is not None:
        log.error("background task %s failed", task.get_name(), exc_info=failure)


# How long a cancelled task may take over the cleanup it does on its way out (a delivery worker
# gives its claims back, so that no other worker waits out their lease) before it is cancelled
# again: a second cancellation would cut that cleanup short.
CLEANUP_GRACE_S = 5.0


async def _stop(task: asyncio.Task[None], attempts: int = 20) -> None:
    # Libraries built on asyncio.wait_for (nats-py's fetch among them) can swallow a
    # cancellation on Python 3.11 when it races with completion: cancel again until it stops.
    # The loops that await such libraries notice a swallowed cancellation themselves
    # (redline.bus.cancellation), so this is the last resort.
    timeout_s = CLEANUP_GRACE_S
    for _ in range(attempts):
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=timeout_s)
        if done:
            return
        timeout_s = 0.5
    log.error("background task %s did not stop", task.get_name())
