"""A caller's rights to a document's annotations: the document a write goes to (made when the
request asks), the right to write it, whom a user token may act as, and which annotations the
caller may see (a change finds only those, `changes.changing`).

Nobody writes a disabled document or a document of a disabled organization (it is read-only,
`redline.runtime.disable_state`). Otherwise the key's own auth token (no user) is the trusted
server: it writes any document, as anyone, and sees everything. A user token writes only
documents it is an editor of, only as its own user, and only annotations it may see
(`visibility.may_see`).
"""

from __future__ import annotations

from typing import Protocol

from redline.comments.shared.models import NewDocument, NewOrganization
from redline.comments.shared.storage import AnnotationRow
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.proto.rpc import AccessDecision, EnsureDocument
from redline.runtime import visibility
from redline.runtime.access import AccessClient
from redline.runtime.known_documents import KnownDocuments

ANNOTATION_NOT_FOUND = "Annotation not found."


class AddsTo(Protocol):
    """A request that adds to a document, which identity makes when asked."""

    @property
    def organizationId(self) -> str: ...
    @property
    def documentId(self) -> str: ...
    @property
    def createOrganization(self) -> bool | NewOrganization: ...
    @property
    def createDocument(self) -> bool | NewDocument: ...


async def ensure_document(
    documents: KnownDocuments, caller: ApiKeyPrincipal, request: AddsTo
) -> None:
    """Identity answers NOT_FOUND for a missing organization or document unless the request
    asks for it to be created: `true`, or the object form, which also names it. A document
    identity answered for a moment ago is not asked about again (`KnownDocuments`)."""
    organization, document = request.createOrganization, request.createDocument
    await documents.ensure(
        EnsureDocument(
            apiKey=caller.api_key,
            organizationId=request.organizationId,
            documentId=request.documentId,
            createOrganization=organization is not False,
            createDocument=document is not False,
            organizationName=""
            if isinstance(organization, bool)
            else organization.organizationName,
            documentName="" if isinstance(document, bool) else document.documentName,
        )
    )


async def require_write(
    access: AccessClient, caller: ApiKeyPrincipal, organization_id: str, document_id: str
) -> AccessDecision | None:
    """Every write of comments passes here. FAILED_PRECONDITION when the organization or the
    document is disabled (read-only), whoever asks; then PERMISSION_DENIED unless a user-token
    caller is an editor of the document. None for the key's own auth token."""
    await access.require_writable(caller.api_key, organization_id, document_id)
    if caller.user_id is None:
        return None
    return await access.require(caller, organization_id, document_id, write=True)


async def admit_authors(
    access: AccessClient,
    caller: ApiKeyPrincipal,
    organization_id: str,
    document_id: str,
    authors: list[tuple[str, str]],
) -> AccessDecision | None:
    """A user token adds comments only as its own user (each of `authors`, a field path and the
    user id there), with `editor` on the document; nobody adds to a disabled one."""
    if caller.user_id is None:
        return await require_write(access, caller, organization_id, document_id)
    for path, user_id in authors:
        if user_id != caller.user_id:
            raise PermissionDenied(
                "A user token adds comments only as its own user.",
                details={
                    "issues": [
                        {
                            "code": "permission_denied",
                            "path": path,
                            "message": "Must be the token's user.",
                        }
                    ]
                },
            )
    return await require_write(access, caller, organization_id, document_id)


async def verify_authors(
    access: AccessClient,
    caller: ApiKeyPrincipal,
    organization_id: str,
    document_id: str,
    authors: list[tuple[str, str]],
) -> None:
    """`verifyUserPermissions`: before anything is written, every author of the request (each
    of `authors`, a field path and the user id there) must have a role on the document (as
    access control or the key's permission provider says; a public document admits everyone).
    One without rejects the whole request, PERMISSION_DENIED naming each such author."""
    roles: dict[str, bool] = {}
    for _, user_id in authors:
        if user_id not in roles:
            decision = await access.check(caller.api_key, organization_id, document_id, user_id)
            roles[user_id] = decision.role is not None
    refused = [
        {"code": "permission_denied", "path": path, "message": "No access to the document."}
        for path, user_id in authors
        if not roles[user_id]
    ]
    if refused:
        raise PermissionDenied(
            "The user has no access to this document.", details={"issues": refused}
        )


def acting_as(caller: ApiKeyPrincipal, user_id: str | None, path: str) -> None:
    """A user token acts only as its own user: a different `from`/`user` is refused."""
    own = caller.user_id
    if own is not None and user_id is not None and user_id != own:
        raise PermissionDenied(f"{path}: a user token acts only as its own user.")


def may_see(row: AnnotationRow, user_id: str, decision: AccessDecision) -> bool:
    """Whether a user with document access `decision` may see the annotation at all."""
    if decision.role is None:
        return False
    return visibility.may_see(
        user_id,
        visibility=row.visibility,
        creator_user_id=row.creator_user_id,
        assigned_user_id=row.assigned_user_id,
        visible_to=row.visible_to,
        via_public=decision.via == "public",
    )


def visible(caller: ApiKeyPrincipal, row: AnnotationRow, decision: AccessDecision | None) -> bool:
    """Annotations a user cannot see are, to that user, not there."""
    if decision is None or caller.user_id is None:
        return True
    return may_see(row, caller.user_id, decision)
