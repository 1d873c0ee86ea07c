"""The notify-activity consumer's handler against a real database: one record per event however
often it is delivered, nothing for a key that is gone, and errors that call for a retry raised."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from redline.envelope.errors import ApiError, NotFound, Unauthenticated, Unavailable
from redline.notify.activities.recorder import ActivityRecorder
from redline.pg import Pool
from redline.proto.events import AnnotationAdded, KeyRevoked
from redline.proto.events.identity import (
    ActivityConfigState,
    AdvancedWebhookConfigState,
    WebhookConfigState,
)
from redline.proto.rpc import ApiKeyConfig
from redline.testing.annotations import annotation, annotation_json


class Configs:
    """Answers every key with `config`, or raises `error`; counts the questions."""

    def __init__(self, config: ApiKeyConfig | None = None, error: ApiError | None = None):
        self.config = config
        self.error = error
        self.asked = 0

    async def get(self, api_key: str) -> ApiKeyConfig:
        self.asked += 1
        if self.error is not None:
            raise self.error
        assert self.config is not None
        return self.config


def config(workspace: str = "ws1") -> ApiKeyConfig:
    return ApiKeyConfig(
        workspaceId=workspace,
        apiKey="key1",
        webhook=WebhookConfigState(),
        advancedWebhook=AdvancedWebhookConfigState(),
        activity=ActivityConfigState(
            isEnabled=True, immutable=True, triggers={"comment_annotation.add": True}
        ),
    )


def added(**extra: Any) -> AnnotationAdded:
    return AnnotationAdded(
        workspaceId="ws1",
        apiKey="key1",
        organizationId="org1",
        documentId="d1",
        annotationId="a1",
        annotation=annotation(),
        **extra,
    )


async def rows(pool: Pool) -> list[Any]:
    return await pool.fetch("SELECT * FROM notify.activity ORDER BY id")


async def test_a_redelivered_event_is_recorded_once(pool: Pool) -> None:
    recorder = ActivityRecorder(pool, Configs(config()))
    event = added(occurredAt=1_700_000_000_000)

    await recorder.handle([event])
    await recorder.handle([event])

    [row] = await rows(pool)
    assert row["id"] == "act_" + event.id
    assert row["workspace_id"] == "ws1"
    assert row["api_key"] == "key1"
    assert row["organization_id"] == "org1"
    assert row["document_id"] == "d1"
    assert row["feature_type"] == "comment"
    assert row["action_type"] == "comment_annotation.add"
    assert row["timestamp"] == 1_700_000_000_000
    assert row["target_entity_id"] == "a1"
    assert row["immutable"] is True
    assert row["record"]["id"] == row["id"]
    assert row["record"]["entityData"] == annotation_json()


@pytest.mark.parametrize("error", [NotFound("gone"), Unauthenticated("revoked")])
async def test_nothing_is_recorded_for_a_key_that_is_gone(pool: Pool, error: ApiError) -> None:
    await ActivityRecorder(pool, Configs(error=error)).handle([added()])

    assert await rows(pool) == []


async def test_other_failures_raise_so_the_event_is_retried(pool: Pool) -> None:
    recorder = ActivityRecorder(pool, Configs(error=Unavailable("identity is down")))

    with pytest.raises(Unavailable):
        await recorder.handle([added()])
    assert await rows(pool) == []


async def test_an_event_of_another_workspace_than_the_keys_is_not_recorded(pool: Pool) -> None:
    await ActivityRecorder(pool, Configs(config(workspace="ws2"))).handle([added()])

    assert await rows(pool) == []


async def test_events_of_other_services_are_ignored(pool: Pool) -> None:
    configs = Configs(config())

    await ActivityRecorder(pool, configs).handle(
        [KeyRevoked(workspaceId="ws1", credential="apiKey", apiKey="key1")]
    )

    assert configs.asked == 0
    assert await rows(pool) == []


async def test_a_batch_records_what_it_should_and_skips_the_rest(pool: Pool) -> None:
    recorder = ActivityRecorder(pool, Configs(config()))
    kept = [msgspec.structs.replace(added(), annotationId=f"a{i}") for i in range(3)]
    quiet = msgspec.structs.replace(added(), annotationId="quiet", triggerActivities=False)
    elsewhere = msgspec.structs.replace(added(), annotationId="other", workspaceId="ws2")

    await recorder.handle([kept[0], quiet, kept[1], elsewhere, kept[2]])

    assert sorted(row["target_entity_id"] for row in await rows(pool)) == ["a0", "a1", "a2"]
