"""Personal data in in-app notifications: the notifications in a user's feed (with its read
state), the ones the user's own actions made, and the user's notification preferences.

Erasure takes the user out of every feed (their recipient rows), deletes the notifications their
actions made, anonymises them in the others that name them (`redline.runtime.anonymise`), and
deletes their preferences and the notification mail queued for them (all of the key's, whatever
the organizations named: a queued mail may gather notifications of several).
"""

from __future__ import annotations

from typing import Any

from redline.pg import Connection
from redline.runtime.anonymise import anonymise, stand_in_id
from redline.runtime.personal_data import DataKind, Subject

_IN_SCOPE = "n.api_key = $1 AND ($2::text[] IS NULL OR n.organization_id = ANY($2))"
_ACTED = "n.record->'actionUser'->>'userId' = $3"
# Someone else's notification that names the user: a user object, a `{{userId}}` mention, or a
# key of the recipient maps.
_NAMES_USER = (
    "(jsonb_path_exists(n.record, '$.** ? (@.userId == $u)', jsonb_build_object('u', $3::text))"
    " OR strpos(n.record::text, '{{' || $3 || '}}') > 0"
    " OR n.record->'notifyUsers' ? $3 OR n.record->'notifyUsersByUserId' ? $3)"
)


async def export_notifications(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    rows = await conn.fetch(
        "SELECT n.record, r.is_read FROM notify.notification n"  # noqa: S608 (constants only)
        " LEFT JOIN notify.notification_recipient r ON r.api_key = n.api_key"
        "  AND r.notification_id = n.id AND r.user_id = $3 AND NOT r.hidden"
        f" WHERE {_IN_SCOPE} AND (r.user_id IS NOT NULL OR {_ACTED})"
        " ORDER BY n.timestamp, n.id OFFSET $4 LIMIT $5",
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
        offset,
        limit,
    )
    return [{**r["record"], "isRead": bool(r["is_read"])} for r in rows]


async def export_preferences(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    rows = await conn.fetch(
        "SELECT organization_id, document_id, config FROM notify.notification_user_config"
        " WHERE api_key = $1 AND ($2::text[] IS NULL OR organization_id = ANY($2))"
        " AND user_id = $3 ORDER BY organization_id, document_id OFFSET $4 LIMIT $5",
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
        offset,
        limit,
    )
    return [
        {
            "organizationId": r["organization_id"],
            "documentId": r["document_id"] or None,
            "config": r["config"],
        }
        for r in rows
    ]


async def erase_notifications(conn: Connection, subject: Subject) -> int:
    args = (subject.api_key, subject.organization_scope, subject.user_id)
    unlisted = await conn.execute(
        "DELETE FROM notify.notification_recipient r USING notify.notification n"  # noqa: S608 (constants only)
        " WHERE r.api_key = n.api_key AND r.notification_id = n.id"
        f" AND {_IN_SCOPE} AND r.user_id = $3",
        *args,
    )
    deleted = await conn.execute(
        f"DELETE FROM notify.notification n WHERE {_IN_SCOPE} AND {_ACTED}",  # noqa: S608 (constants only)
        *args,
    )
    naming = await conn.fetch(
        f"SELECT n.id, n.record FROM notify.notification n WHERE {_IN_SCOPE} AND {_NAMES_USER}"  # noqa: S608 (constants only)
        " FOR UPDATE",
        *args,
    )
    stand_in = stand_in_id()
    for row in naming:
        await conn.execute(
            "UPDATE notify.notification SET record = $3 WHERE api_key = $1 AND id = $2",
            subject.api_key,
            row["id"],
            anonymise(row["record"], subject.user_id, stand_in),
        )
    preferences = await conn.execute(
        "DELETE FROM notify.notification_user_config WHERE api_key = $1"
        " AND ($2::text[] IS NULL OR organization_id = ANY($2)) AND user_id = $3",
        *args,
    )
    mail = await conn.execute(
        "DELETE FROM notify.notification_mail WHERE api_key = $1 AND user_id = $2",
        subject.api_key,
        subject.user_id,
    )
    counts = (unlisted, deleted, preferences, mail)
    return sum(int(status.split()[-1]) for status in counts) + len(naming)


NOTIFICATION_KINDS = [
    DataKind("notifications", export_notifications, erase_notifications),
    # Erased with the notifications above.
    DataKind("notificationPreferences", export_preferences),
]
