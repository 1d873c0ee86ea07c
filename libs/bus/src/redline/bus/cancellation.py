"""Stopping a loop that a library may have kept from stopping.

nats-py waits for answers with asyncio.wait_for, which on Python 3.11 loses a cancellation that
arrives as the answer does: the await returns normally and the loop goes on. The task still
counts the cancellation, so a loop that checks after such awaits stops at once instead of when
its app, after waiting, cancels it again.
"""

from __future__ import annotations

import asyncio


def raise_if_cancel_was_swallowed() -> None:
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
