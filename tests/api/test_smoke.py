from redline.testing.api import ApiClient


async def test_created_workspace_is_readable_with_its_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("smoke@example.com")
    got = await api.post("/v2/workspace/get", headers=ws.workspace_headers)
    assert got.status == 200
    assert got.data["id"] == ws.id
    assert got.data["owner"]["email"] == "smoke@example.com"
    assert ws.api_key in got.data["apiKeyList"]
