"""Settings of the notify service."""

from __future__ import annotations

import msgspec

from redline.runtime.settings import RuntimeSettings

# About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: a receiver may be down for a day and a half.
DEFAULT_RETRY_SCHEDULE_S = [5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0]
# About 2 s, 8 s, 32 s, 2 min, 8 min: an execution's later events wait behind a
# failing one, so it is given up on (dead-lettered) after some ten minutes, not days.
DEFAULT_WORKFLOW_RETRY_SCHEDULE_S = [2.0, 8.0, 32.0, 120.0, 480.0]


# About 1 min, 5 min, 30 min, 2 h, 6 h: a relay may be down for most of a day.
DEFAULT_MAIL_RETRY_SCHEDULE_S = [60.0, 300.0, 1800.0, 7200.0, 21600.0]


class NotifySettings(RuntimeSettings, kw_only=True, frozen=True):
    webhook_timeout_s: float = 10.0
    # Waits before each retry; a delivery fails for good after the last one.
    webhook_retry_schedule_s: list[float] = msgspec.field(
        default_factory=lambda: list(DEFAULT_RETRY_SCHEDULE_S)
    )
    # The same for workflow execution webhooks.
    workflow_webhook_retry_schedule_s: list[float] = msgspec.field(
        default_factory=lambda: list(DEFAULT_WORKFLOW_RETRY_SCHEDULE_S)
    )
    # Each wait is stretched or shrunk by up to this fraction, so retries to one receiver spread.
    webhook_retry_jitter: float = 0.1
    # Requests in flight to one receiver URL from one replica.
    webhook_endpoint_concurrency: int = 8
    # Deliveries to one receiver URL claimed at once across replicas at most (in flight or next
    # up). Within it a replica claims ahead only as far as the receiver's pace needs: a fast
    # one keeps its requests busy between claims, a slow one holds about its requests in flight.
    webhook_endpoint_window: int = 512
    # Deliveries claimed by this process at once (those of fast receivers wait briefly for a
    # turn at their receiver).
    webhook_process_concurrency: int = 1024
    # How long a claim lasts unless renewed (a third of the way in, while the worker holds it):
    # a replica that dies gives its deliveries back after this. Longer than the timeout.
    webhook_lease_s: float = 60.0
    # Finished deliveries (and their attempts) are kept this long, then deleted.
    webhook_retention_s: float = 30 * 86400.0
    # Seconds the API key's webhook, activity and notification settings are remembered (changes
    # drop them).
    config_cache_ttl_s: float = 30.0
    # Page size of activities get and webhook deliveries list when none is asked for.
    notify_page_size: int = 100
    # Notification mail goes out through this SMTP relay (redline.mail.relay:
    # smtp://user:password@host:587, smtps://..., smtp://host:25?security=none), the one identity
    # sends login links through; unset: no notification mail is queued.
    smtp_url: str | None = None
    # The From address of that mail (the key's email config may set its display name).
    smtp_from: str = "redline@localhost"
    smtp_timeout_s: float = 30.0
    # Waits before each new attempt at a notification mail; past the last one it is kept as
    # failed for `notification_mail_retention_s`, then deleted.
    notification_mail_retry_schedule_s: list[float] = msgspec.field(
        default_factory=lambda: list(DEFAULT_MAIL_RETRY_SCHEDULE_S)
    )
    notification_mail_retention_s: float = 30 * 86400.0
    # How long a worker holds a mail it is sending; a replica that dies gives it back after this.
    notification_mail_lease_s: float = 120.0
