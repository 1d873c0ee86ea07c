"""The `notify-notifications` consumer's handler: comments events in, users' feed entries out.

Each event is checked against its API key's current in-app notification settings (asked of
identity, cached briefly, dropped on a change). A key that no longer exists notifies nobody; any
other failure to get the settings raises, and the consumer redelivers the event later. A
notification's id derives from the event's, and inserting a known id writes nothing, so
redelivery never notifies twice.

When the key's notification mail is on (and this process has a relay to send it through), each
new notification is queued for mail in the same transaction (`mail.queue`): the mail is sent
later, by the mail worker, if and only if the notification was recorded.

A user is notified only of threads they may see (`redline.runtime.visibility`, the rule comments
applies to readers), judged on the annotation as the event carries it: a `restricted` thread
notifies only its author, assignee and the users its visibility names. Where the answer turns on
how the user reaches the document (an `organizationPrivate` thread is hidden from users who reach
it only because it is public), identity's access check decides, and a user without access to the
document is not notified; a failed check raises, and the event is redelivered.
"""

from __future__ import annotations

from typing import Protocol

from redline.notify.key_config import KeyConfigSource, config_of_event
from redline.notify.mail.queue import queue_mail
from redline.notify.mail.rules import should_mail
from redline.notify.notifications import feed
from redline.notify.notifications.service import put_in_feeds
from redline.pg import Pool
from redline.proto.events import CommentsEvent, Event
from redline.proto.rpc import AccessDecision
from redline.runtime.visibility import Audience


class DocumentAccess(Protocol):
    """Identity's answer to what a user may do on a document (`redline.runtime.access`)."""

    async def check(
        self, api_key: str, organization_id: str, document_id: str, user_id: str
    ) -> AccessDecision: ...


class NotificationRecorder:
    def __init__(
        self, pool: Pool, configs: KeyConfigSource, access: DocumentAccess, *, mail: bool = False
    ) -> None:
        self._pool = pool
        self._configs = configs
        self._access = access
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
        audience = Audience.of(event.annotation)
        seeing = {
            reason: [u for u in users if await self._may_see(event, audience, u)]
            for reason, users in recipients.items()
        }
        async with self._pool.acquire() as conn, conn.transaction():
            for reason, users in seeing.items():
                if not users:
                    continue
                record = feed.notification_of(event, reason, users)
                direct = reason in feed.DIRECT
                new = await put_in_feeds(conn, event.workspaceId, record, users, direct=direct)
                if new and mail:
                    await queue_mail(conn, event.workspaceId, config, record, users, direct=direct)

    async def _may_see(self, event: CommentsEvent, audience: Audience, user_id: str) -> bool:
        if not audience.depends_on_access(user_id):
            return audience.sees(user_id, via_public=False)
        decision = await self._access.check(
            event.apiKey, event.organizationId, event.documentId, user_id
        )
        return decision.role is not None and audience.sees(
            user_id, via_public=decision.via == "public"
        )
