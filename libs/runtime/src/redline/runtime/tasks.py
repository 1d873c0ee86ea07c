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


async def _stop(task: asyncio.Task[None], attempts: int = 20) -> None:
    # Libraries built on asyncio.wait_for (nats-py's fetch among them) can swallow a
    # cancellation on Python 3.11 when it races with completion: cancel again until it stops.
    for _ in range(attempts):
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=0.5)
        if done:
            return
    log.error("background task %s did not stop", task.get_name())
