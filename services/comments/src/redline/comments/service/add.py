"""Adding annotations and comments: who may, the organization and document they go to, and the
write with its events in one transaction per annotation."""

from __future__ import annotations

from typing import Any

import msgspec

from redline.bus import Bus, rpc
from redline.comments.models.add import (
    AddAnnotations,
    AddComments,
    AddedAnnotation,
    AddedAnnotations,
    NewAnnotation,
    NewComment,
    ReplyComment,
)
from redline.comments.service import add_rules as rules
from redline.comments.service.columns import with_columns
from redline.comments.service.writer import may_see
from redline.comments.storage import add as add_storage
from redline.comments.storage import annotations as storage
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, Issue, NotFound, PermissionDenied
from redline.pg import EventTooLarge, Pool, write_events
from redline.proto.events.base import now_ms
from redline.proto.events.comments import AnnotationAdded, CommentAdded
from redline.proto.rpc import AccessDecision, EnsuredDocument, EnsureDocument
from redline.proto.subjects import RPC_DOCUMENTS_ENSURE
from redline.runtime.access import AccessClient

ADDED = "Added Successfully"


class _Taken(Exception):
    """The annotation id exists already; raised to roll the entry's transaction back."""


def _issues_out(issues: list[Issue]) -> list[dict[str, str]]:
    return [msgspec.to_builtins(i) for i in issues]


def _failed(annotation_id: str, code: str, message: str, issues: list[Issue]) -> AddedAnnotation:
    return AddedAnnotation(
        success=False,
        annotationId=annotation_id,
        message=message,
        code=code,
        issues=_issues_out(issues) if issues else None,
    )


def _refuse_repeated_ids(entries: list[NewAnnotation]) -> None:
    """The result map is keyed by annotation id, so one id twice in a request is refused whole."""
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry.annotationId is None:
            continue
        if entry.annotationId in seen:
            raise InvalidArgument.field(
                f"data.commentAnnotations[{index}].annotationId", "Repeated in this request."
            )
        seen.add(entry.annotationId)


class AddService:
    def __init__(self, pool: Pool, bus: Bus, access: AccessClient) -> None:
        self._pool = pool
        self._bus = bus
        self._access = access

    # shared steps --------------------------------------------------------------------------------

    async def _admit(
        self,
        key: ApiKeyPrincipal,
        organization_id: str,
        document_id: str,
        authors: list[tuple[str, str]],
    ) -> AccessDecision | None:
        """A user token writes only as its own user, with `editor` on the document."""
        if key.user_id is None:
            return None
        for path, user_id in authors:
            if user_id != key.user_id:
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
        return await self._access.require(key, organization_id, document_id, write=True)

    async def _ensure(self, key: ApiKeyPrincipal, request: AddAnnotations | AddComments) -> None:
        """Identity answers NOT_FOUND for a missing organization or document unless the request
        asks for it to be created."""
        await rpc.call(
            self._bus.nc,
            RPC_DOCUMENTS_ENSURE,
            EnsureDocument(
                apiKey=key.api_key,
                organizationId=request.organizationId,
                documentId=request.documentId,
                createOrganization=request.createOrganization,
                createDocument=request.createDocument,
            ),
            EnsuredDocument,
        )

    async def _has_access(self, key: ApiKeyPrincipal, org: str, doc: str, user_id: str) -> bool:
        decision = await self._access.check(key.api_key, org, doc, user_id)
        return decision.role is not None

    # /v2/commentannotations/add ----------------------------------------------------------------

    async def add_annotations(
        self, key: ApiKeyPrincipal, request: AddAnnotations
    ) -> AddedAnnotations:
        org, doc = request.organizationId, request.documentId
        entries: list[NewAnnotation] = request.commentAnnotations
        authors = [
            (f"data.commentAnnotations[{i}].commentData[{j}].from.userId", c.from_.userId)
            for i, entry in enumerate(entries)
            for j, c in enumerate(entry.commentData)
        ]
        _refuse_repeated_ids(entries)
        await self._admit(key, org, doc, authors)
        await self._ensure(key, request)
        metadata = {"apiKey": key.api_key, "organizationId": org, "documentId": doc}
        results: AddedAnnotations = {}
        async with self._pool.acquire() as conn:
            for index, entry in enumerate(entries):
                path = f"data.commentAnnotations[{index}]"
                annotation_id = entry.annotationId or rules.new_annotation_id()
                root_author = entry.commentData[0].from_.userId
                if request.verifyUserPermissions and not await self._has_access(
                    key, org, doc, root_author
                ):
                    results[annotation_id] = _failed(
                        annotation_id,
                        "permission-denied",
                        "The user has no access to this document.",
                        [
                            Issue(
                                "permission_denied",
                                f"{path}.commentData[0].from.userId",
                                "No access to the document.",
                            )
                        ],
                    )
                    continue
                issues: list[Issue] = []
                now = now_ms()
                body = rules.annotation_body(
                    entry,
                    path=path,
                    annotation_id=annotation_id,
                    metadata=metadata,
                    now=now,
                    issues=issues,
                )
                if issues:
                    message = "; ".join(f"{i.path}: {i.message}" for i in issues)
                    results[annotation_id] = _failed(
                        annotation_id, "invalid-argument", message, issues
                    )
                    continue
                try:
                    async with conn.transaction():
                        number = await storage.next_numbers(conn, key.api_key, org, doc, 1)
                        body["annotationNumber"] = number
                        body["annotationIndex"] = number
                        row = with_columns(
                            storage.AnnotationRow(
                                api_key=key.api_key,
                                organization_id=org,
                                document_id=doc,
                                annotation_id=annotation_id,
                                annotation_number=number,
                                type=body["type"],
                                source_type=body["sourceType"],
                                created_at=body["createdAt"],
                                last_updated=body["lastUpdated"],
                                body=body,
                            )
                        )
                        if not await add_storage.insert_if_absent(conn, row):
                            raise _Taken
                        events = _annotation_events(key, row, entry.commentData)
                        await write_events(conn, storage.SCHEMA, events)
                except _Taken:
                    results[annotation_id] = _failed(
                        annotation_id,
                        "already-exists",
                        "An annotation with this id exists already.",
                        [Issue("already_exists", f"{path}.annotationId", "Already in use.")],
                    )
                    continue
                except EventTooLarge as exc:
                    # The outbox refuses an event too large to publish; the entry is not written.
                    results[annotation_id] = _failed(
                        annotation_id,
                        "invalid-argument",
                        exc.message,
                        [Issue("too_large", path, exc.message)],
                    )
                    continue
                results[annotation_id] = AddedAnnotation(
                    success=True,
                    annotationId=annotation_id,
                    commentIds=[c["commentId"] for c in body["comments"]],
                    message=ADDED,
                )
        failed = [r for r in results.values() if not r.success]
        if failed:
            details = {k: msgspec.to_builtins(v) for k, v in results.items()}
            if all(r.code == "permission-denied" for r in failed):
                raise PermissionDenied("Some annotations were not added.", details=details)
            raise InvalidArgument("Some annotations were not added.", details=details)
        return results

    # /v2/commentannotations/comments/add -------------------------------------------------------

    async def add_comments(self, key: ApiKeyPrincipal, request: AddComments) -> list[int]:
        org, doc = request.organizationId, request.documentId
        authors = [
            (f"data.commentData[{j}].from.userId", c.from_.userId)
            for j, c in enumerate(request.commentData)
        ]
        decision = await self._admit(key, org, doc, authors)
        await self._ensure(key, request)
        if request.verifyUserPermissions:
            for path, user_id in authors:
                if not await self._has_access(key, org, doc, user_id):
                    raise PermissionDenied(
                        "The user has no access to this document.",
                        details={
                            "issues": [
                                {
                                    "code": "permission_denied",
                                    "path": path,
                                    "message": "No access to the document.",
                                }
                            ]
                        },
                    )
        now = now_ms()
        async with self._pool.acquire() as conn, conn.transaction():
            row = await storage.get_for_update(conn, key.api_key, org, request.annotationId)
            if row is None or row.document_id != doc:
                raise NotFound("Annotation not found.")
            if decision is not None and key.user_id and not may_see(row, key.user_id, decision):
                raise NotFound("Annotation not found.")
            issues: list[Issue] = []
            existing = [c.get("commentId") for c in row.body.get("comments", [])]
            ids = rules.assign_comment_ids(
                request.commentData,
                [i for i in existing if isinstance(i, int)],
                "data.commentData",
                issues,
            )
            added = [
                rules.comment_body(c, ids[j], now, f"data.commentData[{j}]", issues)
                for j, c in enumerate(request.commentData)
            ]
            if issues:
                raise InvalidArgument.from_issues(issues)
            body = {**row.body, "comments": [*row.body.get("comments", []), *added]}
            body["lastUpdated"] = max(now, int(row.body.get("lastUpdated", 0)))
            row = with_columns(msgspec.structs.replace(row, body=body))
            await storage.save(conn, row)
            events = [
                _comment_event(key, row, comment, request.commentData[j])
                for j, comment in enumerate(added)
            ]
            await write_events(conn, storage.SCHEMA, events)
        return ids


def _comment_event(
    key: ApiKeyPrincipal,
    row: storage.AnnotationRow,
    comment: dict[str, Any],
    source: NewComment | ReplyComment,
) -> CommentAdded:
    return CommentAdded(
        workspaceId=key.workspace_id,
        apiKey=key.api_key,
        organizationId=row.organization_id,
        documentId=row.document_id,
        annotationId=row.annotation_id,
        annotation=row.body,
        actionUser=comment["from"],
        commentId=comment["commentId"],
        comment=comment,
        triggerNotification=getattr(source, "triggerNotification", None),
        triggerActivities=getattr(source, "triggerActivities", None),
    )


def _annotation_events(
    key: ApiKeyPrincipal, row: storage.AnnotationRow, sources: list[NewComment]
) -> list[AnnotationAdded | CommentAdded]:
    """The annotation's own event (with its root comment's flags), then one per further comment
    (with that comment's flags), so replies sent with the thread notify like later ones."""
    root = sources[0]
    events: list[AnnotationAdded | CommentAdded] = [
        AnnotationAdded(
            workspaceId=key.workspace_id,
            apiKey=key.api_key,
            organizationId=row.organization_id,
            documentId=row.document_id,
            annotationId=row.annotation_id,
            annotation=row.body,
            actionUser=row.body["from"],
            triggerNotification=root.triggerNotification,
            triggerActivities=root.triggerActivities,
        )
    ]
    comments = row.body["comments"]
    events.extend(_comment_event(key, row, comments[j], sources[j]) for j in range(1, len(sources)))
    return events
