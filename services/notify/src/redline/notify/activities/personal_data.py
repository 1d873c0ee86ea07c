"""Personal data in activity records: the records of what a user did (`actionUser`).

Erasure deletes the user's records, immutable ones too (an erasure is not an edit through the
API), and anonymises the user in other users' records that name them (a comment that tagged
them, say) with `redline.runtime.anonymise`.
"""

from __future__ import annotations

from typing import Any

from redline.pg import Connection
from redline.runtime.anonymise import anonymise, stand_in_id
from redline.runtime.personal_data import DataKind, Subject

_IN_SCOPE = "api_key = $1 AND ($2::text[] IS NULL OR organization_id = ANY($2))"
# Someone else's record that names the user: a user object, or a `{{userId}}` mention.
_NAMES_USER = (
    "(jsonb_path_exists(record, '$.** ? (@.userId == $u)', jsonb_build_object('u', $3::text))"
    " OR strpos(record::text, '{{' || $3 || '}}') > 0)"
)


async def export_activities(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        f"SELECT record FROM notify.activity WHERE {_IN_SCOPE} AND action_user_id = $3"  # noqa: S608 (constants only)
        " ORDER BY timestamp, id OFFSET $4 LIMIT $5",
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
        offset,
        limit,
    )
    return [r["record"] for r in records]


async def erase_activities(conn: Connection, subject: Subject) -> int:
    deleted = await conn.execute(
        f"DELETE FROM notify.activity WHERE {_IN_SCOPE} AND action_user_id = $3",  # noqa: S608 (constants only)
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
    )
    naming = await conn.fetch(
        f"SELECT id, record FROM notify.activity WHERE {_IN_SCOPE} AND {_NAMES_USER} FOR UPDATE",  # noqa: S608 (constants only)
        subject.api_key,
        subject.organization_scope,
        subject.user_id,
    )
    stand_in = stand_in_id()
    for record in naming:
        await conn.execute(
            "UPDATE notify.activity SET record = $3 WHERE api_key = $1 AND id = $2",
            subject.api_key,
            record["id"],
            anonymise(record["record"], subject.user_id, stand_in),
        )
    return int(deleted.split()[-1]) + len(naming)


ACTIVITY_KINDS = [DataKind("activities", export_activities, erase_activities)]
