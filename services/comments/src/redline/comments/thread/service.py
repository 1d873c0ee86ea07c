"""The comments of one annotation: adding, reading, editing and deleting them.

- Add (`/v2/commentannotations/comments/add`) appends comments to the thread; identity makes the
  organization and document when asked, and `verifyUserPermissions` refuses authors without
  access to the document.
- Get (`/v2/commentannotations/comments/get`, also under `/v1/`) answers an annotation the
  caller cannot see as nothing found; a user token's read marks the annotation viewed by its user.
- Update (`/v2/commentannotations/comments/update`) takes `commentIds` with `updatedData` (the
  hosted form, answered per id) or one `commentId` with new text, HTML or tagged contacts at the
  top level (answered as one result). Each comment's status becomes `updated`, and its
  `lastUpdated` (ISO 8601) and the annotation's `lastUpdated` (ms) move to now. Every
  `{{userId}}` in the resulting text and HTML needs a tagged contact: the ones sent, or the
  comment's own when none are sent.
- Delete (`/v2/commentannotations/comments/delete`, also under `/v1/`): deleting the root
  comment (the first one) deletes the whole thread: an annotation is its root comment, and
  replies without it would have no author or subject. So does deleting every comment. Such a
  call answers for each comment it was asked about, emits `CommentDeleted` for each, and then
  `AnnotationDeleted` with the annotation as it was.
"""

from __future__ import annotations

import msgspec

from redline.bus import Bus
from redline.comments.shared import add_rules as rules
from redline.comments.shared import rights
from redline.comments.shared.changes import COMMENT_NOT_FOUND, changing_annotation
from redline.comments.shared.columns import untagged_mentions
from redline.comments.shared.events import comment_added, event_fields
from redline.comments.shared.models import ReplyComment, to_body
from redline.comments.shared.tagged import (
    Members,
    group_members,
    requested_group_ids,
    stored_group_ids,
    tagged_users,
)
from redline.comments.thread import models, storage
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import Aborted, InvalidArgument, Issue, NotFound
from redline.pg import Pool
from redline.proto.annotation import Comment, stored_json
from redline.proto.events import AnnotationDeleted, CommentDeleted, CommentUpdated
from redline.proto.rpc import AccessDecision
from redline.runtime import visibility
from redline.runtime.access import AccessClient
from redline.runtime.known_documents import KnownDocuments

UPDATED = "Updated successfully"
DELETED = "Deleted successfully"
# Tries of an update whose comments someone else tags other groups in meanwhile.
_ATTEMPTS = 3


class _MoreGroups(Exception):
    """The locked comments tag groups whose members were not asked for: the change is undone
    and tried again once they are known."""

    def __init__(self, group_ids: list[str]) -> None:
        super().__init__(group_ids)
        self.group_ids = group_ids


def _check_mentions(comment: Comment, path: str) -> None:
    tagged = {entry.userId for entry in comment.tagged}
    texts = {"commentText": comment.text, "commentHtml": comment.html}
    for key, missing in untagged_mentions(texts, tagged).items():
        raise InvalidArgument.field(
            path, f"{key}: tagged users need a taggedUserContacts entry: " + ", ".join(missing)
        )


def _update_ids(request: models.UpdateComment) -> list[int] | None:
    """The comments an update names: `commentIds` (the hosted form), one `commentId`, or None
    for every comment of the thread (the hosted form without `commentIds`)."""
    if request.commentIds:
        if request.commentId is not None:
            raise InvalidArgument.field(
                "data.commentIds", "Give commentIds or commentId, not both."
            )
        return list(dict.fromkeys(request.commentIds))
    if request.commentId is not None:
        return [request.commentId]
    if request.updatedData is not None:
        return None
    raise InvalidArgument.field(
        "data.commentIds", "Give commentIds: the comments to update.", code="missing_field"
    )


def _new_comments(request: models.AddComments) -> tuple[list[ReplyComment], str]:
    """The comments an add carries, and the path they are named under: `commentData` (the
    reference's name) or `comments` (the official SDK's other name for it)."""
    if request.commentData and request.comments:
        raise InvalidArgument.field("data.comments", "Give commentData or comments, not both.")
    if request.comments:
        return request.comments, "data.comments"
    if request.commentData:
        return request.commentData, "data.commentData"
    raise InvalidArgument.field(
        "data.commentData", "Give commentData: the comments to add.", code="missing_field"
    )


def _authors(user_ids: list[str] | None) -> set[str] | None:
    return None if user_ids is None else set(user_ids)


def _by_authors(comments: list[Comment], authors: set[str] | None) -> list[Comment]:
    """The comments written by `authors`; all of them when None."""
    if authors is None:
        return comments
    return [c for c in comments if c.from_.userId in authors]


def _update_changes(request: models.UpdateComment) -> tuple[models.CommentChanges, str]:
    """The changes an update asks for, and the path their fields are named under: `updatedData`
    (the hosted form) or the top-level fields of the first form. Beside `updatedData`, an empty
    top-level list counts as left out, as the request schema says."""
    top_level = models.CommentChanges(
        commentText=request.commentText,
        commentHtml=request.commentHtml,
        taggedUserContacts=request.taggedUserContacts,
    )
    if request.updatedData is None:
        return top_level, "data."
    mixed = next((name for name, value in to_body(top_level).items() if value != []), None)
    if mixed is not None:
        raise InvalidArgument.field(
            f"data.{mixed}", "Give the changes in updatedData or at the top level, not both."
        )
    return request.updatedData, "data.updatedData."


def _check_changes(changes: models.CommentChanges, path: str) -> None:
    issues: list[Issue] = []
    rules.check_tagged(changes.taggedUserContacts, path + "taggedUserContacts", issues)
    if issues:
        raise InvalidArgument.from_issues(issues)


def _with_changes(comment: Comment, changes: models.CommentChanges, path: str, at: int) -> Comment:
    """The comment with each field the changes give replaced, as edited at `at`."""
    edited = msgspec.convert({**stored_json(comment), **to_body(changes)}, Comment)
    _check_mentions(edited, path + "taggedUserContacts")
    edited.status = "updated"
    edited.lastUpdated = rules.iso_ms(at)
    return edited


class CommentService:
    def __init__(
        self, pool: Pool, bus: Bus, access: AccessClient, documents: KnownDocuments
    ) -> None:
        self._pool = pool
        self._bus = bus
        self._access = access
        self._documents = documents

    async def add(self, caller: ApiKeyPrincipal, request: models.AddComments) -> list[int]:
        org, doc = request.organizationId, request.documentId
        new, path = _new_comments(request)
        authors = [(f"{path}[{j}].from.userId", c.from_.userId) for j, c in enumerate(new)]
        rules.refuse_untagged_contacts((f"{path}[{j}]", c) for j, c in enumerate(new))
        decision = await rights.admit_authors(self._access, caller, org, doc, authors)
        await rights.ensure_document(self._documents, caller, request)
        if request.verifyUserPermissions:
            await rights.verify_authors(self._access, caller, org, doc, authors)
        members = await group_members(self._bus, caller.api_key, org, requested_group_ids(new))
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            body = changed.row.body
            issues: list[Issue] = []
            ids = rules.assign_comment_ids(new, [c.commentId for c in body.comments], path, issues)
            added = [
                rules.comment_body(c, ids[j], change.at, f"{path}[{j}]", issues)
                for j, c in enumerate(new)
            ]
            if issues:
                raise InvalidArgument.from_issues(issues)
            body.comments = [*body.comments, *added]
            changed.touch()
            change.emit(
                *(
                    comment_added(caller, changed.row, comment, new[j], members)
                    for j, comment in enumerate(added)
                )
            )
        return ids

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetComments
    ) -> list[models.CommentOut | None]:
        via_public = False
        if caller.user_id is not None:
            decision = await self._access.require(
                caller, request.organizationId, request.documentId, write=False
            )
            via_public = decision.via == "public"
        row = await storage.comments_of(
            self._pool,
            caller.api_key,
            request.organizationId,
            request.documentId,
            request.annotationId,
        )
        if row is None or not visibility.may_see(
            caller.user_id,
            visibility=row["visibility"],
            creator_user_id=row["creator_user_id"],
            assigned_user_id=row["assigned_user_id"],
            visible_to=row["visible_to"],
            via_public=via_public,
        ):
            return [] if request.commentIds is None else [None for _ in request.commentIds]
        if caller.user_id is not None:
            await storage.mark_viewed(
                self._pool,
                caller.api_key,
                request.organizationId,
                request.annotationId,
                caller.user_id,
            )
        comments = msgspec.json.decode(row["comments"] or "[]", type=list[models.CommentOut])
        if request.userIds is not None:
            users = set(request.userIds)
            comments = [c for c in comments if (c.from_ or {}).get("userId") in users]
        if request.commentIds is None:
            return list(comments)
        by_id = {c.commentId: c for c in comments}
        return [by_id.get(i) for i in request.commentIds]

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateComment
    ) -> models.CommentResult | dict[str, models.CommentResult]:
        ids = _update_ids(request)
        changes, path = _update_changes(request)
        _check_changes(changes, path)
        if changes.from_ is not None:
            rights.acting_as(caller, changes.from_.userId, path + "from")
        decision = await rights.require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        members = await self._members_for_update(caller, request, changes)
        for _ in range(_ATTEMPTS):
            try:
                return await self._update(caller, request, decision, ids, changes, path, members)
            except _MoreGroups as more:
                # Someone tagged other groups meanwhile: ask for them too, outside the lock.
                members |= await group_members(
                    self._bus, caller.api_key, request.organizationId, more.group_ids
                )
        raise Aborted("The comments changed while they were being updated; try again.")

    async def _members_for_update(
        self,
        caller: ApiKeyPrincipal,
        request: models.UpdateComment,
        changes: models.CommentChanges,
    ) -> Members:
        """The members of the groups the updated comments will tag: those the changes tag, or
        those the comments tag now (as read before the change locks them)."""
        group_ids = requested_group_ids([changes])
        if changes.taggedUserContacts is None:
            row = await storage.comments_of(
                self._pool,
                caller.api_key,
                request.organizationId,
                request.documentId,
                request.annotationId,
            )
            comments = row["comments"] if row is not None else None
            group_ids += stored_group_ids(msgspec.json.decode(comments or "[]", type=list[Comment]))
        return await group_members(
            self._bus, caller.api_key, request.organizationId, list(dict.fromkeys(group_ids))
        )

    async def _update(
        self,
        caller: ApiKeyPrincipal,
        request: models.UpdateComment,
        decision: AccessDecision | None,
        ids: list[int] | None,
        changes: models.CommentChanges,
        path: str,
        members: Members,
    ) -> models.CommentResult | dict[str, models.CommentResult]:
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            body = changed.row.body
            by_id = {c.commentId: c for c in _by_authors(body.comments, _authors(request.userIds))}
            if ids is None:
                ids = list(by_id)
            found = [by_id[i] for i in ids if i in by_id]
            single = request.commentId is not None
            if single and not found:
                raise NotFound(COMMENT_NOT_FOUND)
            ids_path = "data.commentId" if single else "data.commentIds"
            for comment in found:
                rights.acting_as(caller, comment.from_.userId, ids_path)
            edited = {c.commentId: _with_changes(c, changes, path, change.at) for c in found}
            body.comments = [edited.get(c.commentId, c) for c in body.comments]
            found = [edited[c.commentId] for c in found]
            unknown = [g for g in stored_group_ids(found) if g not in members]
            if unknown:
                raise _MoreGroups(unknown)
            changed.touch()
            change.emit(
                *(
                    CommentUpdated(
                        **event_fields(caller, changed.row, stored_json(comment.from_)),
                        before=changed.before,
                        commentId=comment.commentId,
                        comment=comment,
                        triggerNotification=request.triggerNotification,
                        taggedUsers=tagged_users(comment, members),
                    )
                    for comment in found
                )
            )
        if single:
            return models.CommentResult(True, ids[0], UPDATED)
        return {
            str(i): models.CommentResult(True, i, UPDATED)
            if i in by_id
            else models.CommentResult(False, i, COMMENT_NOT_FOUND)
            for i in ids
        }

    async def delete(
        self, caller: ApiKeyPrincipal, request: models.DeleteComments
    ) -> dict[str, models.CommentResult]:
        decision = await rights.require_write(
            self._access, caller, request.organizationId, request.documentId
        )
        async with changing_annotation(self._pool, caller, decision, request) as change:
            changed = change.one
            row = changed.row
            comments = row.body.comments
            present = {c.commentId: c for c in _by_authors(comments, _authors(request.userIds))}
            asked = (
                list(dict.fromkeys(request.commentIds))
                if request.commentIds is not None
                else list(present)
            )
            gone = [present[cid] for cid in asked if cid in present]
            root_gone = bool(comments) and any(c is comments[0] for c in gone)
            if root_gone or len(gone) == len(comments):
                base = event_fields(caller, row)
                change.emit(
                    *(CommentDeleted(**base, commentId=c.commentId, comment=c) for c in gone)
                )
                change.emit(AnnotationDeleted(**base))
                changed.delete()
            elif gone:
                gone_ids = {c.commentId for c in gone}
                row.body.comments = [c for c in comments if c.commentId not in gone_ids]
                changed.touch()
                base = {**event_fields(caller, row), "before": changed.before}
                change.emit(
                    *(CommentDeleted(**base, commentId=c.commentId, comment=c) for c in gone)
                )
        results: dict[str, models.CommentResult] = {}
        for cid in asked:
            if cid in present:
                results[str(cid)] = models.CommentResult(True, cid, DELETED)
            else:
                results[str(cid)] = models.CommentResult(False, cid, COMMENT_NOT_FOUND)
        return results
