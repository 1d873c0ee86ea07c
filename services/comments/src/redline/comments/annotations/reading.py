"""Reading annotations: `/v2/commentannotations/get` and `/v2/commentannotations/count/get`.

- Callers with the API key's own auth token are the trusted server and see everything of the
  organization. A user token sees only documents it has a role on (identity's access check),
  and in them the annotations `redline.runtime.visibility` lets it see.
- A user token's get marks the annotations it returns as viewed by that user; count/get's
  `unread` counts annotations the user has neither written nor viewed.
- Without documentId/documentIds/folderId a user token's get covers the organization's documents
  that hold annotations, up to MAX_DOCUMENTS_PER_USER_READ of them, each checked.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from redline.bus import Bus, rpc
from redline.comments.annotations import models, storage
from redline.comments.shared.models import own_agent_source
from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, Issue, OutOfRange, PermissionDenied
from redline.pg import Pool
from redline.pg.pages import has_more
from redline.proto.rpc import AccessDecision, FolderDocuments, ListFolderDocuments
from redline.proto.subjects import RPC_DOCUMENTS_IN_FOLDER
from redline.runtime.access import AccessClient

_PAGE_KIND = "comments.annotations"
MAX_DOCUMENTS_PER_USER_READ = 1000
MAX_FOLDER_DOCUMENTS = 10_000
ACCESS_CHECKS_AT_ONCE = 32


class _Cursor(msgspec.Struct, array_like=True):
    organization_id: str
    descending: bool
    last_updated: int
    annotation_id: str


class ReadService:
    def __init__(
        self,
        pool: Pool,
        access: AccessClient,
        bus: Bus,
        page_tokens: PageTokens,
        default_page_size: int,
        page_byte_budget: int,
    ) -> None:
        self._pool = pool
        self._access = access
        self._bus = bus
        self._tokens = page_tokens
        self._default_page_size = default_page_size
        self._page_byte_budget = page_byte_budget

    # get ------------------------------------------------------------------------------------

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetAnnotations
    ) -> Reply[models.AnnotationList | models.GroupedAnnotations]:
        """The page (a list, or lists by document id) and the next page's token, if any."""
        agent_filters = request.agent_filters()
        if len(agent_filters) > 1:
            raise InvalidArgument.from_issues(
                [
                    Issue("invalid_value", f"data.{name}", "Use at most one agent filter.")
                    for name in agent_filters
                ],
                message=f"At most one agent filter per request; got {', '.join(agent_filters)}.",
            )
        query = annotation_query(caller.api_key, request, await self._documents(caller, request))
        if caller.user_id is not None:
            query.document_ids, query.viewer = await self._viewer(
                caller, request.organizationId, query.document_ids
            )
        if query.document_ids == []:
            return paged(_shape(request, [None for _ in request.annotationIds or []]), None)
        if request.annotationIds is not None:
            # At most 30 ids: one answer, in request order, null where nothing matched.
            rows = await storage.select_annotations(self._pool, query)
            found = {r["annotation_id"]: r for r in rows}
            return paged(_shape(request, [found.get(i) for i in request.annotationIds]), None)
        query.limit = (request.pageSize or self._default_page_size) + 1
        query.byte_budget = self._page_byte_budget
        if request.pageToken is not None:
            query.after = self._decode_token(caller, request)
        rows = await storage.select_annotations(self._pool, query)
        next_token = None
        if has_more(rows):
            last = rows[-1]
            cursor = _Cursor(
                request.organizationId,
                query.descending,
                last["last_updated"],
                last["annotation_id"],
            )
            next_token = self._tokens.encode(caller.workspace_id, _PAGE_KIND, cursor)
        return paged(_shape(request, rows), next_token)

    def _decode_token(
        self, caller: ApiKeyPrincipal, request: models.GetAnnotations
    ) -> storage.Cursor:
        assert request.pageToken is not None
        cursor = self._tokens.decode(caller.workspace_id, _PAGE_KIND, request.pageToken, _Cursor)
        if cursor.organization_id != request.organizationId or cursor.descending != (
            request.order == "desc"
        ):
            raise InvalidArgument.field(
                "data.pageToken", "The page token belongs to another query."
            )
        return storage.Cursor(cursor.last_updated, cursor.annotation_id)

    async def _documents(
        self, caller: ApiKeyPrincipal, request: models.GetAnnotations
    ) -> list[str] | None:
        """The documents the request names (None: all of them)."""
        named: list[str] | None = None
        if request.documentId is not None or request.documentIds is not None:
            named = list(
                dict.fromkeys(
                    [
                        *([request.documentId] if request.documentId else []),
                        *(request.documentIds or []),
                    ]
                )
            )
        if request.folderId is None:
            return named
        listed = await rpc.call(
            self._bus.nc,
            RPC_DOCUMENTS_IN_FOLDER,
            ListFolderDocuments(
                caller.api_key, request.organizationId, request.folderId, MAX_FOLDER_DOCUMENTS
            ),
            FolderDocuments,
        )
        if named is None:
            return listed.documentIds
        in_folder = set(listed.documentIds)
        return [d for d in named if d in in_folder]

    async def _viewer(
        self, caller: ApiKeyPrincipal, organization_id: str, documents: list[str] | None
    ) -> tuple[list[str], storage.Viewer]:
        """The documents (of `documents`, else of the organization) the user may read, and what
        the user may see in them; see the module docstring."""
        assert caller.user_id is not None
        if documents is None:
            documents = await storage.document_ids(
                self._pool, caller.api_key, organization_id, MAX_DOCUMENTS_PER_USER_READ + 1
            )
            if len(documents) > MAX_DOCUMENTS_PER_USER_READ:
                raise OutOfRange(
                    f"The organization has more than {MAX_DOCUMENTS_PER_USER_READ} documents with"
                    " annotations; name documentIds or a folderId."
                )
        # Bounded, so one wide read cannot flood identity's access checks.
        slots = asyncio.Semaphore(ACCESS_CHECKS_AT_ONCE)

        async def check(document_id: str) -> AccessDecision:
            async with slots:
                return await self._access.check_principal(caller, organization_id, document_id)

        decisions = await asyncio.gather(*(check(d) for d in documents))
        visible = [d for d, decision in zip(documents, decisions, strict=True) if decision.role]
        public_only = [
            d
            for d, decision in zip(documents, decisions, strict=True)
            if decision.role and decision.via == "public"
        ]
        return visible, storage.Viewer(caller.user_id, public_only)

    # count/get ------------------------------------------------------------------------------

    async def count(
        self, caller: ApiKeyPrincipal, request: models.CountAnnotations
    ) -> dict[str, models.DocumentCount]:
        user_id = request.userId
        viewer = None
        documents = list(dict.fromkeys(request.documentIds))
        if caller.user_id is not None:
            if user_id is not None and user_id != caller.user_id:
                raise PermissionDenied("A user token counts only for its own user.")
            user_id = caller.user_id
            documents, viewer = await self._viewer(caller, request.organizationId, documents)
        if user_id is None:
            raise InvalidArgument.field("data.userId", "userId is required.", "missing_field")
        counts = {d: models.DocumentCount(0, 0) for d in request.documentIds}
        if documents:
            rows = await storage.count_annotations(
                self._pool,
                caller.api_key,
                request.organizationId,
                documents,
                user_id,
                request.statusIds,
                viewer,
            )
            for r in rows:
                counts[r["document_id"]] = models.DocumentCount(r["total"], r["unread"])
        return counts


def annotation_query(
    api_key: str, request: models.GetAnnotations, document_ids: list[str] | None
) -> storage.AnnotationQuery:
    """The filters and order of a get request as the storage query (not yet paged or limited
    to a user); `document_ids`: the documents it covers, None for the whole organization."""
    return storage.AnnotationQuery(
        api_key,
        request.organizationId,
        document_ids=document_ids,
        location_ids=request.locationIds,
        annotation_ids=request.annotationIds,
        creator_ids=request.userIds,
        mentioned_ids=request.mentionedUserIds,
        resolved_by=request.resolvedBy,
        status_ids=_status_ids(request),
        agent_id=request.agentId,
        execution_id=request.executionId,
        agent_type=request.agentType,
        agent_source=own_agent_source(request.agentSource) if request.agentSource else None,
        agent_suggestions=bool(request.agentSuggestions),
        agent_comments=bool(request.agentComments),
        updated_after=request.updatedAfter,
        updated_before=request.updatedBefore,
        created_after=request.createdAfter,
        created_before=request.createdBefore,
        descending=request.order == "desc",
    )


def _status_ids(request: models.GetAnnotations) -> list[str] | None:
    if request.statusId is None:
        return request.statusIds
    return list(dict.fromkeys([*(request.statusIds or []), request.statusId]))


def _raw(row: Any) -> msgspec.Raw:
    return msgspec.Raw(row["body"].encode())


def _shape(
    request: models.GetAnnotations, rows: list[Any]
) -> models.AnnotationList | models.GroupedAnnotations:
    if not request.groupByDocumentId:
        return [None if r is None else _raw(r) for r in rows]
    grouped: models.GroupedAnnotations = {}
    for r in rows:
        if r is not None:
            grouped.setdefault(r["document_id"], []).append(_raw(r))
    return grouped
