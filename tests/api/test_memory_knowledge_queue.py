"""The ingest queue shared by every tenant: workspaces take turns, a workspace's backlog is
capped, and a file that would make too many chunks fails instead of filling the index."""

from __future__ import annotations

import time
from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.knowledge_support import TEXT, ingest, inline, search, settled


def _notes(topic: str, sentences: int = 40) -> bytes:
    return (
        f"{topic}\n\n"
        + " ".join(
            f"Note {n} of the {topic.lower()} policy describes how the office works."
            for n in range(sentences)
        )
        + "\n"
    ).encode()


async def _status(api: ApiClient, ws: Workspace, source_id: str) -> str:
    answer = await api.post(
        "/v2/memory/knowledge/ingest-status", {"sourceId": source_id}, headers=ws.key_headers
    )
    assert answer.status == 200, answer.body
    status: str = answer.result["status"]
    return status


async def test_a_workspace_behind_another_ones_backlog_is_served_in_turn(api: ApiClient) -> None:
    busy, other = await api.create_workspace(), await api.create_workspace("b@example.com")
    backlog = [
        await ingest(api, busy, inline(_notes(f"Topic {n}", 3), TEXT, f"t{n}.txt"))
        for n in range(4)
    ]
    queued_at = time.monotonic()
    late = await ingest(api, other, inline(_notes("Travel", 3), TEXT, "travel.txt"))

    done = await settled(api, other, late)
    waited_s = time.monotonic() - queued_at

    assert done["status"] == "completed", done
    still_waiting = [s for s in backlog if await _status(api, busy, s) == "processing"]
    # Under first come, first served it would have waited for all four.
    assert len(still_waiting) >= 2, f"waited {waited_s:.1f} s"


async def test_a_workspace_may_have_only_so_many_ingests_outstanding(start_api: Any) -> None:
    # No worker takes files up: what is queued stays queued.
    api: ApiClient = await start_api(max_outstanding_ingests=2, ingest_concurrency=0)
    full, other = await api.create_workspace(), await api.create_workspace("b@example.com")
    for n in range(2):
        await ingest(api, full, inline(_notes(f"Topic {n}"), TEXT, f"t{n}.txt"))

    refused = await api.post(
        "/v2/memory/knowledge/ingest",
        inline(_notes("One more"), TEXT, "more.txt"),
        headers=full.key_headers,
    )
    error = assert_failure(refused, 429, "RESOURCE_EXHAUSTED")
    assert "At most 2 ingests" in error["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    listed = await api.post("/v2/memory/knowledge/list", {}, headers=full.key_headers)
    assert len(listed.result) == 2  # the refused file left no source behind

    # A fileRef ingest counts the same; another workspace is not held back.
    asked = await api.post(
        "/v2/memory/knowledge/upload-url",
        {"mimeType": TEXT, "fileSize": 5},
        headers=full.key_headers,
    )
    async with api.session.put(
        asked.result["uploadUrl"], data=b"notes", headers={"content-type": TEXT}
    ) as put:
        assert put.status == 200
    by_ref = await api.post(
        "/v2/memory/knowledge/ingest",
        {"source": "fileRef", "fileRef": asked.result["fileRef"], "mimeType": TEXT},
        headers=full.key_headers,
    )
    assert_failure(by_ref, 429, "RESOURCE_EXHAUSTED")
    await ingest(api, other, inline(_notes("Travel"), TEXT, "travel.txt"))


async def test_a_file_over_the_chunk_cap_fails_with_its_reason(start_api: Any) -> None:
    api: ApiClient = await start_api(max_chunks_per_file=2)
    ws = await api.create_workspace()
    source_id = await ingest(api, ws, inline(_notes("Security", 400), TEXT, "security.txt"))

    status = await settled(api, ws, source_id)

    assert (status["status"], status["failureReason"]) == ("failed", "too-many-chunks")
    assert "at most 2" in status["failureDetail"]
    assert (await search(api, ws, "security policy rule"))["results"] == []
    small = await ingest(api, ws, inline(_notes("Travel", 3), TEXT, "travel.txt"))
    assert (await settled(api, ws, small))["status"] == "completed"
