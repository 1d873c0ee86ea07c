"""Whether a notification is mailed, and how mails are gathered. No I/O.

- Mail is on for a key when its email config says `useEmailService` and the trigger of the
  notification's event type (`emailServiceConfig.triggers[<event type>]`) is on, both as they
  were when the event happened (`gate`); a user gets the mail when their `email` preference
  takes the notification (the inbox's rule, `preferences.receives`).
- The key's notification delay and batching shape the mail: a batch waits the delay (when on)
  plus the batch window (when on), gathering the user's notifications that arrive meanwhile, and
  goes at once when it holds `maxActivities`. User batching gathers all of a user's
  notifications; document batching (when user batching is off) those of one document; without
  batching each notification is a mail of its own, after the delay.
"""

from __future__ import annotations

from dataclasses import dataclass

from redline.notify.gate import let_through
from redline.proto.events import CommentsEvent, NotificationServiceConfigState
from redline.proto.rpc import ApiKeyConfig


@dataclass(frozen=True)
class Batching:
    """Where a user's notification goes: the open batch of `key` (a new one when none is open),
    due `wait_s` after it opened, closing at `max_notifications`."""

    key: str
    wait_s: int
    max_notifications: int


def should_mail(config: ApiKeyConfig, event: CommentsEvent) -> bool:
    """The key's notification mail and the event type's mail trigger on, both as they were when
    the event happened."""
    email = config.email
    return let_through(
        config,
        event,
        ("email.useEmailService", email.useEmailService),
        (f"email.triggers.{event.trigger}", email.triggers.get(event.trigger) is True),
    )


def batching_of(
    settings: NotificationServiceConfigState,
    notification_id: str,
    organization_id: str,
    document_id: str | None,
) -> Batching:
    delay = settings.delayConfig
    wait_s = delay.delaySeconds if delay.isEnabled else 0
    user, document = settings.batchConfig.user, settings.batchConfig.document
    if user.isEnabled:
        return Batching("user", wait_s + user.batchWindowSeconds, user.maxActivities)
    if document.isEnabled:
        key = f"document:{organization_id}:{document_id or ''}"
        return Batching(key, wait_s + document.batchWindowSeconds, document.maxActivities)
    return Batching(f"notification:{notification_id}", wait_s, 1)
