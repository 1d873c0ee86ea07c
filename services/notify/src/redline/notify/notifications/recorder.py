"""The `notify-notifications` consumer's handler: comments events in, users' feed entries out.

Each event is checked against its API key's current in-app notification settings (asked of
identity, cached briefly, dropped on a change). A key that no longer exists notifies nobody; any
other failure to get the settings raises, and the consumer redelivers the event later. A
notification's id derives from the event's, and inserting a known id writes nothing, so
redelivery never notifies twice.

When the key's notification mail is on (and this process has a relay to send it through), each
new notification is queued for mail in the same transaction (`mail.queue`): the mail is sent
later, by the mail worker, if and only if the notification was recorded.
"""

from __future__ import annotations

from redline.notify.key_config import KeyConfigSource, config_of_event
from redline.notify.mail.queue import queue_mail
from redline.notify.mail.rules import should_mail
from redline.notify.notifications import feed
from redline.notify.notifications.service import put_in_feeds
from redline.pg import Pool
from redline.proto.events import CommentsEvent, Event


class NotificationRecorder:
    def __init__(self, pool: Pool, configs: KeyConfigSource, *, mail: bool = False) -> None:
        self._pool = pool
        self._configs = configs
        # Whether notification mail can be sent at all (a relay is configured).
        self._mail = mail

    async def handle(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, CommentsEvent):
                await self._notify(event)

    async def _notify(self, event: CommentsEvent) -> None:
        recipients = feed.recipients_of(event)
        if not recipients:
            return
        config = await config_of_event(self._configs, event)
        if config is None or not feed.should_notify(config, event):
            return
        mail = self._mail and should_mail(config, event)
        async with self._pool.acquire() as conn, conn.transaction():
            for reason, users in recipients.items():
                record = feed.notification_of(event, reason, users)
                direct = reason in feed.DIRECT
                new = await put_in_feeds(conn, event.workspaceId, record, users, direct=direct)
                if new and mail:
                    await queue_mail(conn, event.workspaceId, config, record, users, direct=direct)
