"""Knowledge ingest and search through the API: real files in, paraphrased queries find them."""

from __future__ import annotations

from redline.testing.api import ApiClient, assert_failure
from tests.api.knowledge_support import PDF, ingest, inline, policy_pdf, search, settled

HANDBOOK = [
    (
        "Refunds",
        "Customers may ask for their money back within fourteen days of delivery. "
        "Refunds are paid to the original card within five working days. "
        "Staff must never refund in cash.",
    ),
    (
        "Security",
        "Laptops must be locked with a password whenever they are left unattended. "
        "Visitors are escorted at all times inside the data centre.",
    ),
    (
        "Travel",
        "Economy class is booked for flights under six hours. "
        "Hotel stays are reimbursed up to 150 euros per night in capital cities.",
    ),
]


async def test_a_pdf_is_ingested_and_found_by_a_paraphrase(api: ApiClient) -> None:
    ws = await api.create_workspace()
    source_id = await ingest(api, ws, inline(policy_pdf(HANDBOOK), PDF, "handbook.pdf"))

    status = await settled(api, ws, source_id)

    assert status["status"] == "completed", status
    assert status["chunkCount"] >= 1
    assert status["extractedRulesCount"] >= 2
    found = await search(api, ws, "how long do I have to return a purchase and get reimbursed?")
    assert found["recordsSearched"] == 1
    top = found["results"][0]
    assert "fourteen days" in top["text"]
    assert top["sourceId"] == source_id
    assert 0 <= top["score"] < 1
    scores = [r["score"] for r in found["results"]]
    assert scores == sorted(scores)


async def test_search_refuses_organization_and_document_ids(api: ApiClient) -> None:
    ws = await api.create_workspace()
    response = await api.post(
        "/v2/memory/knowledge/search",
        {"query": "anything", "organizationId": "org"},
        headers=ws.key_headers,
    )
    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert "organizationId" in error["message"]
