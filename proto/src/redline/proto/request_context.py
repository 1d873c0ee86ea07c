"""The request a piece of work serves: its id and its workspace, as context variables.

The HTTP layer sets them for the handler; the outbox stores the request id with each event and the
relay sends it as the `Redline-Request-Id` header; consumers and RPC servers set them again while
they handle what came with it. So the logs every process writes for one change, and the events it
leads to, all name the request that made it. Values are local to the task that sets them and to
the tasks it starts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

# The NATS header (events on the stream, RPC requests) that carries the request id.
REQUEST_ID_HEADER = "Redline-Request-Id"

request_id: ContextVar[str | None] = ContextVar("redline_request_id", default=None)
workspace_id: ContextVar[str | None] = ContextVar("redline_workspace_id", default=None)


@contextlib.contextmanager
def serving(request: str | None, workspace: str | None = None) -> Iterator[None]:
    """Set both for the block, and put back what was there after it. Both are set even when
    None: work for one request must not pass for work of the one its task happened to start in."""
    request_token = request_id.set(request)
    workspace_token = workspace_id.set(workspace)
    try:
        yield
    finally:
        workspace_id.reset(workspace_token)
        request_id.reset(request_token)
