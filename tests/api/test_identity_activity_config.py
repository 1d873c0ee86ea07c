"""Activity log configuration: seeding on first enable, merges, the empty-config error."""

from __future__ import annotations

from redline.proto.events import (
    now_ms,
)
from redline.testing.api import ApiClient, assert_failure, issue_paths
from tests.api.config_support import (
    SEEDED_ACTIVITY_TRIGGERS,
    call,
    ok,
)

# activity logs -----------------------------------------------------------------------------------


async def test_activity_config_of_a_new_key_is_disabled(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-default@example.com")

    data = await ok(api, ws, "/v2/workspace/activityconfig/get")

    assert data == {"activityServiceConfig": {"isEnabled": False}}


async def test_first_activity_enable_seeds_defaults_and_later_updates_keep_enabled_time(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("activity-seed@example.com")
    path = "/v2/workspace/activityconfig/update"
    before = now_ms()

    first = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": True}})

    config = first["activityServiceConfig"]
    assert config["isEnabled"] is True
    assert config["immutable"] is True
    assert config["triggers"] == SEEDED_ACTIVITY_TRIGGERS
    assert before <= config["enabledTime"] <= now_ms()

    tuned = await ok(
        api, ws, path, {"activityServiceConfig": {"triggers": {"comment.delete": False}}}
    )
    disabled = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": False}})
    again = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": True}})

    assert tuned["activityServiceConfig"] == {
        **config,
        "triggers": {**SEEDED_ACTIVITY_TRIGGERS, "comment.delete": False},
    }
    assert disabled["activityServiceConfig"]["isEnabled"] is False
    assert disabled["activityServiceConfig"]["enabledTime"] == config["enabledTime"]
    assert again["activityServiceConfig"] == {**tuned["activityServiceConfig"], "isEnabled": True}
    assert await ok(api, ws, "/v2/workspace/activityconfig/get") == again


async def test_activity_values_sent_on_first_enable_win(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-sent@example.com")

    data = await ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {
            "activityServiceConfig": {
                "isEnabled": True,
                "enabledTime": 1_700_000_000_000,
                "immutable": False,
                "triggers": {"comment_annotation.suggestion_reject": False},
            }
        },
    )

    assert data["activityServiceConfig"] == {
        "isEnabled": True,
        "enabledTime": 1_700_000_000_000,
        "immutable": False,
        "triggers": {**SEEDED_ACTIVITY_TRIGGERS, "comment_annotation.suggestion_reject": False},
    }


async def test_activity_update_without_fields_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-empty@example.com")
    path = "/v2/workspace/activityconfig/update"

    empty = await call(api, ws, path, {"activityServiceConfig": {}})
    missing = await call(api, ws, path, {})
    negative = await call(api, ws, path, {"activityServiceConfig": {"enabledTime": -1}})

    error = assert_failure(empty, 400, "INVALID_ARGUMENT")
    assert "at least one field" in error["message"]
    assert issue_paths(error) == ["data.activityServiceConfig"]
    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == [
        "data.activityServiceConfig"
    ]
    assert issue_paths(assert_failure(negative, 400, "INVALID_ARGUMENT")) == [
        "data.activityServiceConfig.enabledTime"
    ]
    assert await ok(api, ws, "/v2/workspace/activityconfig/get") == {
        "activityServiceConfig": {"isEnabled": False}
    }
