"""Replaying the hosted product's published sample requests against Redline.

Each reference page shows one or more example request bodies. The replay modules write those
bodies out again as `Sample`s (our own fixtures, written from the facts the pages give: which
fields, which shapes, which placeholder ids) and send them, in order, to a fresh workspace with
the hosted product's `x-velt-*` headers, as a customer pasting the page's example would. A sample
either succeeds, answering the fields the page's success response shows, or fails with the error
its placeholder ids call for (an id nothing created is NOT_FOUND, for example).

Values a body needs from earlier answers or from the workspace are written `$name` (the whole
string) or `${name}` (inside a string): the workspace's `$workspaceId`, `$apiKey`, `$authToken`,
`$workspaceAuthToken`, `$ownerEmail`, and whatever an earlier sample `save`d.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from redline.envelope.errors import ERRORS_BY_CODE
from redline.testing.api import ApiClient, Response, StartApi, Workspace

# The reference's headers are the hosted product's brand.
BRANDS = ["redline", "velt"]

Level = Literal["key", "workspace", "both", "none"]

Answer = Literal["object", "list", "string", "null"]
_ANSWER_TYPES: dict[str, type | None] = {
    "object": dict,
    "list": list,
    "string": str,
    "null": None,
}


class Sample(msgspec.Struct, frozen=True, kw_only=True):
    """One example request of a reference page, and what Redline answers it."""

    page: str
    """The reference page and example it is written from, for the failure report."""
    path: str
    data: dict[str, Any]
    """The body's `data` object, with `$name` placeholders."""
    expect: str = "ok"
    """"ok" for the success envelope, else the error code the failure envelope carries."""
    level: Level = "key"
    """The credentials sent: an API key and auth token, a workspace's id and auth token, both
    (as the SDK's workspace calls do), or none."""
    fields: tuple[str, ...] = ()
    """Dotted paths under `result` a success answer carries (`data.yourOrgId.success`). A path
    may name saved values (`data.${annotationId}.success`); a `*` segment is a map's first value,
    for answers keyed by an id the server generates."""
    save: dict[str, str] = {}
    """Values to remember from a success answer: name -> dotted path under `result`."""
    answer: Answer = "object"
    """What a success's `result` is: an object (most pages), a list, a string, or null."""
    unwrapped: bool = False
    """Send `data` as the whole body, without the `{"data": …}` wrapper (as some Postman
    examples do)."""


async def replay_client(
    target_url: str | None, start_api: StartApi, http: ApiClient | None
) -> ApiClient:
    """The system under test with the hosted product's header brand accepted: the in-process app
    started with it, or a target started elsewhere (the split topology has it)."""
    if target_url is not None and http is not None:
        return http
    return await start_api(header_brands=BRANDS)


def velt_headers(workspace: Workspace, level: Level) -> dict[str, str]:
    key = {"x-velt-api-key": workspace.api_key, "x-velt-auth-token": workspace.auth_token}
    space = {
        "x-velt-workspace-id": workspace.id,
        "x-velt-workspace-auth-token": workspace.token,
    }
    if level == "key":
        return key
    if level == "workspace":
        return space
    if level == "both":
        return {**key, **space}
    return {}


class Replay:
    """A workspace of its own and the values the samples saved so far."""

    def __init__(self, api: ApiClient, workspace: Workspace, owner_email: str) -> None:
        self.api = api
        self.workspace = workspace
        self.values: dict[str, Any] = {
            "workspaceId": workspace.id,
            "apiKey": workspace.api_key,
            "authToken": workspace.auth_token,
            "workspaceAuthToken": workspace.token,
            "ownerEmail": owner_email,
        }

    @classmethod
    async def start(cls, api: ApiClient, owner_email: str = "owner@example.com") -> Replay:
        return cls(api, await api.create_workspace(owner_email), owner_email)

    async def send(self, sample: Sample) -> Response:
        headers = velt_headers(self.workspace, sample.level)
        if sample.unwrapped:
            raw = msgspec.json.encode(self.fill(sample.data))
            return await self.api.post(sample.path, raw=raw, headers=headers)
        return await self.api.post(sample.path, self.fill(sample.data), headers=headers)

    async def run(self, samples: Sequence[Sample]) -> list[str]:
        """Send every sample in order; one line per sample whose answer is not the one expected."""
        mismatches: list[str] = []
        for sample in samples:
            try:
                problem = self.check(sample, await self.send(sample))
            except KeyError as missing:
                problem = f"no earlier answer saved {missing}"
            if problem:
                mismatches.append(f"{sample.page} ({sample.path}): {problem}")
        return mismatches

    async def assert_answers(self, samples: Sequence[Sample]) -> None:
        """Every sample answers as expected; else fail listing each one that did not."""
        mismatches = await self.run(samples)
        assert not mismatches, "\n".join(["", *mismatches])

    def check(self, sample: Sample, response: Response) -> str | None:
        body = response.body
        if not isinstance(body, dict):
            return f"HTTP {response.status}, not JSON: {body!r:.300}"
        if sample.expect != "ok":
            error = body.get("error")
            if not isinstance(error, dict) or error.get("status") != sample.expect:
                return f"expected {sample.expect}, got HTTP {response.status} {body!r:.400}"
            if response.status != ERRORS_BY_CODE[sample.expect].http_status:
                return f"{sample.expect} answered with HTTP {response.status}"
            return None
        result = body.get("result")
        if response.status != 200 or set(body) != {"result"}:
            return f"expected success, got HTTP {response.status} {body!r:.400}"
        wanted = _ANSWER_TYPES[sample.answer]
        if not (result is None if wanted is None else isinstance(result, wanted)):
            return f"expected a result of type {sample.answer}, got {result!r:.400}"
        missing = [path for path in map(self.fill, sample.fields) if not has_path(result, path)]
        if missing:
            return f"success without {missing}: {result!r:.400}"
        for name, path in sample.save.items():
            path = self.fill(path)
            if not has_path(result, path):
                return f"success without {path} to save as {name}: {result!r:.400}"
            self.values[name] = value_at(result, path)
        return None

    def fill(self, value: Any) -> Any:
        """`value` with its `$name` and `${name}` placeholders replaced."""
        if isinstance(value, dict):
            return {key: self.fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.fill(item) for item in value]
        if isinstance(value, str):
            whole = _WHOLE.fullmatch(value)
            if whole:
                return self.values[whole.group(1)]
            return _INSIDE.sub(lambda match: str(self.values[match.group(1)]), value)
        return value


_WHOLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_INSIDE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _step(node: Any, segment: str) -> tuple[bool, Any]:
    if segment == "*" and isinstance(node, dict) and node:
        return True, next(iter(node.values()))
    if isinstance(node, dict) and segment in node:
        return True, node[segment]
    if isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
        return True, node[int(segment)]
    return False, None


def has_path(node: Any, path: str) -> bool:
    for segment in path.split("."):
        found, node = _step(node, segment)
        if not found:
            return False
    return True


def value_at(node: Any, path: str) -> Any:
    for segment in path.split("."):
        _, node = _step(node, segment)
    return node
