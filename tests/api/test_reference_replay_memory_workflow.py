"""The reference's example requests for Memory and the approval engine, replayed as a customer
pasting them would: knowledge files are uploaded and waited for, and the workflow's step ids are
read back from the execution, as the pages' flows do."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from redline.testing.api import ApiClient, StartApi
from tests.api.knowledge_support import PDF
from tests.api.memory_support import judged, until_recorded
from tests.api.replay_memory_samples import (
    ALERTS,
    INSIGHTS,
    KNOWLEDGE_BY_REFERENCE,
    KNOWLEDGE_INGEST,
    KNOWLEDGE_READS,
    REJECTED_COPY,
    REJECTION_REASON,
    SARAH,
    UPLOADED_GUIDELINES,
)
from tests.api.replay_support import Replay, replay_client, velt_headers
from tests.api.replay_workflow_samples import (
    DEFINITIONS,
    DISPATCH,
    EXECUTIONS,
    PARALLEL_REVIEW,
    SIGNOFF,
    SIGNOFF_DECISION,
    STEPS,
)

# How long a customer's polling loop waits before giving up; not a timing assertion.
DEADLINE_S = 90.0


async def poll(replay: Replay, path: str, data: dict[str, Any], done: str | tuple[str, ...]) -> Any:
    """The result of `path` once it is done, as a customer polls it: a knowledge source once
    its ingestion has settled ("ingested"), an execution once the named nodes' steps wait."""
    async with asyncio.timeout(DEADLINE_S):
        while True:
            headers = velt_headers(replay.workspace, "key")
            response = await replay.api.post(path, data, headers=headers)
            assert response.status == 200, response.body
            result = response.body["result"]
            if _holds(result, done):
                return result
            await asyncio.sleep(0.05)


def _holds(result: Any, done: str | tuple[str, ...]) -> bool:
    if done == "ingested":
        return bool(result["status"] != "processing")
    waiting = {s["nodeId"] for s in result["steps"] if s["status"] == "waiting"}
    return waiting.issuperset(done)


async def test_memory_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    http = await replay_client(target_url, start_api, api)
    replay = await Replay.start(http)
    for annotation, copy in REJECTED_COPY.items():
        await judged(
            http,
            replay.workspace,
            annotation,
            copy,
            "reject",
            REJECTION_REASON,
            user=SARAH,
            organization="org_eu",
            issue="marketing-copy",
        )
    await until_recorded(http, replay.workspace, len(REJECTED_COPY))
    # The alert check runs periodically; the operator call the SDK offers runs it now.
    checked = await http.post(
        "/v2/memory/consolidation/trigger",
        {"force": True},
        headers=velt_headers(replay.workspace, "key"),
    )
    assert checked.status == 200, checked.body
    await replay.assert_answers([*INSIGHTS, *ALERTS, *KNOWLEDGE_INGEST])

    # The upload-url page's next step: PUT the bytes with the declared Content-Type.
    upload = replay.values["uploadUrl"]
    body = io.BytesIO(UPLOADED_GUIDELINES)
    async with http.session.put(upload, data=body, headers={"Content-Type": PDF}) as put:
        assert put.status == 200, await put.text()
    await replay.assert_answers(KNOWLEDGE_BY_REFERENCE)

    # Ingestion runs in the background: poll ingest-status until it settles, as the page says.
    settled: dict[str, Any] = {}
    for name in ("placeholderSourceId", "sourceId", "uploadedSourceId"):
        settled[name] = await poll(
            replay,
            "/v2/memory/knowledge/ingest-status",
            {"sourceId": replay.values[name]},
            "ingested",
        )
    # The page's cut-short file is accepted, then fails as the "Failed Ingestion Response" shows.
    placeholder = settled.pop("placeholderSourceId")
    assert placeholder["status"] == "failed", placeholder
    assert "failureReason" in placeholder, placeholder
    assert [s["status"] for s in settled.values()] == ["completed", "completed"], settled
    await replay.assert_answers(KNOWLEDGE_READS)


async def waiting_steps(replay: Replay, execution: str, *nodes: str) -> list[str]:
    """The ids of the nodes' steps once each waits, read from the execution as the setup guide
    says (look for the step that waits on a human and take its `stepId`)."""
    found = await poll(
        replay, "/v2/workflow/executions/get", {"executionId": replay.values[execution]}, nodes
    )
    return [
        next(
            s["stepId"] for s in found["steps"] if s["nodeId"] == node and s["status"] == "waiting"
        )
        for node in nodes
    ]


async def test_workflow_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers([*DEFINITIONS, *EXECUTIONS, *SIGNOFF])
    [replay.values["signoffStepId"]] = await waiting_steps(
        replay, "signoffExecutionId", "manager-approval"
    )
    await replay.assert_answers(SIGNOFF_DECISION)


async def test_step_examples_answer_on_the_parallel_review_they_name(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers([PARALLEL_REVIEW, DISPATCH])
    steps = await waiting_steps(replay, "executionId", "human-legal", "human-brand")
    replay.values["legalStepId"], replay.values["brandStepId"] = steps
    await replay.assert_answers(STEPS)
