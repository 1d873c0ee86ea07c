"""What a caller is told when the infrastructure under its request fails: one rule for the HTTP
answer and the RPC reply.

- An event the outbox refused (too large for the stream) was made too large by the request:
  the caller's error, INVALID_ARGUMENT; the change it recorded was not made.
- A database that cannot be reached is UNAVAILABLE (the caller may retry); nothing was committed.
- A transaction PostgreSQL aborted for a concurrent one (a deadlock, a serialization failure) is
  ABORTED: the request met another one's change, nothing of it was committed, and it may be sent
  again. Statements that lock many rows lock them in key order so this stays rare.
- Anything else is not the caller's to know: the caller of this says INTERNAL and logs it.
"""

from __future__ import annotations

import asyncpg

from redline.envelope.errors import Aborted, ApiError, InvalidArgument, Unavailable
from redline.pg import UNREACHABLE_MESSAGE, EventTooLarge, is_unreachable


def infrastructure_error(error: BaseException) -> ApiError | None:
    """The error a caller gets for `error`, or None when it is no failure of ours to explain."""
    if isinstance(error, EventTooLarge):
        return InvalidArgument(error.message)
    if is_unreachable(error):
        return Unavailable(UNREACHABLE_MESSAGE)
    if isinstance(error, asyncpg.DeadlockDetectedError | asyncpg.SerializationError):
        return Aborted("The request met a concurrent change and was not made; send it again.")
    return None
