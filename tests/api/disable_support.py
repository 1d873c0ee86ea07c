"""Disabling and enabling organizations and documents, as the disable-state tests do."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Response, Workspace

ORGANIZATIONS = "/v2/organizations/access/disablestate/update"
DOCUMENTS = "/v2/organizations/documents/access/disablestate/update"


async def set_orgs_disabled(
    api: ApiClient, ws: Workspace, *org_ids: str, disabled: bool = True
) -> Response:
    body = {"organizationIds": list(org_ids), "disabled": disabled}
    return await api.post(ORGANIZATIONS, body, headers=ws.key_headers)


async def set_docs_disabled(
    api: ApiClient, ws: Workspace, *doc_ids: str, org: str = "acme", disabled: bool = True
) -> Response:
    return await api.post(
        DOCUMENTS,
        {"organizationId": org, "documentIds": list(doc_ids), "disabled": disabled},
        headers=ws.key_headers,
    )


async def disable_org(api: ApiClient, ws: Workspace, org: str = "acme") -> None:
    done = await set_orgs_disabled(api, ws, org)
    assert done.status == 200, done.body


async def disable_doc(api: ApiClient, ws: Workspace, doc: str, org: str = "acme") -> None:
    done = await set_docs_disabled(api, ws, doc, org=org)
    assert done.status == 200, done.body


async def until_accepted(
    api: ApiClient, ws: Workspace, path: str, body: dict[str, Any], timeout_s: float = 10.0
) -> Response:
    """The answer to a write once it is accepted. Where the writing service runs in a process of
    its own (`--target split`), it hears of a change of state through the event a moment after
    the change returned; refused attempts change nothing."""
    async with asyncio.timeout(timeout_s):
        while True:
            done = await api.post(path, body, headers=ws.key_headers)
            if done.status != 400 or done.error["status"] != "FAILED_PRECONDITION":
                return done
            await asyncio.sleep(0.05)
