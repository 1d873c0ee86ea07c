"""NATS for Redline services: connection, the EVENTS stream, the outbox relay, consumers, RPC."""

from redline.bus.connect import Bus, inbox_prefix
from redline.bus.consumer import BatchConsumer, DurableConsumer
from redline.bus.relay import OutboxRelay
from redline.bus.streams import ensure_events_stream

__all__ = [
    "BatchConsumer",
    "Bus",
    "DurableConsumer",
    "OutboxRelay",
    "ensure_events_stream",
    "inbox_prefix",
]
