"""Whether an API key's settings let an event through: one rule for every consumer of notify
(basic and advanced webhooks, activity logs, in-app notifications, notification mail).

A consumer reads an event some time after it happened, and the key's settings may have changed
in between. The settings that count are those in force when the event happened: a comment made
just before webhooks were turned on is not sent, one made just before they were turned off is.
Identity records when each on/off switch last changed position (`ApiKeyConfig.switchedAt`), so a
switch's position at any moment is its position now, unless it moved after that moment, when it
was in the other one. Only the last change is kept, so an event that waits through two changes
of one switch is judged by the position before the last.
"""

from __future__ import annotations

from redline.proto.events import CommentsEvent
from redline.proto.rpc import AdvancedEndpointState, ApiKeyConfig


def on_at(on_now: bool, switched_at: int | None, at: int) -> bool:
    """A switch's position at `at` (epoch ms), from its position now and when it last moved."""
    if switched_at is None or at >= switched_at:
        return on_now
    return not on_now


def let_through(config: ApiKeyConfig, event: CommentsEvent, *switches: tuple[str, bool]) -> bool:
    """The event belongs to the key's workspace and each switch, named as in `switchedAt` with
    its position now, was on when the event happened."""
    return config.workspaceId == event.workspaceId and all(
        on_at(on_now, config.switchedAt.get(name), event.occurredAt) for name, on_now in switches
    )


def endpoint_takes(endpoint: AdvancedEndpointState, event: CommentsEvent) -> bool:
    """An advanced endpoint existed and was enabled when the event happened."""
    at = event.occurredAt
    return at >= endpoint.createdAt and on_at(not endpoint.disabled, endpoint.switchedAt, at)
