"""The one way stored annotations change: `changing` locks the annotations a change selects (found
only where the caller may see them) and keeps each body as it was; the block changes them and
names the events; on leaving it, what changed is saved, what was deleted is deleted and the
events go to the outbox, in one transaction. An exception in the block undoes all of it.

Whatever a change must ask another service (access, group members, whether the document
exists) is asked before `changing` is entered: a row lock is never held across a network call,
where a slow identity would hold up every writer of the annotation.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from redline.comments.shared import rights
from redline.comments.shared.columns import touch
from redline.comments.shared.storage import (
    SCHEMA,
    AnnotationRow,
    Selection,
    delete_annotations,
    save,
    select_for_update,
)
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import NotFound
from redline.pg import Connection, Pool, write_events
from redline.proto.annotation import Annotation, Comment
from redline.proto.events import Event, now_ms
from redline.proto.rpc import AccessDecision

COMMENT_NOT_FOUND = "Comment not found."


def _columns(row: AnnotationRow) -> tuple[Any, ...]:
    """Every stored column of `row` but its body."""
    return tuple(getattr(row, name) for name in row.__struct_fields__ if name != "body")


class Changed:
    """One locked annotation of a change: its row, to change in place, and its body as it was."""

    def __init__(self, row: AnnotationRow, at: int) -> None:
        self.row = row
        self.before: Annotation = copy.deepcopy(row.body)
        self.deleted = False
        self._at = at
        self._columns = _columns(row)

    @property
    def body_changed(self) -> bool:
        return self.row.body != self.before

    def touch(self) -> None:
        """The body is as the change leaves it: move `lastUpdated` to the change's time and the
        filter columns after the body, before the events that report them are made. Left
        out, it happens on leaving the change."""
        touch(self.row, self._at)

    def delete(self) -> None:
        self.deleted = True

    def comment(self, comment_id: int) -> Comment:
        """The annotation's comment `comment_id`, to change in place; NOT_FOUND when missing."""
        found = self.row.body.comment(comment_id)
        if found is None:
            raise NotFound(COMMENT_NOT_FOUND)
        return found

    async def _store(self, conn: Connection) -> bool:
        """Save the row when the change moved its body or a column; whether it did."""
        if self.body_changed:
            self.touch()
        elif _columns(self.row) == self._columns:
            return False
        await save(conn, self.row)
        return True


class Change:
    """The annotations one request changes (`each`), the time it changes them at (ms), and the
    events it makes."""

    def __init__(self, conn: Connection, rows: list[AnnotationRow]) -> None:
        self.conn = conn
        self.at = now_ms()
        self.each = [Changed(row, self.at) for row in rows]
        self.events: list[Event] = []

    @property
    def one(self) -> Changed:
        """The annotation of a change of one annotation."""
        (only,) = self.each
        return only

    def emit(self, *events: Event) -> None:
        self.events.extend(events)

    async def _finish(self, api_key: str, organization_id: str) -> None:
        gone = [c.row.annotation_id for c in self.each if c.deleted]
        for changed in self.each:
            if not changed.deleted:
                await changed._store(self.conn)
        if gone:
            await delete_annotations(self.conn, api_key, organization_id, gone)
        await write_events(self.conn, SCHEMA, self.events)


@asynccontextmanager
async def changing(
    pool: Pool,
    caller: ApiKeyPrincipal,
    decision: AccessDecision | None,
    organization_id: str,
    document_id: str,
    which: str | Selection,
) -> AsyncIterator[Change]:
    """Change the document's annotation `which` (an annotation id: NOT_FOUND when it is missing
    or the caller may not see it), or the annotations a selection takes that the caller may
    see (perhaps none)."""
    one = isinstance(which, str)
    selection = Selection(annotation_ids=[which]) if isinstance(which, str) else which
    async with pool.acquire() as conn, conn.transaction():
        rows = await select_for_update(
            conn, caller.api_key, organization_id, document_id, selection
        )
        rows = [row for row in rows if rights.visible(caller, row, decision)]
        if one and not rows:
            raise NotFound(rights.ANNOTATION_NOT_FOUND)
        change = Change(conn, rows)
        yield change
        await change._finish(caller.api_key, organization_id)


class AnnotationRef(Protocol):
    """A request that names one annotation of one document."""

    @property
    def organizationId(self) -> str: ...
    @property
    def documentId(self) -> str: ...
    @property
    def annotationId(self) -> str: ...


def changing_annotation(
    pool: Pool, caller: ApiKeyPrincipal, decision: AccessDecision | None, ref: AnnotationRef
) -> AbstractAsyncContextManager[Change]:
    """`changing` the one annotation a request names (`change.one`)."""
    return changing(pool, caller, decision, ref.organizationId, ref.documentId, ref.annotationId)
