"""Executions follow identity's documents: a migration gives them the new document id, and a
deleted document's running executions are cancelled."""

from __future__ import annotations

import asyncio

import pytest

from redline.testing.api import ApiClient
from tests.api.documents_support import add_docs
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    workflow = Workflow(api, await api.create_workspace())
    await workflow.create(
        definition(
            "doc-review",
            [human("review", ("alice", True)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
            scope={"level": "organization", "organizationId": "acme"},
        )
    )
    added = await add_docs(workflow.api, workflow.workspace, "draft", "other")
    assert added.status == 200, added.body
    return workflow


async def test_a_deleted_documents_running_executions_are_cancelled(flow: Workflow) -> None:
    doomed = await flow.dispatch("doc-review", organizationId="acme", documentId="draft")
    spared = await flow.dispatch("doc-review", organizationId="acme", documentId="other")
    await flow.waiting_step(doomed, "review")
    deleted = await flow.api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["draft"]},
        headers=flow.workspace.key_headers,
    )
    assert deleted.status == 200, deleted.body
    cancelled = await flow.ended(doomed)
    assert cancelled["status"] == "cancelled"
    events = await flow.events(doomed)
    assert events[-1]["type"] == "execution.cancelled"
    assert events[-1]["data"] == {"reason": "document-deleted"}
    assert (await flow.execution(spared))["status"] == "running"


async def test_a_migrated_documents_executions_move_with_it(flow: Workflow) -> None:
    execution_id = await flow.dispatch("doc-review", organizationId="acme", documentId="draft")
    started = await flow.api.post(
        "/v2/organizations/documents/migrate",
        {"organizationId": "acme", "documentId": "draft", "newDocumentId": "final"},
        headers=flow.workspace.key_headers,
    )
    assert started.status == 200, started.body
    async with asyncio.timeout(30):
        while True:
            status = await flow.api.post(
                "/v2/organizations/documents/migrate/status",
                {"organizationId": "acme", "migrationId": started.data["migrationId"]},
                headers=flow.workspace.key_headers,
            )
            if status.data["status"] in ("completed", "failed"):
                break
            await asyncio.sleep(0.05)
    assert status.data["status"] == "completed", status.data
    # Executions do not show their document; the deletion of the new id reaches them.
    deleted = await flow.api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["final"]},
        headers=flow.workspace.key_headers,
    )
    assert deleted.status == 200, deleted.body
    assert (await flow.ended(execution_id))["status"] == "cancelled"
