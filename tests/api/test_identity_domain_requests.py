"""Domain requests: /v2/workspace/domains/request, requested/domains/get and
additional-url-request (accept or reject)."""

from __future__ import annotations

from typing import Any

import pytest

from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.config_support import call, domains_of, ok


def asked(domain: str, doc: str = "doc-1") -> dict[str, str]:
    return {"domain": domain, "clientDocumentId": doc, "organizationId": "org"}


async def test_a_request_stays_open_until_accepted_then_the_domain_is_allowed(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("requests@example.com")

    made = await ok(api, ws, "/v2/workspace/domains/request", asked("https://App.Example.com/x"))
    repeated = await ok(api, ws, "/v2/workspace/domains/request", asked("app.example.com"))
    listed = await ok(api, ws, "/v2/workspace/requested/domains/get")
    accepted = await ok(
        api,
        ws,
        "/v2/workspace/additional-url-request",
        {"action": "accept", "id": made["id"], "clientDocId": "doc-1"},
    )

    assert made["domain"] == "app.example.com"
    assert made["status"] == "pending"
    assert made["decidedAt"] is None
    assert (made["organizationId"], made["clientDocumentId"]) == ("org", "doc-1")
    assert repeated == made
    assert listed == [made]
    assert accepted["status"] == "accepted"
    assert accepted["decidedAt"] >= made["requestedAt"]
    assert await domains_of(api, ws) == ["app.example.com"]
    assert await ok(api, ws, "/v2/workspace/requested/domains/get") == []
    again = await call(api, ws, "/v2/workspace/domains/request", asked("app.example.com"))
    assert_failure(again, 409, "ALREADY_EXISTS")


async def test_a_rejected_request_allows_nothing_and_cannot_be_decided_again(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("reject@example.com")
    made = await ok(api, ws, "/v2/workspace/domains/request", {"domain": "evil.example.com"})

    rejected = await ok(
        api, ws, "/v2/workspace/additional-url-request", {"action": "reject", "id": made["id"]}
    )
    twice = await call(
        api, ws, "/v2/workspace/additional-url-request", {"action": "accept", "id": made["id"]}
    )

    assert rejected["status"] == "rejected"
    assert (made["organizationId"], made["clientDocumentId"]) == ("", "")
    assert_failure(twice, 400, "FAILED_PRECONDITION")
    assert await domains_of(api, ws) == []
    # A rejected domain may be asked for again.
    fresh = await ok(api, ws, "/v2/workspace/domains/request", {"domain": "evil.example.com"})
    assert fresh["id"] != made["id"]


async def test_a_decision_names_the_requests_document_and_key(api: ApiClient) -> None:
    a = await api.create_workspace("decide-a@example.com")
    b = await api.create_workspace("decide-b@example.com")
    made = await ok(api, a, "/v2/workspace/domains/request", asked("a.example.com"))

    wrong_doc = await call(
        api,
        a,
        "/v2/workspace/additional-url-request",
        {"action": "accept", "id": made["id"], "clientDocId": "doc-2"},
    )
    other_key = await call(
        api, b, "/v2/workspace/additional-url-request", {"action": "accept", "id": made["id"]}
    )

    assert_failure(wrong_doc, 404, "NOT_FOUND")
    assert_failure(other_key, 404, "NOT_FOUND")
    assert await ok(api, b, "/v2/workspace/requested/domains/get") == []
    assert await domains_of(api, b) == []
    assert [r["id"] for r in await ok(api, a, "/v2/workspace/requested/domains/get")] == [
        made["id"]
    ]


@pytest.mark.parametrize(
    ("path", "data", "field"),
    [
        ("/v2/workspace/domains/request", {}, "data.domain"),
        ("/v2/workspace/domains/request", {"domain": "ftp://x.example.com"}, "data.domain[0]"),
        ("/v2/workspace/domains/request", {"domain": "a.example.com", "organizationId": 7}, None),
        ("/v2/workspace/additional-url-request", {"action": "maybe", "id": "x"}, "data.action"),
        ("/v2/workspace/additional-url-request", {"action": "accept"}, "data.id"),
        ("/v2/workspace/requested/domains/get", {"status": "pending"}, "data.status"),
    ],
)
async def test_invalid_requests_are_refused_naming_the_field(
    api: ApiClient, path: str, data: dict[str, Any], field: str | None
) -> None:
    ws = await api.create_workspace("requests-invalid@example.com")

    error = assert_failure(await call(api, ws, path, data), 400, "INVALID_ARGUMENT")

    assert issue_paths(error) == [field or "data.organizationId"]
    assert await ok(api, ws, "/v2/workspace/requested/domains/get") == []


async def test_domain_requests_need_the_api_keys_own_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("requests-auth@example.com")

    for path, data in (
        ("/v2/workspace/domains/request", {"domain": "x.example.com"}),
        ("/v2/workspace/requested/domains/get", {}),
        ("/v2/workspace/additional-url-request", {"action": "reject", "id": "x"}),
    ):
        wrong = {"x-redline-api-key": ws.api_key, "x-redline-auth-token": "no"}
        assert_failure(await api.post(path, data, headers=wrong), 401, "UNAUTHENTICATED")
        by_workspace = await api.post(path, data, headers=ws.workspace_headers)
        assert_failure(by_workspace, 400, "INVALID_ARGUMENT")
    assert await ok(api, ws, "/v2/workspace/requested/domains/get") == []
