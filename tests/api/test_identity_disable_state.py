"""Disable state of organizations and documents: the two update endpoints (answers, unknown ids,
validation, tenancy) and the `disabled` field organizations/get and documents/get show."""

from __future__ import annotations

from redline.bus import Bus, rpc
from redline.proto.rpc import DisableState, DisableStateQuery
from redline.proto.subjects import RPC_DISABLE_STATE
from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.disable_support import (
    DOCUMENTS,
    ORGANIZATIONS,
    set_docs_disabled,
    set_orgs_disabled,
)
from tests.api.documents_support import add_docs, docs_by_id
from tests.api.organizations_support import add_orgs, get_orgs

# organizations -----------------------------------------------------------------------------------


async def test_disabling_organizations_answers_per_id_and_get_shows_it(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme", "globex", "initech")

    done = await set_orgs_disabled(api, ws, "acme", "globex")

    assert done.status == 200, done.body
    assert done.result["status"] == "success"
    assert done.result["message"] == "Updated disable state for Organization(s) successfully."
    message = "Updated disable state for organization Successfully"
    assert done.data == {
        "acme": {"success": True, "id": "acme", "message": message},
        "globex": {"success": True, "id": "globex", "message": message},
    }
    found = await get_orgs(api, ws)
    assert {o["id"]: o["disabled"] for o in found.data} == {
        "acme": True,
        "globex": True,
        "initech": False,
    }


async def test_enabling_an_organization_clears_the_state(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_orgs(api, ws, "acme")
    await set_orgs_disabled(api, ws, "acme")

    done = await set_orgs_disabled(api, ws, "acme", disabled=False)

    assert done.status == 200, done.body
    found = await get_orgs(api, ws, organizationIds=["acme"])
    assert found.data[0]["disabled"] is False


async def test_an_unknown_organization_is_created_disabled(api: ApiClient) -> None:
    ws = await api.create_workspace()

    done = await set_orgs_disabled(api, ws, "newco")

    assert done.status == 200, done.body
    assert done.data["newco"]["success"] is True
    found = await get_orgs(api, ws, organizationIds=["newco"])
    assert [(o["id"], o["disabled"], o["organizationName"]) for o in found.data] == [
        ("newco", True, "")
    ]


async def test_organization_disable_state_stays_in_its_workspace(api: ApiClient) -> None:
    ours = await api.create_workspace("ours@example.com")
    theirs = await api.create_workspace("theirs@example.com")
    await add_orgs(api, theirs, "acme")

    done = await set_orgs_disabled(api, ours, "acme")

    assert done.status == 200, done.body
    # Ours got an organization of its own; theirs is untouched.
    assert (await get_orgs(api, ours)).data[0]["disabled"] is True
    assert (await get_orgs(api, theirs)).data[0]["disabled"] is False


async def test_organization_request_validation_names_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace()
    cases = [
        ({"disabled": True}, "data.organizationIds"),
        ({"organizationIds": ["acme"]}, "data.disabled"),
        ({"organizationIds": [], "disabled": True}, "data.organizationIds"),
        ({"organizationIds": ["acme"], "disabled": "yes"}, "data.disabled"),
        ({"organizationIds": [""], "disabled": True}, "data.organizationIds[0]"),
        ({"organizationIds": ["a"] * 101, "disabled": True}, "data.organizationIds"),
        ({"organizationIds": ["a", "a"], "disabled": True}, "data.organizationIds[1]"),
        ({"organizationIds": ["a"], "disabled": True, "typo": 1}, "data.typo"),
    ]
    for body, path in cases:
        refused = await api.post(ORGANIZATIONS, body, headers=ws.key_headers)
        error = assert_failure(refused, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [path], (body, error)
    assert (await get_orgs(api, ws)).data == []


async def test_organization_endpoint_needs_the_key_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace()

    refused = await api.post(
        ORGANIZATIONS,
        {"organizationIds": ["acme"], "disabled": True},
        headers={**ws.key_headers, "x-redline-auth-token": "wrong"},
    )

    assert_failure(refused, 401, "UNAUTHENTICATED")


# documents ---------------------------------------------------------------------------------------


async def test_disabling_documents_answers_per_id_and_get_shows_it(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1", "d2", "d3")

    done = await set_docs_disabled(api, ws, "d1", "d2")

    assert done.status == 200, done.body
    assert done.result["message"] == "Updated disable state for documents successfully."
    message = "Document disabled state updated."
    assert done.data == {
        "d1": {"success": True, "id": "d1", "disabled": True, "message": message},
        "d2": {"success": True, "id": "d2", "disabled": True, "message": message},
    }
    found = await docs_by_id(api, ws)
    assert {i: d["disabled"] for i, d in found.items()} == {"d1": True, "d2": True, "d3": False}

    enabled = await set_docs_disabled(api, ws, "d2", disabled=False)

    assert enabled.data["d2"]["disabled"] is False
    assert (await docs_by_id(api, ws))["d2"]["disabled"] is False


async def test_unknown_documents_fail_per_id_and_the_others_change(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1")

    partly = await set_docs_disabled(api, ws, "d1", "ghost")

    error = assert_failure(partly, 500, "INTERNAL")
    assert error["details"]["d1"]["success"] is True
    assert error["details"]["ghost"] == {
        "success": False,
        "id": "ghost",
        "message": "Document does not exist.",
        "code": "not-found",
    }
    assert (await docs_by_id(api, ws))["d1"]["disabled"] is True


async def test_documents_of_an_unknown_organization_are_not_found(api: ApiClient) -> None:
    ws = await api.create_workspace()

    refused = await set_docs_disabled(api, ws, "d1", org="nowhere")

    assert_failure(refused, 404, "NOT_FOUND")


async def test_document_disable_state_stays_in_its_workspace(api: ApiClient) -> None:
    ours = await api.create_workspace("ours@example.com")
    theirs = await api.create_workspace("theirs@example.com")
    await add_docs(api, theirs, "d1")

    refused = await set_docs_disabled(api, ours, "d1")

    assert_failure(refused, 404, "NOT_FOUND")
    assert (await docs_by_id(api, theirs))["d1"]["disabled"] is False


async def test_document_request_validation_names_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await add_docs(api, ws, "d1")
    cases = [
        ({"documentIds": ["d1"], "disabled": True}, "data.organizationId"),
        ({"organizationId": "acme", "disabled": True}, "data.documentIds"),
        ({"organizationId": "acme", "documentIds": ["d1"]}, "data.disabled"),
        ({"organizationId": "acme", "documentIds": ["d1"], "disabled": 1}, "data.disabled"),
        ({"organizationId": "acme", "documentIds": [7], "disabled": True}, "data.documentIds[0]"),
        ({"organizationId": "acme", "documentIds": ["d1", "d1"], "disabled": True}, None),
    ]
    for body, path in cases:
        refused = await api.post(DOCUMENTS, body, headers=ws.key_headers)
        error = assert_failure(refused, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [path or "data.documentIds[1]"], (body, error)
    assert (await docs_by_id(api, ws))["d1"]["disabled"] is False


# what the other services ask ---------------------------------------------------------------------


async def test_the_rpc_answers_per_api_key(api: ApiClient, bus: Bus) -> None:
    ours = await api.create_workspace("ours@example.com")
    theirs = await api.create_workspace("theirs@example.com")
    for ws in (ours, theirs):
        await add_docs(api, ws, "d1", "d2")
    await set_docs_disabled(api, ours, "d1")

    async def state(api_key: str, doc: str | None) -> DisableState:
        query = DisableStateQuery(apiKey=api_key, organizationId="acme", documentId=doc)
        return await rpc.call(bus.nc, RPC_DISABLE_STATE, query, DisableState)

    assert await state(ours.api_key, "d1") == DisableState(False, True)
    assert await state(ours.api_key, "d2") == DisableState(False, False)
    assert await state(theirs.api_key, "d1") == DisableState(False, False)

    await set_orgs_disabled(api, theirs, "acme")

    assert await state(theirs.api_key, None) == DisableState(True, False)
    assert await state(ours.api_key, None) == DisableState(False, False)
    assert await state(ours.api_key, "ghost") == DisableState(False, False)
