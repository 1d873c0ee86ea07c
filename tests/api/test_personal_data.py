"""/v2/users/data/get, /delete and /delete/status: the shapes of the hosted reference and its
SDK, validation, paging, and tenancy (another workspace's user with the same id is untouched)."""

from __future__ import annotations

from typing import Any

from redline.testing.api import ApiClient, Workspace, assert_failure, issue_paths
from tests.api.comments_add_support import add, annotation, comment
from tests.api.personal_data_support import (
    DELETE,
    GET,
    STATUS,
    comment_texts,
    erase,
    export,
    export_all,
    status,
    until_completed,
)


async def _member(api: ApiClient, ws: Workspace, user: str, org: str = "acme") -> None:
    added = await api.post(
        "/v2/users/add",
        {"organizationId": org, "users": [{"userId": user, "name": user.title()}]},
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


async def _refused(api: ApiClient, ws: Workspace, path: str, data: Any) -> list[str]:
    response = await api.post(path, data, headers=ws.key_headers)
    return issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT"))


async def test_requests_are_validated_naming_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace("gdpr-validate@example.com")
    assert await _refused(api, ws, DELETE, {}) == ["data.userIds"]
    assert await _refused(api, ws, DELETE, {"userIds": []}) == ["data.userIds"]
    many = [f"u{n}" for n in range(31)]
    assert await _refused(api, ws, DELETE, {"userIds": many}) == ["data.userIds"]
    assert await _refused(api, ws, DELETE, {"userIds": "u1"}) == ["data.userIds"]
    assert await _refused(api, ws, DELETE, {"userIds": ["u1"], "organizationIds": [7]}) == [
        "data.organizationIds[0]"
    ]
    assert await _refused(api, ws, DELETE, {"userIds": ["u1"], "extra": 1}) == ["data.extra"]
    assert await _refused(api, ws, GET, {"organizationId": "acme"}) == ["data.userId"]
    assert await _refused(api, ws, GET, {"userId": "u1"}) == ["data.organizationId"]
    assert await _refused(
        api, ws, GET, {"organizationId": "acme", "userId": "u1", "pageToken": "forged"}
    ) == ["data.pageToken"]
    assert await _refused(api, ws, STATUS, {}) == ["data.jobId"]
    missing = await status(api, ws, "pdj_unknown")
    assert_failure(missing, 404, "NOT_FOUND")


async def test_answers_have_the_reference_shapes(api: ApiClient) -> None:
    ws = await api.create_workspace("gdpr-shapes@example.com")
    got = await export(api, ws, "nobody")
    assert got.status == 200, got.body
    assert got.result["status"] == "success"
    assert got.result["message"] == "Data fetched successfully."
    for kind in ("comments", "reactions", "recordings", "notifications"):
        assert got.data[kind] == []
    assert "nextPageToken" not in got.result

    started = await api.post(DELETE, {"userIds": ["nobody"]}, headers=ws.key_headers)
    assert started.status == 200, started.body
    assert started.result["message"] == "Data deletion process has been initiated."
    assert set(started.data) == {"jobId", "tasksCount"}
    assert started.data["tasksCount"] == 5

    done = await until_completed(api, ws, started.data["jobId"])
    assert done["isDeleteCompleted"] is True
    assert done["tasksLeft"] == 0
    assert isinstance(done["lastTaskCompletedTime"], int)


async def test_what_the_sdk_sends_is_accepted(api: ApiClient) -> None:
    ws = await api.create_workspace("gdpr-sdk@example.com")
    assert (await add(api, ws, annotation(comment("una", "from una")))).status == 200
    assert (
        await add(api, ws, annotation(comment("una", "elsewhere")), organizationId="other")
    ).status == 200
    across = await api.post(
        GET,
        {"veltUserIds": ["una"], "veltAllOrganizations": True, "uniqueId": "ignored"},
        headers=ws.key_headers,
    )
    assert across.status == 200, across.body
    assert comment_texts(across.data) == ["elsewhere", "from una"]
    one = await export_all(api, ws, "una")
    assert comment_texts(one) == ["from una"]
    job = await erase(api, ws, "una", organizationIds=["other"])
    await until_completed(api, ws, job)
    assert comment_texts(await export_all(api, ws, "una")) == ["from una"]
    assert comment_texts(await export_all(api, ws, "una", organizationId="other")) == []


async def test_each_kind_is_paged_by_a_hundred(api: ApiClient) -> None:
    ws = await api.create_workspace("gdpr-pages@example.com")
    for batch in range(3):
        annotations = [annotation(comment("pat", f"c{batch}-{n:02d}")) for n in range(45)]
        assert (await add(api, ws, *annotations)).status == 200
    first = await export(api, ws, "pat")
    assert len(first.data["comments"]) == 100
    token = first.result["nextPageToken"]
    second = await export(api, ws, "pat", pageToken=token)
    assert second.status == 200, second.body
    assert len(second.data["comments"]) == 35
    assert "nextPageToken" not in second.result
    texts = comment_texts(first.data) + comment_texts(second.data)
    assert len(set(texts)) == 135
    # A token continues the request it came from, not another user's.
    other = await export(api, ws, "someone-else", pageToken=token)
    assert issue_paths(assert_failure(other, 400, "INVALID_ARGUMENT")) == ["data.pageToken"]


async def test_another_workspaces_user_with_the_same_id_is_untouched(api: ApiClient) -> None:
    mine = await api.create_workspace("gdpr-mine@example.com")
    theirs = await api.create_workspace("gdpr-theirs@example.com")
    for ws in (mine, theirs):
        await _member(api, ws, "sam")
        assert (await add(api, ws, annotation(comment("sam", f"by sam in {ws.id}")))).status == 200
    before = await export_all(api, mine, "sam")
    assert comment_texts(before) == [f"by sam in {mine.id}"]
    assert [user["userId"] for user in before["users"]] == ["sam"]
    job = await erase(api, mine, "sam")
    # Another workspace can neither read the job nor see it.
    assert_failure(await status(api, theirs, job), 404, "NOT_FOUND")
    await until_completed(api, mine, job)

    gone = await export_all(api, mine, "sam")
    assert all(items == [] for items in gone.values()), gone
    kept = await export_all(api, theirs, "sam")
    assert comment_texts(kept) == [f"by sam in {theirs.id}"]
    assert [user["userId"] for user in kept["users"]] == ["sam"]
    assert [m["resourceId"] for m in kept["memberships"]] == ["acme"]
