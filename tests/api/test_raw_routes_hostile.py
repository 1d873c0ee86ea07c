"""Raw-body routes (the upload PUT, the step callbacks) taken by strangers: whatever they send as
a signature or token, the answer is a clear refusal, never an internal error."""

from __future__ import annotations

from typing import Any

from yarl import URL

from redline.testing.api import ApiClient, Response, assert_failure


async def _put(api: ApiClient, url: URL, headers: dict[str, str] | None = None) -> Response:
    async with api.session.put(url, data=b"x", headers=headers or {}) as answer:
        return Response(answer.status, await answer.json(), dict(answer.headers))


async def test_an_upload_signature_that_is_not_ascii_is_refused(api: ApiClient) -> None:
    url = URL(api.base_url + "/v2/memory/knowledge/uploads/up_x", encoded=False).with_query(
        {"expires": "99999999999999", "signature": "é"}
    )
    refused = await _put(api, url, {"content-type": "text/plain"})
    assert_failure(refused, 403, "PERMISSION_DENIED")


async def test_a_callback_token_that_is_not_ascii_is_refused(api: ApiClient) -> None:
    url = URL(api.base_url + "/v2/workflow/callbacks/exec_x/step_x")
    # Header values travel as bytes; UTF-8 bytes of "é" reach the server as they would from curl.
    headers = {"x-redline-callback-token": "é".encode().decode("latin-1")}
    async with api.session.post(url, data=b"{}", headers=headers) as answer:
        refused = Response(answer.status, await answer.json(), dict(answer.headers))
    assert_failure(refused, 401, "UNAUTHENTICATED")


async def test_an_address_that_keeps_presenting_wrong_callback_tokens_waits(start_api: Any) -> None:
    api: ApiClient = await start_api(rate_limit_auth_failures=2)
    url = URL(api.base_url + "/v2/workflow/callbacks/exec_x/step_x")
    answers = []
    for _ in range(3):
        async with api.session.post(
            url, data=b"{}", headers={"x-redline-callback-token": "a-guess"}
        ) as answer:
            answers.append(Response(answer.status, await answer.json(), dict(answer.headers)))

    assert_failure(answers[0], 401, "UNAUTHENTICATED")
    assert_failure(answers[1], 401, "UNAUTHENTICATED")
    assert_failure(answers[2], 429, "RESOURCE_EXHAUSTED")
