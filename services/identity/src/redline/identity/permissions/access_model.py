"""The access model: one user's effective role on one document.

In order, the first that applies wins:
1. an explicit grant on the document;
2. a grant on its folder, then on each ancestor folder, nearest first, climbing only while the
   folder inherits from its parent (`inheritFromParent`);
3. organization membership, unless the document's access type is `restricted`;
4. a `public` document admits every user of the API key as `editor`.
`viewer` may read, `editor` may read and write. Expired grants never count.
"""

from __future__ import annotations

import msgspec

from redline.identity.fields import AccessType, Role

ROLE_RANK: dict[str, int] = {"viewer": 1, "editor": 2}


class FolderLink(msgspec.Struct, frozen=True, array_like=True):
    folder_id: str
    inherit_from_parent: bool


class AccessFacts(msgspec.Struct, frozen=True):
    """What the database knows that bears on one user's access to one document."""

    organization_id: str
    document_id: str
    # The document's own access type, else its folder's effective one; None if neither is set.
    access_type: AccessType | None
    # The document's folder first, then its ancestors nearest first.
    folders: list[FolderLink]
    # Live (unexpired) grants of the user in the organization: (resource type, id) -> role.
    grants: dict[tuple[str, str], Role]


class Decision(msgspec.Struct, frozen=True):
    role: Role | None
    access_type: AccessType
    # Which rule decided: document, folder, organization, public, or none.
    via: str


def stronger(a: Role | None, b: Role | None) -> Role | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if ROLE_RANK[a] >= ROLE_RANK[b] else b


def with_token_grants(
    grants: dict[tuple[str, str], Role], token_grants: dict[tuple[str, str], str]
) -> dict[tuple[str, str], Role]:
    """`grants` plus those a user token carries; where both name a resource the stronger wins.
    Token entries with a role other than viewer or editor are ignored."""
    merged = dict(grants)
    for key, role in token_grants.items():
        if role == "viewer":
            merged[key] = stronger(merged.get(key), "viewer") or "viewer"
        elif role == "editor":
            merged[key] = "editor"
    return merged


def decide(facts: AccessFacts, default_access_type: AccessType) -> Decision:
    access_type: AccessType = facts.access_type or default_access_type
    grants = facts.grants
    role = grants.get(("document", facts.document_id))
    if role is not None:
        return Decision(role, access_type, "document")
    for link in facts.folders:
        role = grants.get(("folder", link.folder_id))
        if role is not None:
            return Decision(role, access_type, "folder")
        if not link.inherit_from_parent:
            break
    if access_type != "restricted":
        role = grants.get(("organization", facts.organization_id))
        if role is not None:
            return Decision(role, access_type, "organization")
    if access_type == "public":
        return Decision("editor", access_type, "public")
    return Decision(None, access_type, "none")
