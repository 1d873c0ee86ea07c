"""SQL of permissions: one user's grants on many resources, the facts that decide many users'
access to many folders and documents of one organization in a few round trips, and those of one
access decision in one."""

from __future__ import annotations

from datetime import datetime

import msgspec

from redline.identity.permissions.access_model import AccessFacts, FolderLink
from redline.pg import Connection, Pool


class GrantRow(msgspec.Struct, frozen=True):
    organization_id: str
    resource_type: str
    resource_id: str
    access_role: str | None  # None: keep the stored role (editor for a new grant)
    expires_at: datetime | None


class DocumentRow(msgspec.Struct, frozen=True):
    document_id: str
    # The document's own access type, else its folder's effective one.
    access_type: str | None
    folder_id: str | None


class FolderRow(msgspec.Struct, frozen=True):
    folder_id: str
    ancestors: list[str]  # root first
    inherit_from_parent: bool
    effective_access_type: str


class LiveGrant(msgspec.Struct, frozen=True):
    user_id: str
    resource_type: str
    resource_id: str
    access_role: str
    expires_at: datetime | None


async def upsert_grants(
    conn: Connection, api_key: str, user_id: str, grants: list[GrantRow]
) -> None:
    if not grants:
        return
    await conn.execute(
        "INSERT INTO identity.access_grant AS g"
        " (api_key, organization_id, user_id, resource_type, resource_id, access_role, expires_at)"
        " SELECT $1, r.organization_id, $2, r.resource_type, r.resource_id,"
        "        coalesce(r.role, old.access_role, 'editor'), r.expires_at"
        " FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])"
        "      AS r(organization_id, resource_type, resource_id, role, expires_at)"
        " LEFT JOIN identity.access_grant old"
        "   ON old.api_key = $1 AND old.organization_id = r.organization_id"
        "  AND old.user_id = $2 AND old.resource_type = r.resource_type"
        "  AND old.resource_id = r.resource_id"
        " ON CONFLICT (api_key, organization_id, user_id, resource_type, resource_id) DO UPDATE"
        " SET access_role = EXCLUDED.access_role, expires_at = EXCLUDED.expires_at,"
        "     updated_at = now()",
        api_key,
        user_id,
        [g.organization_id for g in grants],
        [g.resource_type for g in grants],
        [g.resource_id for g in grants],
        [g.access_role for g in grants],
        [g.expires_at for g in grants],
    )


async def delete_grants(
    conn: Connection, api_key: str, user_id: str, keys: list[tuple[str, str, str]]
) -> int:
    """Remove the user's grants on (organization id, type, id); returns how many there were."""
    if not keys:
        return 0
    status = await conn.execute(
        "DELETE FROM identity.access_grant g"
        " USING unnest($3::text[], $4::text[], $5::text[])"
        "       AS k(organization_id, resource_type, resource_id)"
        " WHERE g.api_key = $1 AND g.user_id = $2 AND g.organization_id = k.organization_id"
        "   AND g.resource_type = k.resource_type AND g.resource_id = k.resource_id",
        api_key,
        user_id,
        [k[0] for k in keys],
        [k[1] for k in keys],
        [k[2] for k in keys],
    )
    return int(status.split()[-1])


async def documents(
    conn: Connection | Pool, api_key: str, organization_id: str, document_ids: list[str]
) -> dict[str, DocumentRow]:
    rows = await conn.fetch(
        "SELECT d.document_id, coalesce(d.access_type, f.effective_access_type) AS access_type,"
        "       d.folder_id"
        " FROM identity.document d"
        " LEFT JOIN identity.folder f ON f.api_key = d.api_key"
        "  AND f.organization_id = d.organization_id AND f.folder_id = d.folder_id"
        " WHERE d.api_key = $1 AND d.organization_id = $2 AND d.document_id = ANY($3::text[])",
        api_key,
        organization_id,
        document_ids,
    )
    return {
        r["document_id"]: DocumentRow(r["document_id"], r["access_type"], r["folder_id"])
        for r in rows
    }


async def folders_with_ancestors(
    conn: Connection | Pool, api_key: str, organization_id: str, folder_ids: list[str]
) -> dict[str, FolderRow]:
    """The folders asked for and every ancestor of theirs."""
    rows = await conn.fetch(
        "WITH asked AS ("
        "  SELECT folder_id, ancestors FROM identity.folder"
        "  WHERE api_key = $1 AND organization_id = $2 AND folder_id = ANY($3::text[]))"
        " SELECT f.folder_id, f.ancestors, f.inherit_from_parent, f.effective_access_type"
        " FROM identity.folder f"
        " WHERE f.api_key = $1 AND f.organization_id = $2"
        "   AND (f.folder_id = ANY($3::text[])"
        "        OR f.folder_id IN (SELECT unnest(ancestors) FROM asked))",
        api_key,
        organization_id,
        folder_ids,
    )
    return {
        r["folder_id"]: FolderRow(
            r["folder_id"],
            list(r["ancestors"]),
            r["inherit_from_parent"],
            r["effective_access_type"],
        )
        for r in rows
    }


async def live_grants(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    user_ids: list[str],
    document_ids: list[str],
    folder_ids: list[str],
) -> list[LiveGrant]:
    """The users' live grants on the organization and on those documents and folders."""
    rows = await conn.fetch(
        "SELECT g.user_id, g.resource_type, g.resource_id, g.access_role, g.expires_at"
        " FROM identity.access_grant g"
        " WHERE g.api_key = $1 AND g.organization_id = $2 AND g.user_id = ANY($3::text[])"
        "   AND (g.expires_at IS NULL OR g.expires_at > now())"
        "   AND ((g.resource_type = 'organization' AND g.resource_id = $2)"
        "     OR (g.resource_type = 'document' AND g.resource_id = ANY($4::text[]))"
        "     OR (g.resource_type = 'folder' AND g.resource_id = ANY($5::text[])))",
        api_key,
        organization_id,
        user_ids,
        document_ids,
        folder_ids,
    )
    return [
        LiveGrant(
            r["user_id"], r["resource_type"], r["resource_id"], r["access_role"], r["expires_at"]
        )
        for r in rows
    ]


# One statement: the document and its folder chain (nearest first, with each folder's inherit
# flag), and the user's live grants on the organization, the document and those folders.
#
# While a migration moves a document, each service moves its data at its own moment, so data can
# sit under either id while identity's row is under the other: a question about an id identity
# has no row for is answered with the row of its counterpart in an unfinished migration (the new
# id's for the old, the old id's for the new), so it is never taken for an unknown, default-access
# document.
_FACTS = """
WITH target AS (
    SELECT coalesce(
        (SELECT d.document_id FROM identity.document d
          WHERE d.api_key = $1 AND d.organization_id = $2 AND d.document_id = $3),
        (SELECT CASE WHEN m.new_document_id = $3 THEN m.document_id ELSE m.new_document_id END
           FROM identity.document_migration m
          WHERE m.api_key = $1 AND m.organization_id = $2
            AND (m.new_document_id = $3 OR m.document_id = $3)
            AND m.status IN ('pending', 'in_progress')
          LIMIT 1),
        $3) AS document_id
),
doc AS (
    SELECT d.access_type, d.folder_id, f.effective_access_type AS folder_access,
           coalesce(f.ancestors, '{}') AS ancestors
    FROM identity.document d
    LEFT JOIN identity.folder f
      ON f.api_key = d.api_key AND f.organization_id = d.organization_id
     AND f.folder_id = d.folder_id
    WHERE d.api_key = $1 AND d.organization_id = $2
      AND d.document_id = (SELECT document_id FROM target)
),
chain AS (
    SELECT c.folder_id, c.position
    FROM doc,
         unnest(array_prepend(doc.folder_id, (SELECT array_agg(a ORDER BY o DESC)
                FROM unnest(doc.ancestors) WITH ORDINALITY AS x(a, o))))
         WITH ORDINALITY AS c(folder_id, position)
    WHERE c.folder_id IS NOT NULL
)
SELECT
    (SELECT coalesce(access_type, folder_access) FROM doc) AS access_type,
    (SELECT coalesce(array_agg(ARRAY[f.folder_id, f.inherit_from_parent::text]
                               ORDER BY chain.position), '{}')
       FROM chain JOIN identity.folder f
         ON f.api_key = $1 AND f.organization_id = $2 AND f.folder_id = chain.folder_id
    ) AS folders,
    (SELECT coalesce(array_agg(ARRAY[g.resource_type,
                                     CASE WHEN g.resource_type = 'document' THEN $3
                                          ELSE g.resource_id END,
                                     g.access_role]), '{}')
       FROM identity.access_grant g
      WHERE g.api_key = $1 AND g.organization_id = $2 AND g.user_id = $4
        AND (g.expires_at IS NULL OR g.expires_at > now())
        AND ((g.resource_type = 'organization' AND g.resource_id = $2)
          OR (g.resource_type = 'document'
              AND g.resource_id IN ($3, (SELECT document_id FROM target)))
          OR (g.resource_type = 'folder'
              AND g.resource_id IN (SELECT folder_id FROM chain)))
    ) AS grants
"""


async def access_facts(
    conn: Connection | Pool, api_key: str, organization_id: str, document_id: str, user_id: str
) -> AccessFacts:
    row = await conn.fetchrow(_FACTS, api_key, organization_id, document_id, user_id)
    assert row is not None
    return AccessFacts(
        organization_id=organization_id,
        document_id=document_id,
        access_type=row["access_type"],
        folders=[FolderLink(f[0], f[1] == "true") for f in row["folders"]],
        grants={(g[0], g[1]): g[2] for g in row["grants"]},
    )
