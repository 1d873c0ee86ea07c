"""Adding, updating and deleting a document's annotations.

- Add (`/v2/commentannotations/add`) writes each annotation with its events in a transaction of
  its own: one entry that breaks a rule or names a taken id fails alone, and the answer reports
  every entry. With `verifyUserPermissions`, every author is checked first, and one without
  access to the document rejects the whole request (`rights.verify_authors`).
- Update and delete go through `changes.changing`, as every change of stored annotations does.
- Update (`/v2/commentannotations/update`) applies `updatedData` and `updateUsers` to every
  annotation of the document the filters select (`updates` says what that does to a body).
- Delete (`/v2/commentannotations/delete`) removes the annotations the filters select.

Update and delete touch only the annotations the caller may see, and answer NOT_FOUND entries
for asked-for ids that matched none.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from redline.bus import Bus
from redline.comments.annotations import models, updates
from redline.comments.annotations.add_rules import annotation_body
from redline.comments.shared import rights
from redline.comments.shared.add_rules import new_annotation_id, refuse_untagged_contacts
from redline.comments.shared.changes import Changed, changing
from redline.comments.shared.columns import sync_columns, user_id_of
from redline.comments.shared.events import comment_added, event_fields
from redline.comments.shared.models import NewComment
from redline.comments.shared.storage import (
    SCHEMA,
    AnnotationRow,
    Selection,
    insert_if_absent,
    next_numbers,
)
from redline.comments.shared.tagged import (
    Members,
    group_members,
    requested_group_ids,
    tagged_users,
)
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument, Issue, PermissionDenied
from redline.pg import Connection, EventTooLarge, Pool, write_events
from redline.proto.annotation import AnnotationMetadata, stored_json
from redline.proto.events import (
    AnnotationAdded,
    AnnotationDeleted,
    CommentAdded,
    Event,
    now_ms,
)
from redline.runtime.access import AccessClient
from redline.runtime.known_documents import KnownDocuments

ADDED = "Added Successfully"
UPDATED = "Updated Successfully"
DELETED = "Deleted Successfully"


class _Taken(Exception):
    """The annotation id exists already; raised to roll the entry's transaction back."""


def _failed(
    annotation_id: str, code: str, message: str, issues: list[Issue]
) -> models.AddedAnnotation:
    return models.AddedAnnotation(
        success=False,
        annotationId=annotation_id,
        message=message,
        code=code,
        issues=[msgspec.to_builtins(i) for i in issues] if issues else None,
    )


def _refuse_repeated_ids(entries: list[models.NewAnnotation]) -> None:
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


def _annotation_events(
    caller: ApiKeyPrincipal, row: AnnotationRow, sources: list[NewComment], members: Members
) -> list[AnnotationAdded | CommentAdded]:
    """The annotation's own event (with its root comment's flags and tagged users), then one per
    further comment (with that comment's), so replies sent with the thread notify like later
    ones."""
    root = sources[0]
    comments = row.body.comments
    events: list[AnnotationAdded | CommentAdded] = [
        AnnotationAdded(
            **event_fields(caller, row, stored_json(row.body.from_)),
            triggerNotification=root.triggerNotification,
            triggerActivities=root.triggerActivities,
            taggedUsers=tagged_users(comments[0], members),
        )
    ]
    events.extend(
        comment_added(caller, row, comments[j], sources[j], members) for j in range(1, len(sources))
    )
    return events


def _not_found(results: dict[str, models.ItemResult], asked: list[str] | None) -> None:
    """An asked-for annotation the change did not reach is, to the caller, not there."""
    for annotation_id in asked or []:
        if annotation_id not in results:
            results[annotation_id] = models.ItemResult(
                False, annotation_id, rights.ANNOTATION_NOT_FOUND
            )


def _agent_pages(urls: list[str] | None) -> list[str] | None:
    """The pages `agentUrls` name: each URL without its fragment. A blank or fragment-only URL
    names no page; a list that names none is refused rather than widened to every page."""
    if urls is None:
        return None
    pages = [page for url in urls if (page := url.strip().split("#", 1)[0])]
    if not pages:
        raise InvalidArgument.field("data.agentUrls", "None of agentUrls names a page.")
    return pages


class AnnotationService:
    def __init__(
        self, pool: Pool, bus: Bus, access: AccessClient, documents: KnownDocuments
    ) -> None:
        self._pool = pool
        self._bus = bus
        self._access = access
        self._documents = documents

    # add -----------------------------------------------------------------------------------------

    async def add(
        self, caller: ApiKeyPrincipal, request: models.AddAnnotations
    ) -> models.AddedAnnotations:
        org, doc = request.organizationId, request.documentId
        entries = request.commentAnnotations
        authors = [
            (f"data.commentAnnotations[{i}].commentData[{j}].from.userId", c.from_.userId)
            for i, entry in enumerate(entries)
            for j, c in enumerate(entry.commentData)
        ]
        _refuse_repeated_ids(entries)
        refuse_untagged_contacts(
            (f"data.commentAnnotations[{i}].commentData[{j}]", c)
            for i, entry in enumerate(entries)
            for j, c in enumerate(entry.commentData)
        )
        await rights.admit_authors(self._access, caller, org, doc, authors)
        await rights.ensure_document(self._documents, caller, request)
        if request.verifyUserPermissions:
            await rights.verify_authors(self._access, caller, org, doc, authors)
        members = await group_members(
            self._bus,
            caller.api_key,
            org,
            requested_group_ids(c for entry in entries for c in entry.commentData),
        )
        results: models.AddedAnnotations = {}
        async with self._pool.acquire() as conn:
            for index, entry in enumerate(entries):
                annotation_id = entry.annotationId or new_annotation_id()
                path = f"data.commentAnnotations[{index}]"
                results[annotation_id] = await self._add_one(
                    conn, caller, request, path, annotation_id, entry, members
                )
        failed = [r for r in results.values() if not r.success]
        if failed:
            details = {k: msgspec.to_builtins(v) for k, v in results.items()}
            raise InvalidArgument("Some annotations were not added.", details=details)
        return results

    async def _add_one(
        self,
        conn: Connection,
        caller: ApiKeyPrincipal,
        request: models.AddAnnotations,
        path: str,
        annotation_id: str,
        entry: models.NewAnnotation,
        members: Members,
    ) -> models.AddedAnnotation:
        """One entry, written with its events in a transaction of its own, or why it was not."""
        org, doc = request.organizationId, request.documentId
        issues: list[Issue] = []
        body = annotation_body(
            entry,
            path=path,
            annotation_id=annotation_id,
            metadata=AnnotationMetadata(apiKey=caller.api_key, organizationId=org, documentId=doc),
            now=now_ms(),
            issues=issues,
        )
        if issues:
            message = "; ".join(f"{i.path}: {i.message}" for i in issues)
            return _failed(annotation_id, "invalid-argument", message, issues)
        try:
            async with conn.transaction():
                number = await next_numbers(conn, caller.api_key, org, doc, 1)
                body.annotationNumber = body.annotationIndex = number
                row = AnnotationRow(
                    api_key=caller.api_key,
                    organization_id=org,
                    document_id=doc,
                    annotation_id=annotation_id,
                    annotation_number=number,
                    type=body.type,
                    source_type=body.sourceType,
                    created_at=body.createdAt,
                    last_updated=body.lastUpdated,
                    body=body,
                )
                sync_columns(row)
                if not await insert_if_absent(conn, row):
                    raise _Taken
                events = _annotation_events(caller, row, entry.commentData, members)
                await write_events(conn, SCHEMA, events)
        except _Taken:
            return _failed(
                annotation_id,
                "already-exists",
                "An annotation with this id exists already.",
                [Issue("already_exists", f"{path}.annotationId", "Already in use.")],
            )
        except EventTooLarge as exc:
            # The outbox refuses an event too large to publish; the entry is not written.
            return _failed(
                annotation_id,
                "invalid-argument",
                exc.message,
                [Issue("too_large", path, exc.message)],
            )
        return models.AddedAnnotation(
            success=True,
            annotationId=annotation_id,
            commentIds=[c.commentId for c in body.comments],
            message=ADDED,
        )

    # update --------------------------------------------------------------------------------------

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateAnnotations
    ) -> dict[str, models.ItemResult]:
        if not request.updates and not request.updateUsers:
            raise InvalidArgument.field(
                "data.updatedData", "Give updatedData or updateUsers: there is nothing to update."
            )
        if request.updateUsers and caller.user_id is not None:
            # Renaming rewrites other people's records across the document: the server's call.
            raise PermissionDenied(
                "data.updateUsers: renaming users needs the API key's auth token."
            )
        actor = updates.acting_user(request)
        rights.acting_as(caller, user_id_of(actor), "data.updatedData.from")
        named = updates.named_resolver(request)
        for data in request.updates:
            for name in ("resolvedByUserId", "statusUpdatedByUserId"):
                value = getattr(data, name)
                if isinstance(value, str):
                    rights.acting_as(caller, value, f"data.updatedData.{name}")
        resolver = named if isinstance(named, str) else user_id_of(actor) or caller.user_id
        decision = await rights.require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        which = Selection(
            annotation_ids=request.annotationIds,
            location_ids=request.locationIds,
            creator_ids=request.userIds,
        )
        results: dict[str, models.ItemResult] = {}
        async with changing(
            self._pool, caller, decision, request.organizationId, request.documentId, which
        ) as change:
            for changed in change.each:
                change.emit(*_update_one(caller, request, changed, actor, resolver, named))
                annotation_id = changed.row.annotation_id
                results[annotation_id] = models.ItemResult(True, annotation_id, UPDATED)
        _not_found(results, request.annotationIds)
        return results

    # delete --------------------------------------------------------------------------------------

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteAnnotations
    ) -> dict[str, models.ItemResult]:
        decision = await rights.require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        which = Selection(
            annotation_ids=request.annotationIds,
            location_ids=request.locationIds,
            creator_ids=request.userIds,
            agent_id=request.agentId,
            fresh_agent_suggestions=bool(request.agentSuggestions),
            agent_pages=_agent_pages(request.agentUrls),
        )
        async with changing(
            self._pool, caller, decision, request.organizationId, request.documentId, which
        ) as change:
            for changed in change.each:
                changed.delete()
                change.emit(AnnotationDeleted(**event_fields(caller, changed.row)))
        rows = [changed.row for changed in change.each]
        results = {
            row.annotation_id: models.ItemResult(True, row.annotation_id, DELETED) for row in rows
        }
        _not_found(results, request.annotationIds)
        return results


def _update_one(
    caller: ApiKeyPrincipal,
    request: models.UpdateAnnotations,
    changed: Changed,
    actor: dict[str, Any] | None,
    resolver: str | None,
    named: str | UnsetType | None,
) -> list[Event]:
    """Apply the update to one locked annotation; its events. A resolver the update names is
    recorded on a resolved annotation (null clears it)."""
    row = changed.row
    for data in request.updates:
        updates.apply(row.body, data)
    renames: dict[str, str] = {}
    for rename in request.updateUsers or []:
        old, new = rename.oldUser, rename.newUser
        renamed = updates.rename_user(row.body, old.userId, new.userId, new.name, new.email)
        if renamed is not None:
            row.body = renamed
            renames[old.userId] = new.userId
        if row.resolved_by == old.userId:
            row.resolved_by = new.userId
    if changed.body_changed:
        changed.touch()
        updates.record_resolution(changed, resolver)
    if named is not UNSET:
        row.resolved_by = named if row.status_type == "terminal" else None
    return updates.update_events(caller, changed, actor, renames) if changed.body_changed else []
