"""Memory alerts through the API: raised from a new pattern, listed, dismissed, actioned, and
the key's alert settings."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.memory_support import judged, until_recorded

CAROL = {"userId": "carol"}
REASON = "Unsupported medical claim without a citation."


async def post(api: ApiClient, ws: Workspace, path: str, data: dict[str, Any]) -> Any:
    response = await api.post(path, data, headers=ws.key_headers)
    assert response.status == 200, response.body
    return response.result


async def raised_alert(api: ApiClient, ws: Workspace) -> dict[str, Any]:
    """Three rejections for one reason make a pattern; the check run now raises its alert."""
    for n in range(3):
        await judged(
            api, ws, f"claim-{n}", f"Clinically proven claim {n}", "reject", REASON, user=CAROL
        )
    await until_recorded(api, ws, 3)
    run = await post(api, ws, "/v2/memory/consolidation/trigger", {"force": True})
    assert run == {"success": True, "patternsMerged": 0, "alertsRaised": 1}
    [alert] = await post(api, ws, "/v2/memory/alerts/list", {})
    return dict(alert)


async def test_a_new_pattern_raises_an_alert_that_is_dismissed_then_actioned(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    assert await post(api, ws, "/v2/memory/alerts/list", {}) == []

    alert = await raised_alert(api, ws)

    assert alert["alertType"] == "emerging_standard"
    assert alert["severity"] == "low"
    assert alert["apiKey"] == ws.api_key
    assert alert["status"] == "active"
    assert (alert["dismissedAt"], alert["dismissedBy"]) == (None, None)
    assert alert["dedupKey"].startswith("emerging_standard:")
    assert REASON in alert["description"]
    assert alert["evidence"]["metric"] == "enforcementRate"
    assert len(alert["evidence"]["sourceRecordIds"]) == 3
    assert alert["createdAt"] > 0
    ref = {"alertId": alert["id"]}
    assert await post(api, other, "/v2/memory/alerts/list", {}) == []
    assert_failure(
        await api.post("/v2/memory/alerts/dismiss", ref, headers=other.key_headers),
        404,
        "NOT_FOUND",
    )
    assert_failure(
        await api.post("/v2/memory/alerts/action", ref, headers=other.key_headers), 404, "NOT_FOUND"
    )
    assert len(await post(api, ws, "/v2/memory/alerts/list", {})) == 1

    dismissed = await post(api, ws, "/v2/memory/alerts/dismiss", {**ref, "user": {"uid": "carol"}})

    assert dismissed == {"success": True}
    assert await post(api, ws, "/v2/memory/alerts/list", {}) == []
    assert await post(api, ws, "/v2/memory/alerts/dismiss", ref) == {"success": True}
    assert await post(api, ws, "/v2/memory/alerts/action", ref) == {"success": True}
    assert await post(api, ws, "/v2/memory/alerts/action", ref) == {"success": True}
    assert await post(api, ws, "/v2/memory/alerts/list", {}) == []
    again = await post(api, ws, "/v2/memory/consolidation/trigger", {})
    assert again["alertsRaised"] == 0


async def test_alert_ids_are_checked(api: ApiClient) -> None:
    ws = await api.create_workspace()
    for path in ("/v2/memory/alerts/dismiss", "/v2/memory/alerts/action"):
        unknown = await api.post(path, {"alertId": "alert_missing"}, headers=ws.key_headers)
        assert_failure(unknown, 404, "NOT_FOUND")
        missing = await api.post(path, {}, headers=ws.key_headers)
        assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.alertId"]
    bad_user = await api.post(
        "/v2/memory/alerts/dismiss", {"alertId": "a", "user": {"uid": 3}}, headers=ws.key_headers
    )
    assert issue_paths(assert_failure(bad_user, 400, "INVALID_ARGUMENT")) == ["data.user.uid"]


async def test_alert_settings_are_merged_and_returned_as_sent(api: ApiClient) -> None:
    ws = await api.create_workspace()
    other = await api.create_workspace(email="other@example.com")
    assert await post(api, ws, "/v2/memory/alerts/config/get", {}) == {"enabled": True}

    first = {"maxAlertsPerWeek": 5, "enabledAlertTypes": ["anomaly", "made_up"], "team": "qa"}
    assert await post(api, ws, "/v2/memory/alerts/config/update", {"config": first}) == {
        "success": True
    }
    second = {"enabled": False, "severityThreshold": "medium"}
    await post(api, ws, "/v2/memory/alerts/config/update", {"config": second})

    assert await post(api, ws, "/v2/memory/alerts/config/get", {}) == {**first, **second}
    assert await post(api, other, "/v2/memory/alerts/config/get", {}) == {"enabled": True}


async def test_alert_settings_are_validated(api: ApiClient) -> None:
    ws = await api.create_workspace()
    for data, path in (
        ({}, "data.config"),
        ({"config": []}, "data.config"),
        ({"config": {"maxAlertsPerWeek": -1}}, "data.config.maxAlertsPerWeek"),
        ({"config": {"maxAlertsPerWeek": "3"}}, "data.config.maxAlertsPerWeek"),
        ({"config": {"severityThreshold": "urgent"}}, "data.config.severityThreshold"),
        ({"config": {"enabled": "yes"}}, "data.config.enabled"),
        ({"config": {"enabledAlertTypes": "anomaly"}}, "data.config.enabledAlertTypes"),
    ):
        response = await api.post("/v2/memory/alerts/config/update", data, headers=ws.key_headers)
        assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path], data
    assert await post(api, ws, "/v2/memory/alerts/config/get", {}) == {"enabled": True}


async def test_the_operator_calls_answer_what_a_self_hosted_install_does(api: ApiClient) -> None:
    ws = await api.create_workspace()
    full = {
        "storeDbId": "db1",
        "resumeFrom": "c",
        "batchSize": 500,
        "timestampLowerBoundMs": 1,
        "timestampUpperBoundMs": 2,
        "force": True,
        "allApiKeysInStore": True,
        "migrateOldSdk": False,
    }

    backfilled = await post(api, ws, "/v2/memory/backfill/judgments", full)
    seeded = await post(api, ws, "/v2/memory/consolidation/seed-active-api-keys", {})
    consolidated = await post(api, ws, "/v2/memory/consolidation/trigger", {})

    assert backfilled["success"] is True
    assert (backfilled["scanned"], backfilled["recorded"], backfilled["nextCursor"]) == (0, 0, None)
    assert (seeded["success"], seeded["seeded"]) == (True, 0)
    assert consolidated == {"success": True, "patternsMerged": 0, "alertsRaised": 0}
    for data, path in (
        ({"batchSize": 0}, "data.batchSize"),
        ({"batchSize": 1001}, "data.batchSize"),
        ({"allApiKeysInStore": True}, "data.storeDbId"),
        ({"timestampLowerBoundMs": 5, "timestampUpperBoundMs": 4}, "data.timestampLowerBoundMs"),
        ({"unknown": 1}, "data.unknown"),
    ):
        response = await api.post("/v2/memory/backfill/judgments", data, headers=ws.key_headers)
        assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path], data
    forced = await api.post(
        "/v2/memory/consolidation/trigger", {"force": "y"}, headers=ws.key_headers
    )
    assert issue_paths(assert_failure(forced, 400, "INVALID_ARGUMENT")) == ["data.force"]
