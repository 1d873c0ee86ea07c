"""Workflow's document data, as document migration sees it: executions dispatched for a
document. A migration gives them the new document id; definitions keep the ids they were
written with (they are configuration, which their owner edits)."""

from __future__ import annotations

from redline.pg.documents import DocumentTables

WORKFLOW_DOCUMENTS = DocumentTables(("workflow.execution", None))
