"""SQL of folders. `ancestors` lists a folder's ancestors root first (the folder itself excluded),
so a subtree is `ancestors @> {id}` (GIN-indexed) and a move rewrites one array prefix.
`effective_access_type` is stored, and recomputed here for a whole subtree whenever something
above it changes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from redline.pg import Connection, Pool


class FolderRow(msgspec.Struct, frozen=True):
    folder_id: str
    name: str
    parent_folder_id: str | None
    ancestors: list[str]
    access_type: str | None
    inherit_from_parent: bool
    effective_access_type: str
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime


class NewFolderRow(msgspec.Struct, frozen=True):
    folder_id: str
    name: str
    parent_folder_id: str | None
    ancestors: list[str]
    access_type: str | None
    inherit_from_parent: bool
    effective_access_type: str
    metadata: dict[str, Any]


def _row(r: asyncpg.Record) -> FolderRow:
    return FolderRow(
        r["folder_id"],
        r["name"],
        r["parent_folder_id"],
        list(r["ancestors"]),
        r["access_type"],
        r["inherit_from_parent"],
        r["effective_access_type"],
        r["metadata"],
        r["created_at"],
        r["updated_at"],
    )


async def get_folder(
    conn: Connection | Pool, api_key: str, organization_id: str, folder_id: str
) -> FolderRow | None:
    row = await conn.fetchrow(
        "SELECT folder_id, name, parent_folder_id, ancestors, access_type, inherit_from_parent,"
        " effective_access_type, metadata, created_at, updated_at FROM identity.folder"
        " WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3",
        api_key,
        organization_id,
        folder_id,
    )
    return None if row is None else _row(row)


async def insert_folder(
    conn: Connection, api_key: str, organization_id: str, folder: NewFolderRow
) -> FolderRow | None:
    """None when a folder with this id exists already in the organization."""
    row = await conn.fetchrow(
        "INSERT INTO identity.folder (api_key, organization_id, folder_id, name,"
        " parent_folder_id, ancestors, access_type, inherit_from_parent, effective_access_type,"
        " metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        " ON CONFLICT DO NOTHING RETURNING folder_id, name, parent_folder_id, ancestors,"
        " access_type, inherit_from_parent, effective_access_type, metadata, created_at,"
        " updated_at",
        api_key,
        organization_id,
        folder.folder_id,
        folder.name,
        folder.parent_folder_id,
        folder.ancestors,
        folder.access_type,
        folder.inherit_from_parent,
        folder.effective_access_type,
        folder.metadata,
    )
    return None if row is None else _row(row)


async def update_folder(
    conn: Connection,
    api_key: str,
    organization_id: str,
    folder_id: str,
    name: str | None,
    metadata_patch: dict[str, Any] | None,
) -> FolderRow | None:
    row = await conn.fetchrow(
        "UPDATE identity.folder SET name = coalesce($4, name),"
        " metadata = CASE WHEN $5::jsonb IS NULL THEN metadata ELSE"
        " (SELECT coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb)"
        " FROM jsonb_each(metadata || $5::jsonb) AS m WHERE m.value <> 'null'::jsonb) END,"
        " updated_at = now() WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3"
        " RETURNING folder_id, name, parent_folder_id, ancestors, access_type,"
        " inherit_from_parent, effective_access_type, metadata, created_at, updated_at",
        api_key,
        organization_id,
        folder_id,
        name,
        metadata_patch,
    )
    return None if row is None else _row(row)


async def subtree_height(
    conn: Connection, api_key: str, organization_id: str, folder_id: str, depth: int
) -> int:
    """Levels of subfolders under a folder that has `depth` ancestors (0: it has none)."""
    deepest = await conn.fetchval(
        "SELECT max(cardinality(ancestors)) FROM identity.folder"
        " WHERE api_key = $1 AND organization_id = $2 AND ancestors @> ARRAY[$3::text]",
        api_key,
        organization_id,
        folder_id,
    )
    return 0 if deepest is None else int(deepest) - depth


async def move_folder(
    conn: Connection,
    api_key: str,
    organization_id: str,
    folder_id: str,
    parent_folder_id: str | None,
    ancestors: list[str],
    old_depth: int,
) -> None:
    """Put the folder under a new parent with its new `ancestors`; every folder below it keeps
    its path under the folder and takes the new prefix above it."""
    await conn.execute(
        "UPDATE identity.folder SET parent_folder_id = $4, ancestors = $5, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3",
        api_key,
        organization_id,
        folder_id,
        parent_folder_id,
        ancestors,
    )
    # A descendant's ancestors are (old prefix of `old_depth` entries, the folder, the rest).
    await conn.execute(
        "UPDATE identity.folder SET ancestors = $4::text[] || ancestors[$5 + 1:],"
        " updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND ancestors @> ARRAY[$3::text]",
        api_key,
        organization_id,
        folder_id,
        ancestors,
        old_depth,
    )


async def set_folder_access(
    conn: Connection,
    api_key: str,
    organization_id: str,
    folder_id: str,
    access_type: str | None,
    inherit_from_parent: bool,
) -> None:
    await conn.execute(
        "UPDATE identity.folder SET access_type = $4, inherit_from_parent = $5,"
        " updated_at = now() WHERE api_key = $1 AND organization_id = $2 AND folder_id = $3",
        api_key,
        organization_id,
        folder_id,
        access_type,
        inherit_from_parent,
    )


# The folder takes its parent's effective access type when it inherits (the default at the
# root), else its own; each folder below it then likewise from its own parent, down the tree.
_RECOMPUTE = """
WITH RECURSIVE tree (folder_id, effective) AS (
    SELECT f.folder_id,
           CASE WHEN f.inherit_from_parent THEN coalesce(p.effective_access_type, $4)
                ELSE coalesce(f.access_type, $4) END
    FROM identity.folder f
    LEFT JOIN identity.folder p
      ON p.api_key = f.api_key AND p.organization_id = f.organization_id
     AND p.folder_id = f.parent_folder_id
    WHERE f.api_key = $1 AND f.organization_id = $2 AND f.folder_id = $3
    UNION ALL
    SELECT c.folder_id,
           CASE WHEN c.inherit_from_parent THEN t.effective ELSE coalesce(c.access_type, $4) END
    FROM tree t
    JOIN identity.folder c
      ON c.api_key = $1 AND c.organization_id = $2 AND c.parent_folder_id = t.folder_id
)
UPDATE identity.folder f SET effective_access_type = tree.effective
FROM tree
WHERE f.api_key = $1 AND f.organization_id = $2 AND f.folder_id = tree.folder_id
  AND f.effective_access_type <> tree.effective
"""


async def recompute_effective_access(
    conn: Connection, api_key: str, organization_id: str, folder_id: str, default: str
) -> int:
    """Recompute the effective access type of a folder and everything under it; returns how
    many folders changed."""
    status = await conn.execute(_RECOMPUTE, api_key, organization_id, folder_id, default)
    return int(status.split()[-1])


async def folder_tree(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    top: FolderRow | None,
    max_depth: int | None,
    limit: int,
) -> list[FolderRow]:
    """`top` and the folders under it (every folder of the organization when None), down to
    `max_depth` levels below it (below the root level when None), parents before children."""
    if top is None:
        rows = await conn.fetch(
            "SELECT folder_id, name, parent_folder_id, ancestors, access_type,"
            " inherit_from_parent, effective_access_type, metadata, created_at, updated_at"
            " FROM identity.folder WHERE api_key = $1 AND organization_id = $2"
            " AND ($3::int IS NULL OR cardinality(ancestors) <= $3)"
            " ORDER BY cardinality(ancestors), created_at, folder_id LIMIT $4",
            api_key,
            organization_id,
            max_depth,
            limit,
        )
    else:
        rows = await conn.fetch(
            "SELECT folder_id, name, parent_folder_id, ancestors, access_type,"
            " inherit_from_parent, effective_access_type, metadata, created_at, updated_at"
            " FROM identity.folder WHERE api_key = $1 AND organization_id = $2"
            " AND (folder_id = $3 OR ancestors @> ARRAY[$3::text])"
            " AND ($4::int IS NULL OR cardinality(ancestors) <= $5 + $4)"
            " ORDER BY cardinality(ancestors), created_at, folder_id LIMIT $6",
            api_key,
            organization_id,
            top.folder_id,
            max_depth,
            len(top.ancestors),
            limit,
        )
    return [_row(r) for r in rows]


_DELETE_TREE = """
WITH doomed AS (
    SELECT folder_id FROM identity.folder
    WHERE api_key = $1 AND organization_id = $2
      AND (folder_id = $3 OR ancestors @> ARRAY[$3::text])
),
documents AS (
    DELETE FROM identity.document d
    WHERE d.api_key = $1 AND d.organization_id = $2
      AND d.folder_id IN (SELECT folder_id FROM doomed)
    RETURNING d.document_id
),
grants AS (
    DELETE FROM identity.access_grant g
    WHERE g.api_key = $1 AND g.organization_id = $2
      AND ((g.resource_type = 'folder' AND g.resource_id IN (SELECT folder_id FROM doomed))
        OR (g.resource_type = 'document'
            AND g.resource_id IN (SELECT document_id FROM documents)))
),
folders AS (
    DELETE FROM identity.folder f
    WHERE f.api_key = $1 AND f.organization_id = $2
      AND f.folder_id IN (SELECT folder_id FROM doomed)
    RETURNING f.folder_id
)
SELECT (SELECT coalesce(array_agg(folder_id ORDER BY folder_id), '{}') FROM folders) AS folders,
       (SELECT coalesce(array_agg(document_id ORDER BY document_id), '{}') FROM documents)
           AS documents
"""


async def delete_folder_tree(
    conn: Connection, api_key: str, organization_id: str, folder_id: str
) -> tuple[list[str], list[str]]:
    """Delete the folder, its subfolders, their documents and every grant on any of them, in one
    statement; returns the ids of the folders and of the documents that went."""
    row = await conn.fetchrow(_DELETE_TREE, api_key, organization_id, folder_id)
    assert row is not None
    return list(row["folders"]), list(row["documents"])


async def default_access_is_stale(conn: Connection | Pool, others: Sequence[str]) -> bool:
    """Whether any inheriting root folder holds an effective access type other than the
    current default (`others`: every access type but the default)."""
    found = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM identity.folder WHERE parent_folder_id IS NULL"
        " AND inherit_from_parent AND effective_access_type = ANY($1::text[]))",
        list(others),
    )
    return bool(found)


_RECONCILE = """
WITH RECURSIVE tree (api_key, organization_id, folder_id) AS (
    SELECT api_key, organization_id, folder_id FROM identity.folder
    WHERE parent_folder_id IS NULL AND inherit_from_parent
    UNION ALL
    SELECT c.api_key, c.organization_id, c.folder_id
    FROM tree t
    JOIN identity.folder c
      ON c.api_key = t.api_key AND c.organization_id = t.organization_id
     AND c.parent_folder_id = t.folder_id
    WHERE c.inherit_from_parent
),
changed AS (
    UPDATE identity.folder f SET effective_access_type = $1
    FROM tree
    WHERE f.api_key = tree.api_key AND f.organization_id = tree.organization_id
      AND f.folder_id = tree.folder_id AND f.effective_access_type <> $1
    RETURNING f.api_key, f.organization_id
)
SELECT DISTINCT k.workspace_id, c.api_key, c.organization_id
FROM changed c JOIN identity.api_key k ON k.api_key = c.api_key
"""


async def apply_default_access(conn: Connection, default: str) -> list[tuple[str, str, str]]:
    """Give every folder whose access comes from the default (inheriting all the way up to an
    inheriting root folder) the current default; returns the (workspace, API key,
    organization) of each organization where something changed."""
    rows = await conn.fetch(_RECONCILE, default)
    return [(r["workspace_id"], r["api_key"], r["organization_id"]) for r in rows]
