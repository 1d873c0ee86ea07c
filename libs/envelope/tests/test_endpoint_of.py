"""Endpoints built from the service method that answers them: the method is called with the
caller and the decoded request, and its own types are the endpoint's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec
import pytest
from aiohttp import web

from redline.envelope import ApiKeyPrincipal, AuthLevel, Endpoint, WorkspacePrincipal
from redline.testing.api import ApiClient, assert_failure

Serve = Callable[..., Awaitable[ApiClient]]

KEY_HEADERS = {"x-redline-api-key": "key_1", "x-redline-auth-token": "good"}
WORKSPACE_HEADERS = {"x-redline-workspace-id": "ws_9", "x-redline-workspace-auth-token": "good"}


class Note(msgspec.Struct, forbid_unknown_fields=True):
    text: str


class Noted(msgspec.Struct):
    text: str
    by: str


class Notes:
    async def add(self, caller: ApiKeyPrincipal, request: Note) -> Noted:
        return Noted(request.text, caller.api_key)

    async def count(self, caller: WorkspacePrincipal) -> int:
        return len(caller.workspace_id)


NOTES = web.AppKey("notes", Notes)


def with_notes(app: web.Application) -> None:
    app[NOTES] = Notes()


async def test_the_method_answers_with_the_caller_and_the_decoded_request(serve: Serve) -> None:
    add = Endpoint.of("/v2/notes/add", NOTES, Notes.add)
    api = await serve([add], setup=with_notes)

    added = await api.post("/v2/notes/add", {"text": "hi"}, headers=KEY_HEADERS)
    wrong = await api.post("/v2/notes/add", {"text": 1}, headers=KEY_HEADERS)

    assert added.status == 200, added.body
    assert added.data == {"text": "hi", "by": "key_1"}
    assert_failure(wrong, 400, "INVALID_ARGUMENT")
    # The request and response types are the method's own.
    assert (add.request, add.response) == (Note, Noted)


async def test_a_method_without_a_request_names_the_body_it_takes(serve: Serve) -> None:
    count = Endpoint.of(
        "/v2/notes/count", NOTES, Notes.count, request=Note, auth=AuthLevel.WORKSPACE
    )
    api = await serve([count], setup=with_notes)

    counted = await api.post("/v2/notes/count", {"text": "x"}, headers=WORKSPACE_HEADERS)

    assert counted.status == 200, counted.body
    assert counted.data == len("ws_9")


def test_a_method_whose_caller_is_not_what_the_auth_level_yields_is_refused() -> None:
    with pytest.raises(TypeError):
        Endpoint.of("/v2/notes/add", NOTES, Notes.add, auth=AuthLevel.WORKSPACE)
