"""SQL of the per-API-key configuration: the `api_key_config` row and `allowed_domain`."""

from __future__ import annotations

from enum import Enum
from typing import Any

import asyncpg
import msgspec

from redline.pg import Connection, Pool

JsonObject = dict[str, Any]


class Section(Enum):
    """One configuration document of an API key, stored in a column of its own."""

    WEBHOOK = "webhook"
    ADVANCED_WEBHOOK = "advanced_webhook"
    ACTIVITY = "activity"
    EMAIL = "email"
    APP = "app"
    PERMISSION_PROVIDER = "permission_provider"
    NOTIFICATION = "notification"


# Whole statements per column: column names never come from a variable.
_SAVE = {
    Section.WEBHOOK: "UPDATE identity.api_key_config SET webhook = $2, updated_at = now()"
    " WHERE api_key = $1",
    Section.ADVANCED_WEBHOOK: "UPDATE identity.api_key_config SET advanced_webhook = $2,"
    " updated_at = now() WHERE api_key = $1",
    Section.ACTIVITY: "UPDATE identity.api_key_config SET activity = $2, updated_at = now()"
    " WHERE api_key = $1",
    Section.EMAIL: "UPDATE identity.api_key_config SET email = $2, updated_at = now()"
    " WHERE api_key = $1",
    Section.APP: "UPDATE identity.api_key_config SET app = $2, updated_at = now()"
    " WHERE api_key = $1",
    Section.PERMISSION_PROVIDER: "UPDATE identity.api_key_config SET permission_provider = $2,"
    " updated_at = now() WHERE api_key = $1",
    Section.NOTIFICATION: "UPDATE identity.api_key_config SET notification = $2,"
    " updated_at = now() WHERE api_key = $1",
}


class StoredConfig(msgspec.Struct, frozen=True):
    """The stored documents; None for a section never configured."""

    webhook: JsonObject | None = None
    advanced_webhook: JsonObject | None = None
    activity: JsonObject | None = None
    email: JsonObject | None = None
    notification: JsonObject | None = None
    # When each on/off switch of the sections last changed position (epoch ms), by
    # `<section>.<switch>` (`ApiKeyConfig.switchedAt`).
    switched: dict[str, int] = msgspec.field(default_factory=dict)
    app: JsonObject | None = None
    permission_provider: JsonObject | None = None

    def section(self, which: Section) -> JsonObject | None:
        document: JsonObject | None = getattr(self, which.value)
        return document


async def lock_config(conn: Connection, api_key: str) -> StoredConfig:
    """The key's configuration, its row locked until the transaction ends.

    Every configuration change of a key (domains included) takes this lock first, so concurrent
    updates merge one after the other and their events leave in the order they were applied.
    """
    row = await conn.fetchrow(
        "INSERT INTO identity.api_key_config (api_key) VALUES ($1)"
        " ON CONFLICT (api_key) DO UPDATE SET updated_at = now()"
        " RETURNING webhook, advanced_webhook, activity, email, notification, switched, app,"
        " permission_provider",
        api_key,
    )
    assert row is not None
    return _stored(row)


async def read_config(conn: Connection | Pool, api_key: str) -> StoredConfig:
    row = await conn.fetchrow(
        "SELECT webhook, advanced_webhook, activity, email, notification, switched, app,"
        " permission_provider"
        " FROM identity.api_key_config WHERE api_key = $1",
        api_key,
    )
    return StoredConfig() if row is None else _stored(row)


def _stored(row: asyncpg.Record) -> StoredConfig:
    return StoredConfig(
        webhook=row["webhook"],
        advanced_webhook=row["advanced_webhook"],
        activity=row["activity"],
        email=row["email"],
        notification=row["notification"],
        switched=row["switched"],
        app=row["app"],
        permission_provider=row["permission_provider"],
    )


async def save_section(
    conn: Connection, api_key: str, which: Section, document: JsonObject | None
) -> None:
    """Replace one document (None: as if never configured). Call after `lock_config` in the
    same transaction."""
    await conn.execute(_SAVE[which], api_key, document)


async def save_switched(conn: Connection, api_key: str, switched: dict[str, int]) -> None:
    """Replace the switch times. Call after `lock_config` in the same transaction."""
    await conn.execute(
        "UPDATE identity.api_key_config SET switched = $2 WHERE api_key = $1", api_key, switched
    )


# allowed domains -------------------------------------------------------------------------------


async def allowed_domains(conn: Connection | Pool, api_key: str) -> list[str]:
    rows = await conn.fetch(
        "SELECT domain FROM identity.allowed_domain WHERE api_key = $1 ORDER BY added_at, domain",
        api_key,
    )
    return [r["domain"] for r in rows]


async def insert_domains(conn: Connection, api_key: str, domains: list[str]) -> set[str]:
    """Add the domains not there yet; returns those it added."""
    rows = await conn.fetch(
        "INSERT INTO identity.allowed_domain (api_key, domain)"
        " SELECT $1, d FROM unnest($2::text[]) AS d"
        " ON CONFLICT (api_key, domain) DO NOTHING RETURNING domain",
        api_key,
        domains,
    )
    return {r["domain"] for r in rows}


async def delete_domains(conn: Connection, api_key: str, domains: list[str]) -> set[str]:
    """Remove the domains; returns those that were there."""
    rows = await conn.fetch(
        "DELETE FROM identity.allowed_domain WHERE api_key = $1 AND domain = ANY($2::text[])"
        " RETURNING domain",
        api_key,
        domains,
    )
    return {r["domain"] for r in rows}


async def replace_domains(conn: Connection, api_key: str, domains: list[str]) -> None:
    """Make `domains` the key's allowed domains, and nothing else."""
    await conn.execute(
        "DELETE FROM identity.allowed_domain WHERE api_key = $1 AND NOT domain = ANY($2::text[])",
        api_key,
        domains,
    )
    await insert_domains(conn, api_key, domains)
