"""/v2/workflow/definitions/*: versions, reads as the hosted product returns them, deletes, and
validation that names every problem."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent

SIGN_OFF = definition(
    "doc-signoff",
    [human("manager-approval", ("u_manager_01", True)), mock_agent("rework-notice")],
    [edge("manager-approval", "rework-notice", "reject")],
)


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    return Workflow(api, await api.create_workspace())


async def test_create_answers_the_definition_view(flow: Workflow) -> None:
    view = await flow.create(
        {**SIGN_OFF, "webhookConfig": {"url": "https://hooks.example.com/a", "secret": "s" * 16}}
    )
    assert view["version"] == 1
    assert view["status"] == "active"
    assert view["description"] is None
    assert view["scope"] == {"level": "apiKey", "organizationId": None, "documentId": None}
    assert view["edges"] == SIGN_OFF["edges"]
    assert view["nodes"] == SIGN_OFF["nodes"]
    assert (view["groups"], view["triggers"], view["tags"], view["custom"]) == (None,) * 4
    assert view["createdAt"] == view["updatedAt"]
    assert "webhookConfig" not in view
    assert view["compiled"] == {
        "forwardEdges": [
            {
                "from": "manager-approval",
                "to": "rework-notice",
                "role": "reject",
                "when": {"op": "eq", "args": [{"var": "output.decision"}, "reject"]},
            }
        ],
        "loops": [],
    }
    assert await flow.ok("definitions/get", {"definitionId": "doc-signoff"}) == view


async def test_an_update_is_the_next_version_and_checks_if_version(flow: Workflow) -> None:
    created = await flow.create(SIGN_OFF)
    renamed = {**SIGN_OFF, "name": "Sign-off v2", "ifVersion": 1}
    updated = await flow.ok("definitions/update", renamed)
    assert (updated["version"], updated["name"]) == (2, "Sign-off v2")
    assert updated["createdAt"] == created["createdAt"]
    assert updated["updatedAt"] > created["updatedAt"]
    stale = await flow.call("definitions/update", renamed)
    error = assert_failure(stale, 400, "FAILED_PRECONDITION")
    assert error["message"] == "Version conflict: expected 1, current 2"
    missing = await flow.call("definitions/update", {**renamed, "definitionId": "nope-nope"})
    assert_failure(missing, 404, "NOT_FOUND")


async def test_a_running_execution_keeps_the_version_it_was_dispatched_on(flow: Workflow) -> None:
    await flow.create(SIGN_OFF)
    execution_id = await flow.dispatch("doc-signoff")
    changed = copy.deepcopy(SIGN_OFF)
    changed["nodes"][0]["config"]["reviewers"] = [{"userId": "someone-else", "mandatory": True}]
    await flow.ok("definitions/update", {**changed, "ifVersion": 1})
    step_id = await flow.waiting_step(execution_id, "manager-approval")
    decided = await flow.decide(execution_id, step_id, "u_manager_01", "approve")
    assert decided["aggregatorStatus"] == "resolved"
    execution = await flow.ended(execution_id)
    assert execution["definitionVersion"] == 1


async def test_create_of_an_existing_id_is_already_exists(flow: Workflow) -> None:
    await flow.create(SIGN_OFF)
    again = await flow.call("definitions/create", SIGN_OFF)
    assert_failure(again, 409, "ALREADY_EXISTS")


async def test_delete_tombstones_or_purges_and_the_id_starts_again(flow: Workflow) -> None:
    await flow.create(SIGN_OFF)
    deleted = await flow.ok("definitions/delete", {"definitionId": "doc-signoff"})
    assert deleted == {"deleted": True, "purged": False, "definitionId": "doc-signoff"}
    assert_failure(
        await flow.call("definitions/get", {"definitionId": "doc-signoff"}), 404, "NOT_FOUND"
    )
    dispatch = await flow.call("executions/dispatch", {"definitionId": "doc-signoff"})
    assert_failure(dispatch, 400, "FAILED_PRECONDITION")
    recreated = await flow.create(SIGN_OFF)
    assert recreated["version"] == 1
    purged = await flow.ok("definitions/delete", {"definitionId": "doc-signoff", "purge": True})
    assert purged["purged"] is True
    dispatch = await flow.call("executions/dispatch", {"definitionId": "doc-signoff"})
    assert_failure(dispatch, 404, "NOT_FOUND")
    gone = await flow.call("definitions/delete", {"definitionId": "doc-signoff"})
    assert_failure(gone, 404, "NOT_FOUND")


async def test_delete_with_an_execution_in_flight_is_refused(flow: Workflow) -> None:
    await flow.create(SIGN_OFF)
    await flow.dispatch("doc-signoff")
    refused = await flow.call("definitions/delete", {"definitionId": "doc-signoff", "purge": True})
    assert_failure(refused, 400, "FAILED_PRECONDITION")
    assert (await flow.ok("definitions/get", {"definitionId": "doc-signoff"}))["version"] == 1


async def test_list_pages_by_update_time(flow: Workflow) -> None:
    for n in range(5):
        await flow.create({**SIGN_OFF, "definitionId": f"flow-{n}"})
    await flow.ok("definitions/delete", {"definitionId": "flow-2"})
    seen: list[str] = []
    cursor: Any = None
    while True:
        data: dict[str, Any] = {"pageSize": 2}
        if cursor is not None:
            data["cursor"] = cursor
        page = await flow.ok("definitions/list", data)
        seen += [item["definitionId"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == ["flow-4", "flow-3", "flow-1", "flow-0"]


async def test_a_read_pasted_back_is_refused_for_its_nulls_and_server_fields(
    flow: Workflow,
) -> None:
    view = await flow.create(SIGN_OFF)
    pasted = {**view, "definitionId": "doc-signoff-copy"}
    refused = await flow.call("definitions/create", pasted)
    assert_failure(refused, 400, "INVALID_ARGUMENT")
    trimmed = {
        k: v
        for k, v in pasted.items()
        if v is not None and k not in ("version", "createdAt", "updatedAt", "status", "compiled")
    }
    trimmed["scope"] = {"level": "apiKey"}
    assert (await flow.create(trimmed))["version"] == 1


async def test_every_problem_is_listed_with_its_path(flow: Workflow) -> None:
    broken = definition(
        "broken-flow",
        [
            human("review", ("alice", True)),
            {"nodeId": "agent", "type": "agent", "config": {"agentId": "a"}},
            mock_agent("orphan"),
        ],
        [edge("review", "agent", "approve"), edge("agent", "ghost")],
    )
    refused = await flow.call("definitions/create", broken)
    error = assert_failure(refused, 400, "INVALID_ARGUMENT")
    codes = {issue["code"] for issue in error["details"]["issues"]}
    assert len(codes) >= 3, error
    paths = issue_paths(error)
    assert any(path.startswith("data.edges[1]") for path in paths), paths
    assert any(path.startswith("data.nodes[1]") for path in paths), paths


async def test_schema_errors_name_the_field(flow: Workflow) -> None:
    bad = copy.deepcopy(SIGN_OFF)
    bad["nodes"][0]["config"]["reviewers"][0]["mandatory"] = "yes"
    error = assert_failure(await flow.call("definitions/create", bad), 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.nodes[0].config.reviewers[0].mandatory"]
    error = assert_failure(
        await flow.call("definitions/create", {**SIGN_OFF, "description": None}),
        400,
        "INVALID_ARGUMENT",
    )
    assert issue_paths(error) == ["data.description"]


async def test_definitions_of_one_workspace_are_invisible_to_another(
    flow: Workflow, api: ApiClient
) -> None:
    await flow.create(SIGN_OFF)
    other = Workflow(api, await api.create_workspace("other@example.com"))
    assert_failure(
        await other.call("definitions/get", {"definitionId": "doc-signoff"}), 404, "NOT_FOUND"
    )
    assert (await other.ok("definitions/list", {}))["items"] == []
    assert_failure(
        await other.call("executions/dispatch", {"definitionId": "doc-signoff"}), 404, "NOT_FOUND"
    )
    assert (await other.create(SIGN_OFF))["version"] == 1
