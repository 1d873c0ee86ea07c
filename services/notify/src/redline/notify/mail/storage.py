"""The SQL of the notification mail queue (`notify.notification_mail`): adding a user's
notification to their open batch, claiming due mails, and what became of each."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from redline.notify.mail.rules import Batching
from redline.notify.notifications.models import Notification
from redline.pg import Connection, Pool

NOTIFY_CHANNEL = "redline_notify_mail"

_RECORD = msgspec.json.Decoder(Notification)


async def enqueue(
    conn: Connection,
    workspace_id: str,
    api_key: str,
    users: list[str],
    notification_id: str,
    batching: Batching,
) -> None:
    """Add the notification to each user's open batch of the key, opening one (due after the
    wait) when none is open; a batch that reaches its size closes and is due at once. The worker
    hears of it when the transaction commits."""
    await conn.execute(
        "INSERT INTO notify.notification_mail AS m (workspace_id, api_key, user_id, batch_key,"
        " notification_ids, max_notifications, state, due_at)"
        " SELECT $1, $2, u, $4, ARRAY[$5::text], $6,"
        "        CASE WHEN $6 <= 1 THEN 'waiting' ELSE 'open' END,"
        "        now() + make_interval(secs => $7)"
        " FROM unnest($3::text[]) AS u"
        " ON CONFLICT (api_key, user_id, batch_key) WHERE state = 'open' DO UPDATE SET"
        "   notification_ids = m.notification_ids || EXCLUDED.notification_ids,"
        "   state = CASE WHEN cardinality(m.notification_ids) + 1 >= m.max_notifications"
        "                THEN 'waiting' ELSE 'open' END,"
        "   due_at = CASE WHEN cardinality(m.notification_ids) + 1 >= m.max_notifications"
        "                 THEN least(m.due_at, now()) ELSE m.due_at END,"
        "   updated_at = now()",
        workspace_id,
        api_key,
        users,
        batching.key,
        notification_id,
        batching.max_notifications,
        float(batching.wait_s),
    )
    await conn.execute("SELECT pg_notify($1, '')", NOTIFY_CHANNEL)


@dataclass(frozen=True)
class ClaimedMail:
    id: int
    workspace_id: str
    api_key: str
    user_id: str
    notification_ids: list[str]
    # Attempts before this one.
    attempts: int


async def claim(conn: Connection | Pool, limit: int, lease_s: float) -> list[ClaimedMail]:
    """Due mails, taken for `lease_s` (a worker that dies gives them back when it runs out). An
    open batch taken closes: later notifications open a new one."""
    rows = await conn.fetch(
        "UPDATE notify.notification_mail SET state = 'sending',"
        "   lease_until = now() + make_interval(secs => $2), updated_at = now()"
        " WHERE id IN (SELECT id FROM notify.notification_mail"
        "   WHERE due_at <= now() AND (state IN ('open', 'waiting')"
        "     OR (state = 'sending' AND lease_until < now()))"
        "   ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)"
        " RETURNING id, workspace_id, api_key, user_id, notification_ids, attempts",
        limit,
        lease_s,
    )
    return [
        ClaimedMail(
            r["id"],
            r["workspace_id"],
            r["api_key"],
            r["user_id"],
            list(r["notification_ids"]),
            r["attempts"],
        )
        for r in rows
    ]


async def seconds_until_due(conn: Connection | Pool, at_most: float) -> float:
    """How long until the next mail is due (or a taken one's lease runs out), at most `at_most`."""
    wait: float | None = await conn.fetchval(
        "SELECT extract(epoch FROM min(CASE WHEN state = 'sending' THEN lease_until"
        " ELSE due_at END) - now())::float8 FROM notify.notification_mail WHERE state <> 'failed'"
    )
    return at_most if wait is None else max(0.0, min(at_most, wait))


async def unsent_notifications(conn: Connection | Pool, mail: ClaimedMail) -> list[Notification]:
    """The mail's notifications that still exist and that the user has neither read nor
    deleted from their feed, oldest first."""
    rows = await conn.fetch(
        "SELECT n.record::text AS record FROM notify.notification n"
        " LEFT JOIN notify.notification_recipient r ON r.api_key = n.api_key"
        "   AND r.notification_id = n.id AND r.user_id = $3"
        " WHERE n.workspace_id = $1 AND n.api_key = $2 AND n.id = ANY($4::text[])"
        "   AND NOT coalesce(r.is_read OR r.hidden, false)"
        " ORDER BY n.timestamp, n.id",
        mail.workspace_id,
        mail.api_key,
        mail.user_id,
        mail.notification_ids,
    )
    return [_RECORD.decode(r["record"]) for r in rows]


async def done(conn: Connection | Pool, mail_id: int) -> None:
    """Sent, or nothing left to send: the mail leaves the queue."""
    await conn.execute(
        "DELETE FROM notify.notification_mail WHERE id = $1 AND state = 'sending'", mail_id
    )


async def retry(conn: Connection | Pool, mail_id: int, wait_s: float, error: str) -> None:
    await conn.execute(
        "UPDATE notify.notification_mail SET state = 'waiting', attempts = attempts + 1,"
        "   due_at = now() + make_interval(secs => $2), lease_until = NULL, last_error = $3,"
        "   updated_at = now()"
        " WHERE id = $1 AND state = 'sending'",
        mail_id,
        wait_s,
        error,
    )


async def fail(conn: Connection | Pool, mail_id: int, error: str) -> None:
    """Given up: kept (for the operator to see) until `purge`."""
    await conn.execute(
        "UPDATE notify.notification_mail SET state = 'failed', attempts = attempts + 1,"
        "   lease_until = NULL, last_error = $2, updated_at = now()"
        " WHERE id = $1 AND state = 'sending'",
        mail_id,
        error,
    )


async def purge(conn: Connection | Pool, retention_s: float) -> None:
    await conn.execute(
        "DELETE FROM notify.notification_mail"
        " WHERE state = 'failed' AND updated_at < now() - make_interval(secs => $1)",
        retention_s,
    )
