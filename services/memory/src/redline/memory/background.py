"""Work nobody waits for yields the CPU to work somebody does.

An ingest's conversion and the embedding of its passages take seconds of CPU; the searches,
reads and writes of every workspace are people waiting. The kernel shares a busy CPU by weight:
at niceness 10 background work gets about a tenth of what interactive work also wants, and all
of what nobody else wants, so a backlog of one workspace's files still drains at full speed on
an idle machine but no longer doubles another workspace's latency on a busy one.
"""

from __future__ import annotations

import os
import sys

NICENESS = 10


def lower_this_threads_priority() -> None:
    """Background priority for the calling thread and the threads it starts (the embedding
    engine's own). On Linux niceness belongs to a thread; elsewhere it belongs to the process,
    which must not be lowered for one of its threads."""
    if sys.platform == "linux":
        os.nice(NICENESS)


def lower_this_processs_priority() -> None:
    """Background priority for a child process that does only background work."""
    os.nice(NICENESS)
