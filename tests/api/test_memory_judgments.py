"""Judgments: review decisions made through the comments API become searchable memory."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure

REASONS = {
    "s-passive": "Legal copy has to stay in the active voice; rewriting it as passive hides"
    " who is responsible.",
    "s-emoji": "Emoji are not appropriate in contract clauses.",
}


async def _suggestion(api: ApiClient, ws: Workspace, document: str, key: str) -> str:
    added = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "acme",
            "documentId": document,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {
                    "annotationId": key,
                    "commentData": [
                        {
                            "commentText": "Proposed rewrite of clause 4.",
                            "from": {"userId": "bot"},
                            "agent": {
                                "agentSource": "svc",
                                "agentId": "style-checker",
                                "reason": {
                                    "title": "Style",
                                    "description": f"Suggestion {key}",
                                    "severity": "low",
                                    "issueType": "style",
                                },
                            },
                        }
                    ],
                }
            ],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body
    return key


async def _reject(
    api: ApiClient, ws: Workspace, document: str, key: str, reason: str, action: str = "reject"
) -> None:
    rejected = await api.post(
        "/v2/commentannotations/suggestions/resolve",
        {
            "organizationId": "acme",
            "documentId": document,
            "annotationId": key,
            "action": action,
            "user": {"userId": "carol", "name": "Carol"},
            "reason": reason,
        },
        headers=ws.key_headers,
    )
    assert rejected.status == 200, rejected.body


async def _search(api: ApiClient, ws: Workspace, **data: Any) -> Any:
    response = await api.post("/v2/memory/search", data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.result


async def _until_recorded(api: ApiClient, ws: Workspace, count: int) -> list[Any]:
    async with asyncio.timeout(30):
        while True:
            got = await api.post("/v2/memory/judgments/query", {}, headers=ws.key_headers)
            assert got.status == 200, got.body
            if got.result["total"] >= count:
                return list(got.result["results"])
            await asyncio.sleep(0.1)


async def test_a_rejected_suggestion_is_found_by_a_paraphrase_in_its_scope(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    for key, reason in REASONS.items():
        document = "contract" if key == "s-passive" else "memo"
        await _suggestion(api, ws, document, key)
        await _reject(api, ws, document, key, reason)
    recorded = await _until_recorded(api, ws, 2)
    assert {r["decision"] for r in recorded} == {"rejected"}
    assert recorded[0]["actionUser"] == {"userId": "carol", "name": "Carol"}
    assert recorded[0]["judgeType"] == "human"
    assert recorded[0]["agent"] is None

    found = await _search(
        api, ws, query="why do reviewers refuse sentences that do not say who acts?"
    )
    assert found["results"][0]["reasoning"] == REASONS["s-passive"]
    assert found["results"][0]["scope"] == "apiKey"
    assert found["totalInScope"] == 2
    in_memo = await _search(
        api, ws, query="passive voice", organizationId="acme", documentId="memo"
    )
    assert [r["reasoning"] for r in in_memo["results"]] == [REASONS["s-emoji"]]
    assert in_memo["results"][0]["scope"] == "document"
    assert in_memo["totalInScope"] == 1

    thread = await _search(
        api, ws, query="x", organizationId="acme", filters={"annotationId": "s-emoji"}
    )
    assert [(r["reasoning"], r["similarity"]) for r in thread["results"]] == [
        (REASONS["s-emoji"], 1.0)
    ]
    asked = await api.post(
        "/v2/memory/ask",
        {"question": "why do reviewers refuse sentences that do not say who acts?"},
        headers=ws.key_headers,
    )
    assert asked.result["citations"][0]["recordId"] == found["results"][0]["recordId"]
    assert REASONS["s-passive"] in asked.result["answer"]


async def test_search_validates_scope_and_dates(api: ApiClient) -> None:
    ws = await api.create_workspace()
    no_org = await api.post(
        "/v2/memory/search", {"query": "q", "scope": "organization"}, headers=ws.key_headers
    )
    assert_failure(no_org, 400, "INVALID_ARGUMENT")
    backwards = await api.post(
        "/v2/memory/search",
        {"query": "q", "filters": {"dateRange": {"start": "2026-02-01", "end": 1}}},
        headers=ws.key_headers,
    )
    error = assert_failure(backwards, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "data.filters.dateRange"
    # What the hosted product's SDK sends for unset filters: nulls inside `filters`.
    nulls = await api.post(
        "/v2/memory/search",
        {"query": "q", "filters": {"decision": None, "annotationId": None}, "limit": 50},
        headers=ws.key_headers,
    )
    assert nulls.status == 200, nulls.body
    assert nulls.result["results"] == []


PASSIVE_REASONS = [
    "Legal text must stay in the active voice.",
    "Passive voice hides who is responsible in a contract.",
    "Keep contract clauses active, not passive.",
    "This rewrite is passive; legal copy needs the active voice.",
    "We do not accept passive constructions in legal documents.",
    "Use active voice so the obligated party is clear.",
    "Passive voice is not allowed in our agreements.",
    "The clause must name who acts; passive voice is refused.",
    "Rewrite in active voice, passive is not acceptable here.",
    "Active voice only in legal copy, please.",
]


async def test_ten_similar_rejections_make_a_pattern(api: ApiClient) -> None:
    ws = await api.create_workspace()
    for n, reason in enumerate(PASSIVE_REASONS):
        await _suggestion(api, ws, "contract", f"p{n}")
        await _reject(api, ws, "contract", f"p{n}", reason)
    await _suggestion(api, ws, "contract", "typo")
    await _reject(api, ws, "contract", "typo", "Good catch on the typo in the date.", "accept")
    await _until_recorded(api, ws, len(PASSIVE_REASONS) + 1)

    got = await api.post("/v2/memory/patterns/get", {}, headers=ws.key_headers)

    assert got.status == 200, got.body
    [pattern] = got.result
    assert pattern["sourceCount"] == len(PASSIVE_REASONS)  # the approval stays out
    assert pattern["description"].startswith("Reviewers reject style items like")
    assert f"of {pattern['sourceCount']})" in pattern["description"]
    assert pattern["scope"] == "org"
    assert pattern["organizationId"] == "acme"
    assert pattern["uniqueReviewers"] == 1
    assert pattern["enforcementRate"] == 1.0  # every member rejected
    assert 0.5 < pattern["confidence"] < 1
    assert len(pattern["topSourceRecordIds"]) == 5


async def test_a_documents_judgments_follow_its_migration(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await _suggestion(api, ws, "draft", "s-passive")
    await _reject(api, ws, "draft", "s-passive", REASONS["s-passive"])
    await _until_recorded(api, ws, 1)
    started = await api.post(
        "/v2/organizations/documents/migrate",
        {"organizationId": "acme", "documentId": "draft", "newDocumentId": "final"},
        headers=ws.key_headers,
    )
    assert started.status == 200, started.body
    async with asyncio.timeout(30):
        while True:
            status = await api.post(
                "/v2/organizations/documents/migrate/status",
                {"organizationId": "acme", "migrationId": started.data["migrationId"]},
                headers=ws.key_headers,
            )
            if status.data["status"] in ("completed", "failed"):
                break
            await asyncio.sleep(0.05)
    assert status.data["status"] == "completed", status.data

    in_final = await _search(api, ws, query="voice", organizationId="acme", documentId="final")
    in_draft = await _search(api, ws, query="voice", organizationId="acme", documentId="draft")
    assert [r["reasoning"] for r in in_final["results"]] == [REASONS["s-passive"]]
    assert in_draft["results"] == []
    queried = await api.post(
        "/v2/memory/judgments/query",
        {"organizationId": "acme", "documentId": "final"},
        headers=ws.key_headers,
    )
    assert [r["documentId"] for r in queried.result["results"]] == ["final"]
