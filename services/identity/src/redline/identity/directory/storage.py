"""SQL that organizations, folders and documents share: whether an organization exists, holding
or locking its row for a transaction, and how their UPDATEs merge metadata. Everything is keyed by
API key first."""

from __future__ import annotations

from redline.pg import Connection, Pool

# Metadata updates merge a patch into the stored object one level deep; a key set to null in the
# patch is removed, and a NULL patch leaves the metadata as it is. Each UPDATE spells it out:
#   CASE WHEN $n::jsonb IS NULL THEN metadata ELSE (SELECT coalesce(jsonb_object_agg(m.key,
#   m.value), '{}'::jsonb) FROM jsonb_each(metadata || $n::jsonb) AS m
#   WHERE m.value <> 'null'::jsonb) END


async def lock_organization(conn: Connection, api_key: str, organization_id: str) -> bool:
    """Serialise changes to the organization's folders and documents until the transaction ends;
    False when it does not exist. Without it, a folder added under a parent that another
    transaction is deleting would outlive its parent. (`NO KEY UPDATE`: rows that merely
    reference the organization, such as grants, are still inserted meanwhile.)"""
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2"
        " FOR NO KEY UPDATE",
        api_key,
        organization_id,
    )
    return bool(found)


async def hold_organization(conn: Connection, api_key: str, organization_id: str) -> bool:
    """Keep the organization from being deleted until the transaction ends; False when it does
    not exist."""
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2"
        " FOR KEY SHARE",
        api_key,
        organization_id,
    )
    return bool(found)


async def hold_document_id(
    conn: Connection, api_key: str, organization_id: str, document_id: str
) -> None:
    """Serialise, until the transaction ends, what creates a document with this id and a
    migration that would reserve the id as its new one: either sees what the other did."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2 || '/' || $3, 0))",
        api_key,
        organization_id,
        document_id,
    )


async def organization_exists(conn: Connection | Pool, api_key: str, organization_id: str) -> bool:
    found = await conn.fetchval(
        "SELECT true FROM identity.organization WHERE api_key = $1 AND organization_id = $2",
        api_key,
        organization_id,
    )
    return bool(found)
