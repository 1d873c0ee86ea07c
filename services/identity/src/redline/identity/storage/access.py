"""SQL of the access model: gathering the facts of one access decision in one round trip."""

from __future__ import annotations

from redline.identity.service.access_model import AccessFacts, FolderLink
from redline.pg import Connection, Pool

# One statement: the document and its folder chain (nearest first, with each folder's inherit
# flag), and the user's live grants on the organization, the document and those folders.
_FACTS = """
WITH doc AS (
    SELECT d.access_type, d.folder_id, f.effective_access_type AS folder_access,
           coalesce(f.ancestors, '{}') AS ancestors
    FROM identity.document d
    LEFT JOIN identity.folder f
      ON f.api_key = d.api_key AND f.organization_id = d.organization_id
     AND f.folder_id = d.folder_id
    WHERE d.api_key = $1 AND d.organization_id = $2 AND d.document_id = $3
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
    (SELECT coalesce(array_agg(ARRAY[g.resource_type, g.resource_id, g.access_role]), '{}')
       FROM identity.access_grant g
      WHERE g.api_key = $1 AND g.organization_id = $2 AND g.user_id = $4
        AND (g.expires_at IS NULL OR g.expires_at > now())
        AND ((g.resource_type = 'organization' AND g.resource_id = $2)
          OR (g.resource_type = 'document' AND g.resource_id = $3)
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
