"""Ask: answers grounded in knowledge and judgments, with citations, or nothing at all."""

from __future__ import annotations

from redline.testing.api import ApiClient
from tests.api.knowledge_support import TEXT, ingest, inline, settled

POLICY = (
    "Refunds\n\n"
    "Customers may ask for their money back within fourteen days of delivery.\n\n"
    "Shipping\n\n"
    "Orders leave the warehouse within two working days.\n"
)


async def test_an_answer_quotes_its_support_and_cites_it(api: ApiClient) -> None:
    ws = await api.create_workspace()
    source_id = await ingest(api, ws, inline(POLICY.encode(), TEXT, "policy.txt"))
    await settled(api, ws, source_id)

    asked = await api.post(
        "/v2/memory/ask",
        {"question": "how long do customers have to get a refund?"},
        headers=ws.key_headers,
    )

    assert asked.status == 200, asked.body
    answer = asked.result
    assert "fourteen days" in answer["answer"]
    assert answer["citations"][0]["sourceId"] == source_id
    assert answer["citations"][0]["recordId"].startswith("chunk_")
    assert "fourteen days" in answer["citations"][0]["snippet"]
    assert 0 < answer["confidence"] <= 1
    assert answer["recordsSearched"] >= 1


async def test_nothing_grounds_an_unrelated_question(api: ApiClient) -> None:
    ws = await api.create_workspace()
    source_id = await ingest(api, ws, inline(POLICY.encode(), TEXT, "policy.txt"))
    await settled(api, ws, source_id)

    asked = await api.post(
        "/v2/memory/ask", {"question": "what is the capital of Mongolia?"}, headers=ws.key_headers
    )

    assert asked.status == 200, asked.body
    assert asked.result["answer"] == ""
    assert asked.result["confidence"] == 0
    assert asked.result["citations"] == []


async def test_an_empty_memory_answers_nothing(api: ApiClient) -> None:
    ws = await api.create_workspace()
    asked = await api.post(
        "/v2/memory/ask",
        {"question": "why were suggestions rejected?", "orgId": "acme"},
        headers=ws.key_headers,
    )
    assert asked.status == 200, asked.body
    assert asked.result == {"answer": "", "citations": [], "confidence": 0.0, "recordsSearched": 0}


async def test_a_question_of_the_longest_kind_is_answered(api: ApiClient) -> None:
    # 4,000 characters of one token each, eight times what the model reads in one pass: the
    # question is embedded from its first window, in one pass.
    ws = await api.create_workspace()
    asked = await api.post("/v2/memory/ask", {"question": "é" * 4000}, headers=ws.key_headers)
    assert asked.status == 200, asked.body
    assert asked.result == {"answer": "", "citations": [], "confidence": 0.0, "recordsSearched": 0}
