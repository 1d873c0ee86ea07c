"""Stats, reviewer profiles and suggested decisions, drawn from the judgments users make."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.knowledge_support import TEXT, ingest, inline, settled
from tests.api.memory_support import judged, until_recorded

CAROL = {"userId": "carol", "name": "Carol", "email": "carol@example.com"}
DAN = {"userId": "dan", "name": "Dan"}
WRINKLE_CLAIMS = [
    "Our serum is clinically proven to reduce wrinkles in two weeks.",
    "The new cream is clinically shown to erase fine lines and wrinkles.",
    "Clinically proven: this night cream makes wrinkles disappear.",
]
REASONS = [
    "Unsupported medical claim without a citation.",
    "Medical claims need a published study behind them.",
    "Unsupported medical claim without a citation.",
]


async def post(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.result


async def three_rejected_claims(api: ApiClient, ws: Workspace) -> None:
    users = [CAROL, DAN, CAROL]
    for n, (claim, reason, user) in enumerate(zip(WRINKLE_CLAIMS, REASONS, users, strict=True)):
        await judged(api, ws, f"claim-{n}", claim, "reject", reason, user=user)


async def test_stats_count_judgments_reviewers_and_sources_of_the_key(api: ApiClient) -> None:
    ws = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    empty = {
        "totalActivities": 0,
        "totalProfiles": 0,
        "totalPatterns": 0,
        "totalKnowledgeSources": 0,
    }
    assert await post(api, ws, "/v2/memory/stats/get", {}) == empty

    await three_rejected_claims(api, ws)
    await until_recorded(api, ws, 3)
    source_id = await ingest(api, ws, inline(b"Refunds go to the card.\n", TEXT, "a.txt"))
    await settled(api, ws, source_id)

    stats = await post(api, ws, "/v2/memory/stats/get", {})
    assert stats["totalActivities"] == 3
    assert stats["totalProfiles"] == 2
    assert stats["totalKnowledgeSources"] == 1
    patterns = await post(api, ws, "/v2/memory/patterns/get", {})
    assert stats["totalPatterns"] == len(patterns)
    assert await post(api, other, "/v2/memory/stats/get", {}) == empty
    extra = await api.post("/v2/memory/stats/get", {"x": 1}, headers=ws.key_headers)
    assert issue_paths(assert_failure(extra, 400, "INVALID_ARGUMENT")) == ["data.x"]


async def test_a_reviewer_profile_sums_up_their_judgments(api: ApiClient) -> None:
    ws = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    await three_rejected_claims(api, ws)
    await judged(
        api,
        ws,
        "tone-1",
        "Welcome aboard, friend!",
        "accept",
        "Friendly tone is fine here.",
        user=CAROL,
        issue="tone",
        organization="beta",
    )
    await until_recorded(api, ws, 4)

    profile = await post(api, ws, "/v2/memory/profiles/get", {"targetUserId": "carol"})

    assert profile["userId"] == "carol"
    assert (profile["name"], profile["email"]) == ("Carol", "carol@example.com")
    assert profile["totalJudgments"] == 3
    assert profile["approvalRate"] == round(1 / 3, 4)
    assert profile["avgReviewTimeSeconds"] == 0
    assert profile["topFlags"] == [{"issue": "claims", "count": 2}]
    assert profile["contentTypes"] == ["claims", "tone"]
    assert 1 <= len(profile["peakHours"]) <= 2
    assert all(0 <= h < 24 for h in profile["peakHours"])
    assert profile["orgBreakdown"] == {
        "acme": {
            "organizationId": "acme",
            "clientOrganizationId": "acme",
            "judgments": 2,
            "approvals": 0,
            "approvalRate": 0.0,
        },
        "beta": {
            "organizationId": "beta",
            "clientOrganizationId": "beta",
            "judgments": 1,
            "approvals": 1,
            "approvalRate": 1.0,
        },
    }
    assert profile["lastActive"] > 0
    assert profile["twinEligible"] is False
    assert profile["twinAccuracy"] is None
    assert "evolvedStandards" not in profile
    assert await post(api, ws, "/v2/memory/profiles/get", {"targetUserId": "nobody"}) is None
    assert await post(api, ws, "/v2/memory/profiles/get", {}) is None
    assert await post(api, other, "/v2/memory/profiles/get", {"targetUserId": "carol"}) is None
    wrong = await api.post("/v2/memory/profiles/get", {"targetUserId": 7}, headers=ws.key_headers)
    assert issue_paths(assert_failure(wrong, 400, "INVALID_ARGUMENT")) == ["data.targetUserId"]


async def test_suggest_recommends_what_reviewers_decided_on_like_items(api: ApiClient) -> None:
    ws = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    await three_rejected_claims(api, ws)
    await until_recorded(api, ws, 3)
    item = 'Ad copy: "clinically proven to reduce wrinkles"'

    suggested = await post(api, ws, "/v2/memory/suggest", {"query": item})

    primary = suggested["primary"]
    assert suggested["conflict"] is None
    assert primary["recommendation"] == "reject"
    assert primary["basedOn"] == 3
    assert primary["uniqueReviewers"] == 2
    assert (primary["scope"], primary["scopeLabel"]) == ("apiKey", "All content")
    assert primary["topReasons"][0] == REASONS[0]
    assert len(primary["topReasons"]) == 2  # the repeated reason once
    assert 0 < primary["confidence"] < 1
    assert primary["caveats"] == []
    in_org = await post(api, ws, "/v2/memory/suggest", {"query": item, "organizationId": "acme"})
    assert in_org["primary"]["scopeLabel"] == "This organization"
    on_doc = {"query": item, "organizationId": "acme", "documentId": "brochure"}
    assert (await post(api, ws, "/v2/memory/suggest", on_doc))["primary"]["scope"] == "document"
    alone = await post(api, ws, "/v2/memory/suggest", {"query": item, "documentId": "else"})
    assert alone["primary"]["scope"] == "apiKey"
    elsewhere = await post(api, ws, "/v2/memory/suggest", {"query": item, "organizationId": "x"})
    assert elsewhere == {"primary": None, "conflict": None}
    unrelated = await post(api, ws, "/v2/memory/suggest", {"query": "Lunch menu for Friday"})
    assert unrelated == {"primary": None, "conflict": None}
    assert await post(api, other, "/v2/memory/suggest", {"query": item}) == unrelated


async def test_suggest_reports_the_other_side_when_precedent_is_split(api: ApiClient) -> None:
    ws = await api.create_workspace()
    await three_rejected_claims(api, ws)
    for n, claim in enumerate(
        [
            "Clinically proven to reduce wrinkles, as the 2024 trial shows.",
            "This cream is clinically proven to smooth wrinkles (study cited).",
        ]
    ):
        await judged(api, ws, f"cited-{n}", claim, "accept", "The claim cites its study.", user=DAN)
    await until_recorded(api, ws, 5)
    source_id = await ingest(api, ws, inline(b"Claims must cite a study.\n", TEXT, "a.txt"))
    await settled(api, ws, source_id)

    suggested = await post(
        api, ws, "/v2/memory/suggest", {"query": 'Ad copy: "clinically proven to reduce wrinkles"'}
    )

    primary, conflict = suggested["primary"], suggested["conflict"]
    assert (primary["recommendation"], primary["basedOn"]) == ("reject", 3)
    assert (conflict["recommendation"], conflict["basedOn"]) == ("approve", 2)
    assert conflict["topReasons"] == ["The claim cites its study."]
    assert primary["confidence"] > conflict["confidence"]
    assert primary["caveats"][0].startswith("Conflicting precedent")
    assert "A knowledge source was updated in the last 48 hours." in primary["caveats"]
    assert len(conflict["caveats"]) == 1
    assert conflict["caveats"][0].startswith("Minority view")


async def test_suggest_validates_its_query(api: ApiClient) -> None:
    ws = await api.create_workspace()
    for data, path in (
        ({}, "data.query"),
        ({"query": ""}, "data.query"),
        ({"query": "x", "organizationId": 5}, "data.organizationId"),
    ):
        response = await api.post("/v2/memory/suggest", data, headers=ws.key_headers)
        assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path], data
