"""PostgreSQL for Redline services: the pool, the migration runner, the outbox and inbox, and
the holder that ties work claims to the life of their process."""

from redline.pg.holders import LIVE_HOLDERS, DeadHolderSweeps, Holder, holding
from redline.pg.migrate import MigrationError, migrate
from redline.pg.outbox import EventTooLarge, claim_event, write_events
from redline.pg.pool import UNREACHABLE_MESSAGE, Connection, Pool, create_pool, is_unreachable

__all__ = [
    "LIVE_HOLDERS",
    "UNREACHABLE_MESSAGE",
    "Connection",
    "DeadHolderSweeps",
    "EventTooLarge",
    "Holder",
    "MigrationError",
    "Pool",
    "claim_event",
    "create_pool",
    "holding",
    "is_unreachable",
    "migrate",
    "write_events",
]
