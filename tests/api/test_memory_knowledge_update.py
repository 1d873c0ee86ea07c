"""Replacing a knowledge source's content and downloading its canonical Markdown."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.knowledge_support import TEXT, ingest, inline, search, settled

OLD = (
    "# Refund policy\n\n"
    "- Staff must refund purchases to the original card within fourteen days.\n"
    "- Staff must never refund in cash.\n"
)
NEW = (
    "# Refund policy, second edition\n\n"
    "- Staff must never refund in cash.\n"
    "- A team lead must approve every refund before it is paid out.\n"
)
PROSE = "The office opens at nine. Lunch is served in the canteen at noon.\n"


async def completed_source(api: ApiClient, ws: Workspace, text: str) -> str:
    source_id = await ingest(api, ws, inline(text.encode(), TEXT, "policy.txt"))
    assert (await settled(api, ws, source_id))["status"] == "completed"
    return source_id


async def update(api: ApiClient, ws: Workspace, data: dict[str, Any]) -> Any:
    return await api.post("/v2/memory/knowledge/update", data, headers=ws.key_headers)


async def download(api: ApiClient, ws: Workspace, source_id: str) -> Any:
    response = await api.post(
        "/v2/memory/knowledge/download", {"sourceId": source_id}, headers=ws.key_headers
    )
    assert response.status == 200, response.body
    return response.result


async def test_an_update_replaces_what_search_finds_and_what_download_shows(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    source_id = await completed_source(api, ws, OLD)
    assert "fourteen days" in await download(api, ws, source_id)

    response = await update(api, ws, {"sourceId": source_id, "newContent": NEW})

    assert response.status == 200, response.body
    result = response.result
    assert result["newVersion"] == 2
    assert [r for r in result["diff"]["added"] if "team lead" in r]
    assert [r for r in result["diff"]["removed"] if "fourteen days" in r]
    assert result["diff"]["unchanged"] == 1
    found = await search(api, ws, "who has to approve a refund before the money is paid out?")
    texts = [r["text"] for r in found["results"]]
    assert "team lead" in texts[0]
    old_found = await search(api, ws, "within how many days is a purchase refunded to the card?")
    assert not [t for t in old_found["results"] if "fourteen" in t["text"]]
    with_rules = await search(api, ws, "refund to the card", includeRules=True, limit=50)
    assert not [t for t in with_rules["results"] if "fourteen" in t["text"]]
    markdown = await download(api, ws, source_id)
    assert "team lead" in markdown
    assert "second edition" in markdown
    assert "fourteen" not in markdown


async def test_the_new_content_shows_in_status_rules_and_the_signed_markdown_link(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    source_id = await completed_source(api, ws, OLD)

    assert (await update(api, ws, {"sourceId": source_id, "newContent": NEW})).status == 200
    third = await update(
        api, ws, {"sourceId": source_id, "newContent": NEW + "- Never refund gift cards.\n"}
    )

    assert third.result["newVersion"] == 3
    assert third.result["diff"]["unchanged"] == 2
    status = await settled(api, ws, source_id)
    assert status["status"] == "completed"
    assert status["extractedRulesCount"] == 3
    rules = await api.post(
        "/v2/memory/knowledge/rules", {"sourceId": source_id}, headers=ws.key_headers
    )
    contents = " ".join(r["content"] for r in rules.result)
    assert "gift cards" in contents
    assert "fourteen" not in contents
    async with api.session.get(status["canonicalMdDownloadUrl"]) as linked:
        assert linked.status == 200
        body = await linked.text()
    assert "gift cards" in body
    assert body == await download(api, ws, source_id)


async def test_a_prose_source_is_not_rule_based_and_stays_as_it_was(api: ApiClient) -> None:
    ws = await api.create_workspace()
    source_id = await completed_source(api, ws, PROSE)

    response = await update(api, ws, {"sourceId": source_id, "newContent": NEW})

    error = assert_failure(response, 400, "FAILED_PRECONDITION")
    assert error["message"] == "Version diff is only supported for rule-based knowledge sources."
    assert "canteen" in await download(api, ws, source_id)


async def test_content_that_cannot_be_indexed_leaves_the_source_as_it_was(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    source_id = await completed_source(api, ws, OLD)

    response = await update(api, ws, {"sourceId": source_id, "newContent": " \n\t \n"})

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.newContent"]
    found = await search(api, ws, "within how many days is a purchase refunded to the card?")
    assert "fourteen days" in found["results"][0]["text"]
    assert "fourteen days" in await download(api, ws, source_id)
    status = await settled(api, ws, source_id)
    assert status["extractedRulesCount"] == 2
    again = await update(api, ws, {"sourceId": source_id, "newContent": NEW})
    assert again.result["newVersion"] == 2


async def test_update_validates_its_fields(api: ApiClient) -> None:
    ws = await api.create_workspace()
    for data, path in (
        ({"newContent": NEW}, "data.sourceId"),
        ({"sourceId": "src_x"}, "data.newContent"),
        ({"sourceId": "src_x", "newContent": ""}, "data.newContent"),
        ({"sourceId": "", "newContent": NEW}, "data.sourceId"),
        ({"sourceId": "src_x", "newContent": 7}, "data.newContent"),
    ):
        error = assert_failure(await update(api, ws, data), 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == [path], data


async def test_an_unknown_source_is_not_found_and_downloads_as_null(api: ApiClient) -> None:
    ws = await api.create_workspace()

    response = await update(api, ws, {"sourceId": "src_missing", "newContent": NEW})

    assert_failure(response, 404, "NOT_FOUND")
    assert await download(api, ws, "src_missing") is None
    missing = await api.post("/v2/memory/knowledge/download", {}, headers=ws.key_headers)
    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.sourceId"]


async def test_another_workspace_neither_updates_nor_downloads_a_source(api: ApiClient) -> None:
    owner = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    source_id = await completed_source(api, owner, OLD)

    response = await update(api, other, {"sourceId": source_id, "newContent": NEW})

    assert_failure(response, 404, "NOT_FOUND")
    assert await download(api, other, source_id) is None
    assert "fourteen days" in await download(api, owner, source_id)
