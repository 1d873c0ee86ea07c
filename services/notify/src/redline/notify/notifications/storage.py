"""The SQL of in-app notifications, their recipients and users' preferences. Every statement is
scoped by API key (and workspace, and organization for the endpoints).

A user's feed is the notifications naming them, and the organization's notifyAll notifications
when their inbox preference takes notifications that do not involve them; either way not the
ones they deleted from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from redline.notify.notifications.models import Notification
from redline.pg import Connection, Pool
from redline.pg.conditions import Conditions
from redline.pg.pages import has_more, within_byte_budget

_RECORD = msgspec.json.Decoder(Notification)


CHANNELS = ("inbox", "email", "slack")


def preference_of(channel: str, key: str, org: str, user: str, document: str) -> str:
    """SQL of a user's effective preference for a channel (inbox, email) and a document: the
    document's own, else the organization-level one, else ALL. The arguments but `channel` are
    SQL expressions."""
    assert channel in CHANNELS
    return (
        f"coalesce((SELECT c.config->>'{channel}' FROM notify.notification_user_config c"  # noqa: S608
        f" WHERE c.api_key = {key} AND c.organization_id = {org} AND c.user_id = {user}"
        f" AND c.document_id IN (coalesce({document}, ''), '') AND c.config ? '{channel}'"
        " ORDER BY c.document_id DESC LIMIT 1), 'ALL')"
    )


def in_feed(user: str) -> str:
    """SQL: notification `n` (joined to the user's recipient row `r`) is in the feed of `user`.
    A notifyAll notification does not involve the user, so it is theirs only when their inbox
    takes everything (`preferences.receives` with direct false)."""
    inbox = preference_of("inbox", "n.api_key", "n.organization_id", user, "n.document_id")
    return (
        "((r.named AND NOT r.hidden) OR (n.notify_all AND NOT coalesce(r.hidden, false)"
        f" AND {inbox} = 'ALL'))"
    )


def _recipient_join(user: str) -> str:
    return (
        " LEFT JOIN notify.notification_recipient r ON r.api_key = n.api_key"
        f" AND r.notification_id = n.id AND r.user_id = {user}"
    )


# writing ---------------------------------------------------------------------------------------


async def insert(
    conn: Connection,
    workspace_id: str,
    record: Notification,
    *,
    notify_all: bool,
    location_id: str | None,
) -> bool:
    """Insert the notification unless its (API key, id) is taken; True when it was inserted."""
    inserted = await conn.fetchval(
        "INSERT INTO notify.notification (workspace_id, api_key, organization_id, document_id,"
        " location_id, id, timestamp, notify_all, record)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        " ON CONFLICT (api_key, id) DO NOTHING RETURNING id",
        workspace_id,
        record.metadata.apiKey,
        record.metadata.organizationId,
        record.metadata.documentId,
        location_id,
        record.id,
        record.timestamp,
        notify_all,
        record,
    )
    return inserted is not None


async def add_recipients(conn: Connection, record: Notification, user_ids: list[str]) -> None:
    await conn.execute(
        "INSERT INTO notify.notification_recipient"
        " (api_key, notification_id, user_id, organization_id, timestamp)"
        " SELECT $1, $2, u, $3, $4 FROM unnest($5::text[]) AS u"
        " ON CONFLICT (api_key, notification_id, user_id) DO UPDATE SET named = true",
        record.metadata.apiKey,
        record.id,
        record.metadata.organizationId,
        record.timestamp,
        user_ids,
    )


async def unname(conn: Connection, record: Notification, user_ids: list[str]) -> None:
    await conn.execute(
        "UPDATE notify.notification_recipient SET named = false"
        " WHERE api_key = $1 AND notification_id = $2 AND user_id = ANY($3::text[])",
        record.metadata.apiKey,
        record.id,
        user_ids,
    )


async def organization_of(
    conn: Connection, workspace_id: str, api_key: str, notification_id: str
) -> str | None:
    found: str | None = await conn.fetchval(
        "SELECT organization_id FROM notify.notification"
        " WHERE workspace_id = $1 AND api_key = $2 AND id = $3",
        workspace_id,
        api_key,
        notification_id,
    )
    return found


async def preferences(
    conn: Connection | Pool,
    channel: str,
    api_key: str,
    org: str,
    document_id: str | None,
    users: list[str],
) -> dict[str, str]:
    """Each user's effective preference for the channel and the document."""
    rows = await conn.fetch(
        f"SELECT u, {preference_of(channel, '$1', '$2', 'u', '$3::text')} AS preference"  # noqa: S608
        " FROM unnest($4::text[]) AS u",
        api_key,
        org,
        document_id,
        users,
    )
    return {r["u"]: r["preference"] for r in rows}


# reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cursor:
    """The last notification of the previous page (keyset paging on timestamp, then id)."""

    timestamp: int
    id: str


@dataclass
class Scope:
    """Which notifications of an organization a request names; None is no filter."""

    workspace_id: str
    api_key: str
    organization_id: str
    document_id: str | None = None
    location_id: str | None = None
    user_id: str | None = None
    ids: list[str] | None = None

    def conditions(self) -> Conditions:
        b = Conditions()
        b.where("n.workspace_id = {}", self.workspace_id)
        b.where("n.api_key = {}", self.api_key)
        b.where("n.organization_id = {}", self.organization_id)
        if self.document_id is not None:
            b.where("n.document_id = {}", self.document_id)
        if self.location_id is not None:
            b.where("n.location_id = {}", self.location_id)
        if self.ids is not None:
            b.where("n.id = ANY({}::text[])", self.ids)
        return b

    def joined(self, b: Conditions) -> str:
        """The FROM clause; with a user, their recipient rows joined and the feed's rule added."""
        if self.user_id is None:
            return "notify.notification n"
        user = b.param(self.user_id)
        b.conditions.append(in_feed(user))
        return "notify.notification n" + _recipient_join(user)


@dataclass(frozen=True)
class Row:
    record: Notification
    is_read: bool | None


async def select_page(
    conn: Connection | Pool,
    scope: Scope,
    descending: bool,
    after: Cursor | None,
    size: int,
    byte_budget: int,
) -> tuple[list[Row], bool]:
    """Up to `size` notifications and `byte_budget` bytes of records (redline.pg.pages), and
    whether more follow."""
    b = scope.conditions()
    source = scope.joined(b)
    read = "r.is_read" if scope.user_id is not None else "NULL::boolean"
    direction, before = ("DESC", "<") if descending else ("ASC", ">")
    if after is not None:
        b.where(f"(n.timestamp, n.id) {before} ({{}}, {{}})", after.timestamp, after.id)
    page = (
        "SELECT n.timestamp, n.id, n.record::text AS record,"  # noqa: S608
        f" {read} AS is_read FROM {source} WHERE "
        + " AND ".join(b.conditions)
        + f" ORDER BY n.timestamp {direction}, n.id {direction} LIMIT {b.param(size + 1)}"
    )
    statement = within_byte_budget(
        page,
        order=f"q.timestamp {direction}, q.id {direction}",
        row_bytes="octet_length(q.record)",
        page_size=b.param(size),
        budget=b.param(byte_budget),
    )
    rows = await conn.fetch(statement, *b.params)
    return [Row(_RECORD.decode(r["record"]), r["is_read"]) for r in rows], has_more(rows)


async def select_for_update(conn: Connection, scope: Scope) -> dict[str, Notification]:
    """The notifications the scope names, locked until the transaction ends."""
    b = scope.conditions()
    source = scope.joined(b)
    rows = await conn.fetch(
        f"SELECT n.record::text AS record FROM {source} WHERE "  # noqa: S608
        + " AND ".join(b.conditions)
        + " FOR UPDATE OF n",
        *b.params,
    )
    found = [_RECORD.decode(r["record"]) for r in rows]
    return {n.id: n for n in found}


async def save(conn: Connection, record: Notification) -> None:
    await conn.execute(
        "UPDATE notify.notification SET record = $3 WHERE api_key = $1 AND id = $2",
        record.metadata.apiKey,
        record.id,
        record,
    )


async def set_state(
    conn: Connection, record: Notification, user_ids: list[str], column: str, value: bool
) -> None:
    """Set the users' read (`is_read`) or deleted (`hidden`) state of the notification; a user
    it does not name gets a row holding only that state."""
    assert column in ("is_read", "hidden")
    await conn.execute(
        "INSERT INTO notify.notification_recipient"  # noqa: S608 (column checked above)
        f" (api_key, notification_id, user_id, organization_id, timestamp, named, {column})"
        " SELECT $1, $2, u, $3, $4, false, $6 FROM unnest($5::text[]) AS u"
        f" ON CONFLICT (api_key, notification_id, user_id) DO UPDATE SET {column} = $6",
        record.metadata.apiKey,
        record.id,
        record.metadata.organizationId,
        record.timestamp,
        user_ids,
        value,
    )


async def delete(conn: Connection, api_key: str, ids: list[str]) -> None:
    await conn.execute(
        "DELETE FROM notify.notification WHERE api_key = $1 AND id = ANY($2::text[])",
        api_key,
        ids,
    )


# the documents they belong to ------------------------------------------------------------------


async def delete_documents(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_ids: list[str] | None,
    made_by_ms: int,
) -> int:
    """Delete the notifications of `document_ids` (of the whole organization, with or without a
    document, when None) made by `made_by_ms`, and every feed entry of them; returns how many
    notifications went."""
    status = await conn.execute(
        "DELETE FROM notify.notification WHERE api_key = $1 AND organization_id = $2"
        " AND ($3::text[] IS NULL OR document_id = ANY($3::text[])) AND timestamp <= $4",
        api_key,
        organization_id,
        document_ids,
        made_by_ms,
    )
    return int(status.split()[-1])


# users' preferences ----------------------------------------------------------------------------


async def move_user_configs(
    conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
) -> int:
    """Give the users' preferences for document `old_id` to `new_id`; a user who already has one
    for `new_id` keeps that one. Returns how many moved."""
    status = await conn.execute(
        "WITH moved AS ("
        " DELETE FROM notify.notification_user_config"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3"
        " RETURNING user_id, config)"
        " INSERT INTO notify.notification_user_config"
        " (api_key, organization_id, user_id, document_id, config)"
        " SELECT $1, $2, user_id, $4, config FROM moved ON CONFLICT DO NOTHING",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    return int(status.split()[-1])


async def user_configs(
    conn: Connection | Pool, api_key: str, org: str, user_id: str, document_ids: list[str]
) -> dict[str, dict[str, Any]]:
    """The user's stored configs by document id ('' for the organization level)."""
    rows = await conn.fetch(
        "SELECT document_id, config FROM notify.notification_user_config"
        " WHERE api_key = $1 AND organization_id = $2 AND user_id = $3"
        " AND document_id = ANY($4::text[])",
        api_key,
        org,
        user_id,
        ["", *document_ids],
    )
    return {r["document_id"]: r["config"] for r in rows}


async def merge_user_configs(
    conn: Connection,
    api_key: str,
    org: str,
    pairs: list[tuple[str, str]],
    channels: dict[str, str],
) -> None:
    """Merge `channels` into the config of each (user id, document id) pair."""
    await conn.executemany(
        "INSERT INTO notify.notification_user_config"
        " (api_key, organization_id, user_id, document_id, config) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (api_key, organization_id, user_id, document_id)"
        " DO UPDATE SET config = notification_user_config.config || EXCLUDED.config",
        [(api_key, org, user, document, channels) for user, document in pairs],
    )
