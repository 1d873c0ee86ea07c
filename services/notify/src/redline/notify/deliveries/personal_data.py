"""Personal data in the webhook delivery log: deliveries whose body names a user (as the actor,
a tagged contact, a reviewer…).

A body is searched as sent: plain JSON is found; a body sent base64-encoded or encrypted for
the receiver is not (Redline keeps it only as the receiver gets it). Deliveries belong to the
API key, not to an organization, so they are in every export and erasure of the key's user.

Erasure anonymises the body in place (`redline.runtime.anonymise`) rather than deleting the
delivery: the log keeps its record of what was sent when, and one still waiting for its
receiver goes out anonymised (signatures are made when a request is sent, so they still match).
"""

from __future__ import annotations

from typing import Any

import msgspec

from redline.pg import Connection
from redline.runtime.anonymise import anonymise, stand_in_id
from redline.runtime.personal_data import DataKind, Subject

# A body that may name the user: the id as a JSON string, or a `{{userId}}` mention.
_NAMING = """
FROM notify.delivery d JOIN notify.delivery_body b ON b.delivery_id = d.id
WHERE d.api_key = $1 AND (position($2::bytea IN b.body) > 0 OR position($3::bytea IN b.body) > 0)
"""


def _needles(user_id: str) -> tuple[bytes, bytes]:
    return msgspec.json.encode(user_id), ("{{" + user_id + "}}").encode()


def _decoded(body: bytes) -> Any:
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None


async def export_deliveries(
    conn: Connection, subject: Subject, offset: int, limit: int
) -> list[dict[str, Any]]:
    records = await conn.fetch(
        "SELECT d.webhook_id, d.event_type, d.target, d.url, d.state,"  # noqa: S608 (constants only)
        " (extract(epoch FROM d.created_at) * 1000)::bigint AS created_at, b.body"
        + _NAMING
        + " ORDER BY d.id OFFSET $4 LIMIT $5",
        subject.api_key,
        *_needles(subject.user_id),
        offset,
        limit,
    )
    return [
        {
            "webhookId": r["webhook_id"],
            "eventType": r["event_type"],
            "target": r["target"],
            "url": r["url"],
            "state": r["state"],
            "createdAt": r["created_at"],
            "body": _decoded(r["body"]),
        }
        for r in records
    ]


async def erase_deliveries(conn: Connection, subject: Subject) -> int:
    records = await conn.fetch(
        "SELECT b.delivery_id, b.body" + _NAMING + " FOR UPDATE OF b",
        subject.api_key,
        *_needles(subject.user_id),
    )
    stand_in = stand_in_id()
    changed = 0
    for record in records:
        body = _decoded(record["body"])
        kept = anonymise(body, subject.user_id, stand_in)
        if body is None or kept == body:
            continue
        await conn.execute(
            "UPDATE notify.delivery_body SET body = $2 WHERE delivery_id = $1",
            record["delivery_id"],
            msgspec.json.encode(kept),
        )
        changed += 1
    return changed


DELIVERY_KINDS = [DataKind("webhookDeliveries", export_deliveries, erase_deliveries)]
