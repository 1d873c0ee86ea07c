"""Allowed domains of an API key: normalisation, partial adds, deletes."""

from __future__ import annotations

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.config_support import (
    call,
    domains_of,
    ok,
)

# allowed domains ---------------------------------------------------------------------------------


async def test_added_domains_are_normalised_to_their_host(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-add@example.com")

    added = await ok(
        api,
        ws,
        "/v2/workspace/domains/add",
        {
            "domains": [
                "https://App.Example.com/",
                "https://*.Firebase.com",
                "http://localhost:3000/app?x=1",
                "app.example.com",
            ]
        },
    )

    assert added == {"domainsAdded": ["app.example.com", "*.firebase.com", "localhost"]}
    assert sorted(await domains_of(api, ws)) == ["*.firebase.com", "app.example.com", "localhost"]


async def test_adding_existing_domains_is_internal_with_details_and_keeps_the_new_ones(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains-partial@example.com")
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    response = await call(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["https://A.example.com/path", "b.example.com", "c.example.com"]},
    )

    error = assert_failure(response, 500, "INTERNAL")
    assert "added" in error["message"]
    assert "skipped" in error["message"]
    assert error["details"] == {
        "domainsAdded": ["b.example.com", "c.example.com"],
        "skippedDomains": ["a.example.com"],
    }
    assert sorted(await domains_of(api, ws)) == ["a.example.com", "b.example.com", "c.example.com"]


async def test_adding_only_existing_domains_adds_nothing_and_says_so(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-allskip@example.com")
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    response = await call(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    error = assert_failure(response, 500, "INTERNAL")
    assert error["details"] == {"domainsAdded": [], "skippedDomains": ["a.example.com"]}
    assert await domains_of(api, ws) == ["a.example.com"]


async def test_invalid_domains_name_their_position_and_nothing_is_added(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-invalid@example.com")

    response = await call(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["ok.example.com", "ftp://files.example.com", "https://", "*"]},
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.domains[1]", "data.domains[2]", "data.domains[3]"]
    assert await domains_of(api, ws) == []


async def test_domains_add_needs_a_non_empty_list(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-empty@example.com")

    missing = await call(api, ws, "/v2/workspace/domains/add", {})
    empty = await call(api, ws, "/v2/workspace/domains/add", {"domains": []})

    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.domains"]
    assert issue_paths(assert_failure(empty, 400, "INVALID_ARGUMENT")) == ["data.domains"]


async def test_deleting_domains_removes_them_and_answers_what_was_removed(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains-delete@example.com")
    await ok(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["a.example.com", "*.b.example.com", "c.example.com"]},
    )

    removed = await ok(
        api, ws, "/v2/workspace/domains/delete", {"domains": ["https://A.example.com/x"]}
    )

    assert removed == {"domainsRemoved": ["a.example.com"]}
    assert sorted(await domains_of(api, ws)) == ["*.b.example.com", "c.example.com"]
    bad = await call(api, ws, "/v2/workspace/domains/delete", {"domains": ["bad domain"]})
    assert issue_paths(assert_failure(bad, 400, "INVALID_ARGUMENT")) == ["data.domains[0]"]


async def test_deleting_unknown_domains_is_internal_with_details_and_removes_the_others(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains-delete-partial@example.com")
    await ok(
        api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com", "*.b.example.com"]}
    )

    response = await call(
        api,
        ws,
        "/v2/workspace/domains/delete",
        {"domains": ["https://A.example.com/x", "nothere.example.com"]},
    )

    error = assert_failure(response, 500, "INTERNAL")
    assert "removed" in error["message"]
    assert "skipped" in error["message"]
    assert error["details"] == {
        "domainsRemoved": ["a.example.com"],
        "skippedDomains": ["nothere.example.com"],
    }
    assert await domains_of(api, ws) == ["*.b.example.com"]


async def test_apikey_create_normalises_allowed_domains_the_same_way(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-create@example.com")

    created = await api.post(
        "/v2/workspace/apikey/create",
        {"allowedDomains": ["https://App.Example.com:8443/x", "app.example.com", "*.Example.org"]},
        headers=ws.workspace_headers,
    )
    assert created.status == 200, created.body
    key = Workspace(ws.id, ws.token, created.data["apiKey"], created.data["authToken"], {})
    invalid = await api.post(
        "/v2/workspace/apikey/create",
        {"allowedDomains": ["ok.example.com", "http://"]},
        headers=ws.workspace_headers,
    )

    assert sorted(await domains_of(api, key)) == ["*.example.org", "app.example.com"]
    assert issue_paths(assert_failure(invalid, 400, "INVALID_ARGUMENT")) == [
        "data.allowedDomains[1]"
    ]
