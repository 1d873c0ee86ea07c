"""Activity records written from comments events: the key's settings and the request's flag
decide, immutable records, and document migration moving them."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.proto.events import now_ms
from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.activity_support import (
    DELETE,
    DONE,
    MIGRATE,
    MIGRATION_STATUS,
    ORG,
    UPDATE,
    add,
    add_annotation,
    by_action,
    call,
    enable,
    get,
    ids,
    ok,
    wait_for,
)

# recording comments events ---------------------------------------------------------------------


async def test_comment_events_are_recorded_by_triggers_and_request_flags(api: ApiClient) -> None:
    ws = await api.create_workspace("record@example.com")
    await enable(api, ws, immutable=False)

    await add_annotation(api, ws, "quiet", trigger=False)
    [root] = await add_annotation(api, ws, "loud", trigger=True)
    await ok(
        api,
        ws,
        "/v2/commentannotations/update",
        organizationId=ORG,
        documentId="d1",
        annotationIds=["loud"],
        updatedData=[{"status": DONE, "from": {"userId": "bob"}}],
    )
    await ok(
        api,
        ws,
        "/v2/commentannotations/reactions/add",
        organizationId=ORG,
        documentId="d1",
        annotationId="loud",
        commentId=root,
        icon="heart",
        user={"userId": "carol"},
    )

    records = await wait_for(api, ws, 3)
    found = by_action(records)
    assert set(found) == {
        "comment_annotation.add",
        "comment_annotation.status_change",
        "comment.reaction_add",
    }
    added = found["comment_annotation.add"]
    assert added["id"].startswith("act_")
    assert added["featureType"] == "comment"
    assert added["actionUser"]["userId"] == "alice"
    assert added["metadata"] == {"apiKey": ws.api_key, "organizationId": ORG, "documentId": "d1"}
    assert added["targetEntityId"] == "loud"
    assert added["targetSubEntityId"] is None
    assert added["changes"] == {}
    assert added["entityData"]["annotationId"] == "loud"
    assert added["immutable"] is False
    assert now_ms() - 60_000 < added["timestamp"] <= now_ms()
    status = found["comment_annotation.status_change"]
    assert status["featureType"] == "comment"
    assert status["actionUser"]["userId"] == "bob"
    assert set(status["changes"]) == {"status"}
    assert status["changes"]["status"]["to"]["id"] == "done"
    reaction = found["comment.reaction_add"]
    assert reaction["featureType"] == "reaction"
    assert reaction["targetEntityId"] == "loud"
    assert reaction["targetSubEntityId"] == str(root)
    assert reaction["entityData"]["icon"] == "heart"
    assert reaction["actionUser"]["userId"] == "carol"
    # Events are handled in order: the flagged-off annotation, added first, left no record.
    assert [r["targetEntityId"] for r in records] == ["loud"] * 3
    assert await get(api, ws, targetEntityId="quiet") == []


async def test_an_event_from_before_logs_were_turned_on_is_never_recorded(
    api: ApiClient,
) -> None:
    """The event and the change of settings back to back: the consumer may read the event only
    after the change, and must still leave it out (the event's time decides, not the reading's)."""
    ws = await api.create_workspace("race@example.com")
    await add_annotation(api, ws, "before", trigger=True)
    await enable(api, ws, immutable=False)
    await add_annotation(api, ws, "after", trigger=True)

    # Events are handled in stream order: once "after" is recorded, "before" has been handled.
    records = await wait_for(api, ws, 1)
    assert [r["targetEntityId"] for r in records] == ["after"]


async def test_a_trigger_turned_off_records_nothing_of_that_action(api: ApiClient) -> None:
    ws = await api.create_workspace("trigger-off@example.com")
    await enable(api, ws, immutable=False, triggers={"comment_annotation.add": False})

    await add_annotation(api, ws, "a1", trigger=True)
    reply = await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        organizationId=ORG,
        documentId="d1",
        annotationId="a1",
        commentData=[{"from": {"userId": "bob"}, "commentText": "Agreed"}],
    )

    [record] = await wait_for(api, ws, 1)
    assert record["actionType"] == "comment.add"
    assert record["targetSubEntityId"] == str(reply[0])
    assert record["entityData"]["commentText"] == "Agreed"
    assert record["actionUser"]["userId"] == "bob"


async def test_records_are_immutable_when_the_key_says_so(api: ApiClient) -> None:
    ws = await api.create_workspace("immutable@example.com")
    await enable(api, ws)  # the first enable makes records immutable

    await add_annotation(api, ws, "a1", trigger=True)
    [record] = await wait_for(api, ws, 1)
    assert record["immutable"] is True

    refused = await call(
        api, ws, UPDATE, organizationId=ORG, activityId=record["id"], actionType="edited"
    )
    error = assert_failure(refused, 400, "FAILED_PRECONDITION")
    assert error["message"] == f"Activity {record['id']} is immutable."
    kept = await ok(api, ws, DELETE, organizationId=ORG, activityIds=[record["id"]])
    assert kept == {
        record["id"]: {"success": False, "id": record["id"], "message": "Activity is immutable."}
    }
    assert await get(api, ws) == [record]


# document migration --------------------------------------------------------------------------


async def migrate(api: ApiClient, ws: Workspace, old: str, new: str) -> dict[str, Any]:
    started = await ok(api, ws, MIGRATE, organizationId=ORG, documentId=old, newDocumentId=new)
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        status: dict[str, Any] = await ok(
            api, ws, MIGRATION_STATUS, organizationId=ORG, migrationId=started["migrationId"]
        )
        if status["status"] in ("completed", "failed"):
            return status
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"migration did not finish: {status}")
        await asyncio.sleep(0.05)


async def test_a_document_migration_moves_the_records(api: ApiClient) -> None:
    ws = await api.create_workspace("migrate@example.com")
    await add(api, ws, {"id": "m1", "actionType": "a"}, documentId="old-doc")
    await add(api, ws, {"id": "m2", "actionType": "a", "immutable": True}, documentId="old-doc")
    await add(api, ws, {"id": "stay", "actionType": "a"}, documentId="other-doc")

    assert (await migrate(api, ws, "old-doc", "new-doc"))["status"] == "completed"

    moved = await get(api, ws, documentId="new-doc")
    assert sorted(ids(moved)) == ["m1", "m2"]
    assert {r["metadata"]["documentId"] for r in moved} == {"new-doc"}
    assert await get(api, ws, documentId="old-doc") == []
    assert ids(await get(api, ws, documentId="other-doc")) == ["stay"]


async def test_a_new_id_holding_records_fails_the_migration(api: ApiClient) -> None:
    ws = await api.create_workspace("migrate-taken@example.com")
    await add(api, ws, {"id": "src", "actionType": "a"}, documentId="source")
    await add(api, ws, {"id": "dst", "actionType": "a"}, documentId="taken")

    failed = await migrate(api, ws, "source", "taken")

    assert failed["status"] == "failed"
    assert "notify" in failed["failureReason"]
    assert ids(await get(api, ws, documentId="source")) == ["src"]
