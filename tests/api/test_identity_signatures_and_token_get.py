"""/v2/auth/generate_signature (signed permission decisions) and /v2/auth/token/get, the older
token path the official SDK's deprecated getToken still calls."""

from __future__ import annotations

import re
from typing import Any

import jwt
import pytest

from redline.testing.api import ApiClient, StartApi, assert_failure, issue_paths
from tests.api.config_support import call, ok


def decision(user: str = "user123", resource: str = "doc-1", **extra: Any) -> dict[str, Any]:
    return {"userId": user, "resourceId": resource, "type": "document", "hasAccess": True, **extra}


# generate_signature ------------------------------------------------------------------------------


async def test_a_signature_is_stable_for_the_same_decisions_and_keyed_by_api_key(
    api: ApiClient,
) -> None:
    a = await api.create_workspace("sign-a@example.com")
    b = await api.create_workspace("sign-b@example.com")
    decisions = [
        decision(accessRole="viewer", expiresAt=1759745729823),
        {"userId": "user123", "resourceId": "org789", "type": "organization", "hasAccess": True},
    ]

    first = await ok(api, a, "/v2/auth/generate_signature", {"permissions": decisions})
    again = await ok(api, a, "/v2/auth/generate_signature", {"permissions": decisions})
    other_key = await ok(api, b, "/v2/auth/generate_signature", {"permissions": decisions})
    reordered = await ok(api, a, "/v2/auth/generate_signature", {"permissions": decisions[::-1]})
    denied = await ok(
        api, a, "/v2/auth/generate_signature", {"permissions": [decision(hasAccess=False)]}
    )

    assert re.fullmatch(r"[0-9a-f]{64}", first["signature"])
    assert again == first
    assert len({first["signature"], other_key["signature"], reordered["signature"]}) == 3
    assert denied != first


@pytest.mark.parametrize(
    ("permissions", "path"),
    [
        ([], "data.permissions"),
        ([decision(type="context")], "data.permissions[0].type"),
        ([decision(accessRole="owner")], "data.permissions[0].accessRole"),
        ([{"userId": "u", "resourceId": "d", "type": "document"}], "data.permissions[0].hasAccess"),
        ([decision(expiresAt="soon")], "data.permissions[0].expiresAt"),
        ([decision(note="x")], "data.permissions[0].note"),
        ([decision()] * 101, "data.permissions"),
    ],
)
async def test_invalid_decisions_are_refused_naming_the_field(
    api: ApiClient, permissions: list[Any], path: str
) -> None:
    ws = await api.create_workspace("sign-invalid@example.com")

    response = await call(api, ws, "/v2/auth/generate_signature", {"permissions": permissions})

    assert issue_paths(assert_failure(response, 400, "INVALID_ARGUMENT")) == [path]


async def test_only_the_api_keys_own_credentials_get_signatures(api: ApiClient) -> None:
    ws = await api.create_workspace("sign-auth@example.com")
    user_token = (await ok(api, ws, "/v2/auth/generate_token", {"userId": "u"}))["token"]
    body = {"permissions": [decision()]}

    as_user = await api.post(
        "/v2/auth/generate_signature",
        body,
        headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": user_token},
    )
    by_workspace = await api.post("/v2/auth/generate_signature", body, headers=ws.workspace_headers)

    assert_failure(as_user, 403, "PERMISSION_DENIED")
    assert_failure(by_workspace, 400, "INVALID_ARGUMENT")


# auth/token/get ----------------------------------------------------------------------------------


async def test_the_sdks_get_token_call_gets_a_user_token(start_api: StartApi) -> None:
    api = await start_api(header_brands=["redline", "velt"])
    ws = await api.create_workspace("token-get@example.com")
    # Exactly what TokenService.getToken sends: the body and the x-velt-* headers.
    body = {
        "userId": "user-1",
        "userProperties": {
            "organizationId": "org-123",
            "email": "user@example.com",
            "isAdmin": False,
            "name": "User One",
        },
        "permissions": {
            "resources": [{"type": "document", "id": "doc-1", "organizationId": "org-123"}]
        },
    }
    sdk_headers = {"x-velt-api-key": ws.api_key, "x-velt-auth-token": ws.auth_token}

    response = await api.post("/v2/auth/token/get", body, headers=sdk_headers)

    assert response.status == 200, response.body
    token = response.data["token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert (claims["sub"], claims["organizationId"], claims["key"]) == (
        "user-1",
        "org-123",
        ws.api_key,
    )
    assert claims["res"] == [
        {"type": "document", "id": "doc-1", "organizationId": "org-123", "accessRole": "editor"}
    ]
    # The token acts as that user, like one from generate_token.
    own = await api.post(
        "/v2/auth/permissions/get",
        {"organizationId": "org-123", "userIds": ["user-1"]},
        headers={"x-velt-api-key": ws.api_key, "x-velt-auth-token": token},
    )
    assert own.status == 200, own.body


async def test_token_get_validates_as_generate_token_does(api: ApiClient) -> None:
    ws = await api.create_workspace("token-get-invalid@example.com")

    missing = await call(api, ws, "/v2/auth/token/get", {"userProperties": {}})
    typo = await call(api, ws, "/v2/auth/token/get", {"userId": "u", "userProperties": {"org": 1}})
    wrong = await api.post(
        "/v2/auth/token/get",
        {"userId": "u"},
        headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": "wrong"},
    )

    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.userId"]
    assert issue_paths(assert_failure(typo, 400, "INVALID_ARGUMENT")) == ["data.userProperties.org"]
    assert_failure(wrong, 401, "UNAUTHENTICATED")
