"""Whether a notification is mailed, and how mails are gathered. No I/O.

- Mail is on for a key when its email config says `useEmailService` and the trigger of the
  notification's event type (`emailServiceConfig.triggers[<event type>]`) is on; a user gets the
  mail when their `email` preference takes the notification (the inbox's rule,
  `preferences.receives`).
- The key's notification delay and batching shape the mail: a batch waits the delay (when on)
  plus the batch window (when on), gathering the user's notifications that arrive meanwhile, and
  goes at once when it holds `maxActivities`. User batching gathers all of a user's
  notifications; document batching (when user batching is off) those of one document; without
  batching each notification is a mail of its own, after the delay.
"""

from __future__ import annotations

from dataclasses import dataclass

from redline.proto.events import CommentsEvent, NotificationServiceConfigState
from redline.proto.rpc import ApiKeyConfig


@dataclass(frozen=True)
class Batching:
    """Where a user's notification goes: the open batch of `key` (a new one when none is open),
    due `wait_s` after it opened, closing at `max_notifications`."""

    key: str
    wait_s: int
    max_notifications: int


def mail_on(config: ApiKeyConfig, event_type: str) -> bool:
    """The key's notification mail is on, with the event type's trigger."""
    email = config.email
    return email.useEmailService and email.triggers.get(event_type) is True


def should_mail(config: ApiKeyConfig, event: CommentsEvent) -> bool:
    return config.workspaceId == event.workspaceId and mail_on(config, event.trigger)


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
