"""Reading users: users/get's answer for a user, its listing with `allDocuments` (users with a
live grant on some document of the organization, instead of the members at one level), and the
checks and answers of users/doc/get.

- Without `groupByDocumentId`, each such user once, by user id, without `accessRole` (their
  roles differ per document; `includeInvolvedDocuments` lists them).
- With it, `data` is an object keyed by document id, each a list of that document's users with
  their role there, by user id. A page holds at most `pageSize` (document, user) pairs, in
  document then user order, so one document's users may go on over the next page.
"""

from __future__ import annotations

import msgspec

from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.users import all_documents_storage, models, storage
from redline.pg import Pool

_USERS_KIND = "usersalldocs"
_PAIRS_KIND = "usersbydoc"


class _UserCursor(msgspec.Struct, array_like=True):
    after_user_id: str


class _PairCursor(msgspec.Struct, array_like=True):
    after_document_id: str
    after_user_id: str


def check_all_documents(request: models.GetUsers) -> None:
    if request.groupByDocumentId and not request.allDocuments:
        raise InvalidArgument.field(
            "data.groupByDocumentId", "groupByDocumentId works with allDocuments."
        )
    if request.allDocuments and (request.documentId is not None or request.folderId is not None):
        raise InvalidArgument.field(
            "data.allDocuments", "Give documentId, folderId or allDocuments, not two of them."
        )


def user_out(
    row: storage.Member,
    request: models.GetUsers,
    involved: dict[str, list[tuple[str, str]]],
) -> models.UserOut:
    grants = involved.get(row.user_id, [])
    return models.UserOut(
        userId=row.user_id,
        name=row.name,
        email=row.email,
        initial=row.initial,
        accessRole=row.access_role or None,
        photoUrl=row.metadata.get("photoUrl"),
        color=row.metadata.get("color"),
        textColor=row.metadata.get("textColor"),
        involvedDocuments=[models.InvolvedDocument(documentId=d, accessRole=r) for d, r in grants]
        if request.includeInvolvedDocuments
        else None,
        involvedDocumentsCount=len(grants) if request.includeInvolvedDocumentsCount else None,
    )


async def involved_documents(
    pool: Pool, caller: ApiKeyPrincipal, request: models.GetUsers, user_ids: list[str]
) -> dict[str, list[tuple[str, str]]]:
    """Each user's document grants, when the request asks for them."""
    if not (request.includeInvolvedDocuments or request.includeInvolvedDocumentsCount):
        return {}
    return await storage.document_grants(
        pool, caller.api_key, request.organizationId, sorted(set(user_ids))
    )


async def all_documents_page(
    pool: Pool, pages: PageTokens, caller: ApiKeyPrincipal, request: models.GetUsers
) -> Reply[models.UserList | models.GroupedUsers]:
    """The organization exists (the caller checked)."""
    narrowing = (request.userIds, request.organizationUserGroupIds, request.searchKey)
    size = request.pageSize
    if not request.groupByDocumentId:
        after = ""
        if request.pageToken:
            after = pages.decode(
                caller.workspace_id, _USERS_KIND, request.pageToken, _UserCursor
            ).after_user_id
        rows = await all_documents_storage.document_users_narrowed(
            pool, caller.api_key, request.organizationId, narrowing, after, size + 1
        )
        token = None
        if len(rows) > size:
            rows = rows[:size]
            token = pages.encode(caller.workspace_id, _USERS_KIND, _UserCursor(rows[-1].user_id))
        involved = await involved_documents(pool, caller, request, [r.user_id for r in rows])
        users = [user_out(r, request, involved) for r in rows]
        return paged(users, token, also_as_page_token=True)
    position = ("", "")
    if request.pageToken:
        cursor = pages.decode(caller.workspace_id, _PAIRS_KIND, request.pageToken, _PairCursor)
        position = (cursor.after_document_id, cursor.after_user_id)
    pairs = await all_documents_storage.document_members_page(
        pool, caller.api_key, request.organizationId, narrowing, position, size + 1
    )
    pair_token = None
    if len(pairs) > size:
        pairs = pairs[:size]
        last = pairs[-1]
        pair_token = pages.encode(
            caller.workspace_id, _PAIRS_KIND, _PairCursor(last.document_id, last.member.user_id)
        )
    involved = await involved_documents(pool, caller, request, [p.member.user_id for p in pairs])
    grouped: models.GroupedUsers = {}
    for pair in pairs:
        grouped.setdefault(pair.document_id, []).append(user_out(pair.member, request, involved))
    return paged(grouped, pair_token, also_as_page_token=True)


# users/doc/get ------------------------------------------------------------------------------


def check_involved_lookup(user_ids: list[str] | None) -> None:
    if user_ids is None:
        raise InvalidArgument.field(
            "data.userIds", "includeInvolvedDocuments needs userIds.", code="missing_field"
        )
    if len(user_ids) > models.MAX_DOC_USER_IDS_INVOLVED:
        raise InvalidArgument.field(
            "data.userIds",
            f"With includeInvolvedDocuments, give at most {models.MAX_DOC_USER_IDS_INVOLVED}"
            " userIds.",
        )


def doc_user(row: storage.Member, grants: list[tuple[str, str]] | None) -> models.DocUser:
    return models.DocUser(
        userId=row.user_id,
        name=row.name,
        email=row.email,
        initial=row.initial,
        photoUrl=row.metadata.get("photoUrl"),
        color=row.metadata.get("color"),
        textColor=row.metadata.get("textColor"),
        involvedDocuments=None
        if grants is None
        else [models.InvolvedDocument(documentId=d, accessRole=role) for d, role in grants],
    )
