"""The notify service's document data, as document migration sees it: activity records and
in-app notifications, each keeping its JSON in `record`. The new id is taken when either holds
something under it; the move moves both, in the migration's one transaction. Immutable activity
records move too: the move changes where they belong, not what they say."""

from __future__ import annotations

from redline.pg.documents import DocumentTables

NOTIFY_DOCUMENTS = DocumentTables(("notify.activity", "record"), ("notify.notification", "record"))
