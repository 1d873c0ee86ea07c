"""How many API keys a workspace may hold (REDLINE_MAX_API_KEYS_PER_WORKSPACE): a key past the
cap is refused with FAILED_PRECONDITION, and nothing of it is made."""

from __future__ import annotations

import asyncio

from redline.testing.api import ApiClient, StartApi, Workspace, assert_failure

CREATE = "/v2/workspace/apikey/create"


async def key_names(api: ApiClient, ws: Workspace) -> list[str]:
    listed = await api.post("/v2/workspace/apikeys/get", {}, headers=ws.workspace_headers)
    assert listed.status == 200, listed.body
    return [k["apiKeyName"] for k in listed.data]


async def test_a_key_past_the_cap_is_refused_and_nothing_is_made(start_api: StartApi) -> None:
    api = await start_api(max_api_keys_per_workspace=3)
    ws = await api.create_workspace("many-keys@example.com")
    made = [
        await api.post(CREATE, {"apiKeyName": name}, headers=ws.workspace_headers)
        for name in ("second", "third")
    ]

    refused = await api.post(
        CREATE,
        {"apiKeyName": "fourth", "allowedDomains": ["app.example.com"]},
        headers=ws.workspace_headers,
    )

    assert [r.status for r in made] == [200, 200]
    error = assert_failure(refused, 400, "FAILED_PRECONDITION")
    assert error["message"] == "A workspace holds at most 3 API keys."
    assert await key_names(api, ws) == ["Many-keys Test API Key", "second", "third"]
    workspace = await api.post("/v2/workspace/get", {}, headers=ws.workspace_headers)
    assert len(workspace.data["apiKeyList"]) == 3


async def test_keys_made_at_once_never_pass_the_cap(start_api: StartApi) -> None:
    api = await start_api(max_api_keys_per_workspace=3)
    ws = await api.create_workspace("racing-keys@example.com")

    answers = await asyncio.gather(
        *(
            api.post(CREATE, {"apiKeyName": f"racer {i}"}, headers=ws.workspace_headers)
            for i in range(6)
        )
    )

    assert sorted(a.status for a in answers) == [200, 200, 400, 400, 400, 400]
    assert len(await key_names(api, ws)) == 3


async def test_the_cap_counts_each_workspace_on_its_own(start_api: StartApi) -> None:
    api = await start_api(max_api_keys_per_workspace=1)
    full = await api.create_workspace("full@example.com")
    other = await api.create_workspace("other@example.com")

    refused = await api.post(CREATE, {"apiKeyName": "extra"}, headers=full.workspace_headers)

    assert_failure(refused, 400, "FAILED_PRECONDITION")
    assert len(await key_names(api, other)) == 1


async def test_the_default_cap_leaves_room_for_many_keys(api: ApiClient) -> None:
    ws = await api.create_workspace("default-cap@example.com")

    made = [
        (await api.post(CREATE, {"apiKeyName": f"k{i}"}, headers=ws.workspace_headers)).status
        for i in range(5)
    ]

    assert made == [200] * 5
