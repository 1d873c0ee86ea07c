"""Queueing notification mail, in the transaction that records the notification."""

from __future__ import annotations

from redline.notify.mail import storage
from redline.notify.mail.rules import batching_of
from redline.notify.notifications.models import Notification
from redline.notify.notifications.service import takers
from redline.pg import Connection
from redline.proto.rpc import ApiKeyConfig


async def queue_mail(
    conn: Connection,
    workspace_id: str,
    config: ApiKeyConfig,
    record: Notification,
    users: list[str],
    *,
    direct: bool,
) -> None:
    """Queue the notification for the users whose email preference takes it, batched as the
    key's notification settings say."""
    taking = await takers(conn, "email", record, users, direct=direct)
    if not taking:
        return
    meta = record.metadata
    batching = batching_of(
        config.notification.notificationServiceConfig,
        record.id,
        meta.organizationId,
        meta.documentId,
    )
    await storage.enqueue(conn, workspace_id, meta.apiKey, taking, record.id, batching)
