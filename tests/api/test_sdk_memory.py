"""The official SDK's memory methods against Redline, unchanged but for its base URL: a file
ingested, polled until done, searched and asked about, then changed, downloaded and deleted; and
the judgment, insight, alert and operator calls beside it."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from velt_py.models import (
    BackfillJudgmentsRequest,
    DeleteKnowledgeRequest,
    DismissAlertRequest,
    DownloadCanonicalMarkdownRequest,
    GetAlertConfigRequest,
    GetIngestStatusRequest,
    GetPatternsRequest,
    GetReviewerProfileRequest,
    GetStatsRequest,
    GetUploadUrlRequest,
    IngestKnowledgeRequest,
    ListAlertsRequest,
    ListExtractedRulesRequest,
    ListKnowledgeSourcesRequest,
    MarkAlertActionedRequest,
    MemoryAskRequest,
    MemorySearchRequest,
    MemorySuggestRequest,
    QueryJudgmentsRequest,
    SearchKnowledgeRequest,
    SeedActiveApiKeysRequest,
    TriggerConsolidationRequest,
    UpdateAlertConfigRequest,
    UpdateKnowledgeRequest,
)

from redline.testing.api import ApiClient, StartApi
from tests.api.sdk_support import Sdk, sdk_for

POLICY = (
    "# Refund policy\n\n"
    "- Staff must refund purchases to the original card within fourteen days.\n"
    "- Staff must never refund in cash.\n"
)
SECOND_EDITION = (
    "# Refund policy, second edition\n\n"
    "- Staff must never refund in cash.\n"
    "- A team lead must approve every refund before it is paid out.\n"
)


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def completed(sdk: Sdk, source_id: str) -> dict[str, Any]:
    async with asyncio.timeout(90):
        while True:
            status = await sdk.result(
                sdk.api.memory.getIngestStatus, GetIngestStatusRequest(sourceId=source_id)
            )
            if status["status"] != "processing":
                assert status["status"] == "completed", status
                return dict(status)
            await asyncio.sleep(0.1)


async def test_knowledge_from_ingest_to_delete(sdk: Sdk) -> None:
    memory = sdk.api.memory
    data = POLICY.encode()
    file = {
        "base64": base64.b64encode(data).decode(),
        "mimeType": "text/plain",
        "fileName": "refunds.txt",
        "fileSize": len(data),
    }
    accepted = await sdk.result(
        memory.ingestKnowledge, IngestKnowledgeRequest(source="inline", file=file)
    )
    source_id = accepted["sourceId"]
    assert (await completed(sdk, source_id))["extractedRulesCount"] >= 1

    listed = await sdk.result(memory.listKnowledgeSources, ListKnowledgeSourcesRequest())
    assert source_id in str(listed)
    rules = await sdk.result(
        memory.listExtractedRules, ListExtractedRulesRequest(sourceId=source_id)
    )
    assert "cash" in str(rules)
    found = await sdk.result(
        memory.searchKnowledge,
        SearchKnowledgeRequest(query="can staff refund in cash?", includeRules=True),
    )
    assert found["results"]
    answered = await sdk.result(memory.ask, MemoryAskRequest(question="How are refunds paid back?"))
    assert answered["answer"]

    changed = await sdk.result(
        memory.updateKnowledge,
        UpdateKnowledgeRequest(sourceId=source_id, newContent=SECOND_EDITION),
    )
    assert changed["newVersion"] == 2
    markdown = await sdk.result(
        memory.downloadCanonicalMarkdown, DownloadCanonicalMarkdownRequest(sourceId=source_id)
    )
    assert "team lead" in str(markdown)
    upload = await sdk.result(
        memory.getUploadUrl,
        GetUploadUrlRequest(mimeType="text/plain", fileSize=100, fileName="next.txt"),
    )
    assert upload
    await sdk.result(memory.deleteKnowledge, DeleteKnowledgeRequest(sourceId=source_id))


async def test_judgments_insights_alerts_and_operator_calls(sdk: Sdk) -> None:
    memory = sdk.api.memory
    assert "results" in await sdk.result(
        memory.search,
        MemorySearchRequest(query="refunds", scope="organization", organizationId="acme"),
    )
    assert "total" in await sdk.result(
        memory.queryJudgments, QueryJudgmentsRequest(organizationId="acme", limit=10)
    )
    await sdk.result(memory.getPatterns, GetPatternsRequest())
    await sdk.result(memory.getStats, GetStatsRequest())
    await sdk.result(memory.getReviewerProfile, GetReviewerProfileRequest(targetUserId="ana"))
    await sdk.result(memory.suggest, MemorySuggestRequest(query="refund to the card"))
    await sdk.result(memory.listAlerts, ListAlertsRequest())
    await sdk.result(memory.updateAlertConfig, UpdateAlertConfigRequest(config={"enabled": True}))
    await sdk.result(memory.getAlertConfig, GetAlertConfigRequest())
    await sdk.result(memory.triggerConsolidation, TriggerConsolidationRequest(force=True))
    await sdk.result(memory.seedActiveApiKeys, SeedActiveApiKeysRequest())
    await sdk.result(memory.backfillJudgments, BackfillJudgmentsRequest(batchSize=100))


async def test_an_alert_raised_from_rejections_is_dismissed_and_actioned(sdk: Sdk) -> None:
    # Suggestions are resolved through Redline's own endpoint: the SDK has no method for it.
    memory, headers = sdk.api.memory, sdk.workspace.key_headers
    where = {"organizationId": "acme", "documentId": "contract"}
    for n in range(3):
        claim = [{"from": {"userId": "bot"}, "commentText": f"Clinically proven claim {n}"}]
        annotation = {"annotationId": f"claim-{n}", "type": "suggestion", "commentData": claim}
        added = await sdk.http.post(
            "/v2/commentannotations/add",
            {
                **where,
                "createOrganization": True,
                "createDocument": True,
                "commentAnnotations": [annotation],
            },
            headers=headers,
        )
        assert added.status == 200, added.body
        rejected = await sdk.http.post(
            "/v2/commentannotations/suggestions/resolve",
            {
                **where,
                "annotationId": f"claim-{n}",
                "action": "reject",
                "user": {"userId": "carol"},
                "reason": "Unsupported medical claim, no citation.",
            },
            headers=headers,
        )
        assert rejected.status == 200, rejected.body
    judged = QueryJudgmentsRequest(decision="rejected")
    async with asyncio.timeout(30):
        while True:
            if (await sdk.result(memory.queryJudgments, judged))["total"] >= 3:
                break
            await asyncio.sleep(0.1)

    triggered = await sdk.result(memory.triggerConsolidation, TriggerConsolidationRequest())
    assert triggered["alertsRaised"] >= 1, triggered
    [alert, *_] = await sdk.result(memory.listAlerts, ListAlertsRequest())
    await sdk.result(memory.dismissAlert, DismissAlertRequest(alertId=alert["id"]))
    await sdk.result(memory.markAlertActioned, MarkAlertActionedRequest(alertId=alert["id"]))
