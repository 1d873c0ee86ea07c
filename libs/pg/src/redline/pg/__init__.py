"""PostgreSQL for Redline services: the pool, the migration runner, the outbox and inbox."""

from redline.pg.migrate import MigrationError, migrate
from redline.pg.outbox import EventTooLarge, claim_event, write_events
from redline.pg.pool import UNREACHABLE_MESSAGE, Connection, Pool, create_pool, is_unreachable

__all__ = [
    "UNREACHABLE_MESSAGE",
    "Connection",
    "EventTooLarge",
    "MigrationError",
    "Pool",
    "claim_event",
    "create_pool",
    "is_unreachable",
    "migrate",
    "write_events",
]
