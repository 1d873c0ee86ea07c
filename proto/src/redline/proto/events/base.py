"""The base of every event: fields all events carry, and the subject it travels on."""

from __future__ import annotations

import time
import uuid
from datetime import datetime

import msgspec


def new_event_id() -> str:
    return uuid.uuid4().hex


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def epoch_ms(moment: datetime) -> int:
    """A moment as events carry times: milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


class Event(msgspec.Struct, tag_field="type", kw_only=True, frozen=True):
    """Fields every event carries. `id` is unique and doubles as the JetStream message id."""

    workspaceId: str
    id: str = msgspec.field(default_factory=lambda: new_event_id())
    occurredAt: int = msgspec.field(default_factory=lambda: now_ms())  # ms since the epoch

    @property
    def subject(self) -> str:
        tag = type(self).__struct_config__.tag
        assert isinstance(tag, str)
        return "evt." + tag
