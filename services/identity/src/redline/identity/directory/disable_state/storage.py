"""SQL of disable states: setting them, and reading them for the rule that disabled
organizations and documents are read-only. Keyed by API key first, like the rest of the
directory."""

from __future__ import annotations

import msgspec

from redline.pg import Connection, Pool


class SetOrganization(msgspec.Struct, frozen=True):
    organization_id: str
    created: bool


async def set_organizations_disabled(
    conn: Connection, api_key: str, organization_ids: list[str], disabled: bool
) -> list[SetOrganization]:
    """Set the state; an organization that does not exist is created with it (as the hosted
    product's reference says)."""
    rows = await conn.fetch(
        "INSERT INTO identity.organization (api_key, organization_id, disabled)"
        " SELECT $1, id, $3 FROM unnest($2::text[]) AS id"
        " ON CONFLICT (api_key, organization_id)"
        " DO UPDATE SET disabled = EXCLUDED.disabled, updated_at = now()"
        " RETURNING organization_id, (xmax = 0) AS created",
        api_key,
        organization_ids,
        disabled,
    )
    return [SetOrganization(r["organization_id"], r["created"]) for r in rows]


async def set_documents_disabled(
    conn: Connection, api_key: str, organization_id: str, document_ids: list[str], disabled: bool
) -> list[str]:
    """Set the state of the documents that exist; returns their ids."""
    rows = await conn.fetch(
        "UPDATE identity.document SET disabled = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = ANY($3::text[])"
        " RETURNING document_id",
        api_key,
        organization_id,
        document_ids,
        disabled,
    )
    return [r["document_id"] for r in rows]


class Disabled(msgspec.Struct, frozen=True):
    organization: bool
    # The first of the documents asked about that is disabled; None when none is.
    document_id: str | None


async def disabled_among(
    conn: Connection | Pool, api_key: str, organization_id: str, document_ids: list[str]
) -> Disabled:
    """Whether the organization is disabled, and which of `document_ids` in it is. A missing
    organization or document is not disabled."""
    row = await conn.fetchrow(
        "SELECT o.disabled,"
        " (SELECT min(d.document_id) FROM identity.document d"
        "  WHERE d.api_key = o.api_key AND d.organization_id = o.organization_id"
        "  AND d.document_id = ANY($3::text[]) AND d.disabled) AS document_id"
        " FROM identity.organization o WHERE o.api_key = $1 AND o.organization_id = $2",
        api_key,
        organization_id,
        document_ids,
    )
    if row is None:
        return Disabled(False, None)
    return Disabled(bool(row["disabled"]), row["document_id"])
