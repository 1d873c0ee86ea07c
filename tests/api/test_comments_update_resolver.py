"""Naming who resolved an annotation and who changed its status in an update, as the hosted
reference's update examples do: `resolvedByUserId` is what the `resolvedBy` filter matches."""

from __future__ import annotations

from redline.testing.api import ApiClient
from tests.api.comments_changes import insert, row, stored
from tests.api.test_comments_update import DONE, update


async def test_the_update_may_name_who_resolved_it_and_who_changed_the_status(
    api: ApiClient, database_url: str
) -> None:
    ws = await api.create_workspace("named-resolver@example.com")
    await insert(database_url, [row(ws, "a1", status="open")])

    done = await update(
        api,
        ws,
        annotationIds=["a1"],
        updatedData={"status": DONE, "resolvedByUserId": "dana", "statusUpdatedByUserId": "erin"},
    )
    assert done.status == 200, done.body
    resolved = await stored(database_url, ws, "a1")
    assert resolved is not None
    assert resolved["resolved_by"] == "dana"
    assert resolved["body"]["statusUpdatedByUserId"] == "erin"
    found = await api.post(
        "/v2/commentannotations/get",
        {"organizationId": "acme", "resolvedBy": "dana"},
        headers=ws.key_headers,
    )
    assert [a["annotationId"] for a in found.data] == ["a1"]

    # Null clears; reopening clears the resolver whatever the update names.
    cleared = await update(api, ws, updatedData={"resolvedByUserId": None})
    assert cleared.status == 200, cleared.body
    assert (await stored(database_url, ws, "a1") or {})["resolved_by"] is None
    reopened = await update(
        api,
        ws,
        updatedData={
            "status": {"id": "open", "name": "Open", "type": "default"},
            "resolvedByUserId": "dana",
            "statusUpdatedByUserId": None,
        },
    )
    assert reopened.status == 200, reopened.body
    opened = await stored(database_url, ws, "a1")
    assert opened is not None
    assert opened["resolved_by"] is None
    assert "statusUpdatedByUserId" not in opened["body"]
