"""PostgreSQL for Redline services: the pool, the migration runner, the outbox and inbox."""

from redline.pg.migrate import MigrationError, migrate
from redline.pg.outbox import EventTooLarge, claim_event, write_events
from redline.pg.pool import Connection, Pool, create_pool

__all__ = [
    "Connection",
    "EventTooLarge",
    "MigrationError",
    "Pool",
    "claim_event",
    "create_pool",
    "migrate",
    "write_events",
]
