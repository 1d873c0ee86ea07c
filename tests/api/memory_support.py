"""Judgments made the way users make them (an agent's suggestion accepted or rejected through
the comments API), and the wait until memory has recorded them."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace


async def suggestion(
    api: ApiClient,
    ws: Workspace,
    key: str,
    content: str,
    *,
    issue: str = "claims",
    organization: str = "acme",
    document: str = "brochure",
) -> None:
    """An agent's suggestion on `content` (what the reviewer will judge), of issue `issue`."""
    added = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": organization,
            "documentId": document,
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {
                    "annotationId": key,
                    "commentData": [
                        {
                            "commentText": content,
                            "from": {"userId": "bot"},
                            "agent": {
                                "agentSource": "svc",
                                "agentId": "claim-checker",
                                "reason": {
                                    "title": "Review",
                                    "description": content,
                                    "severity": "low",
                                    "issueType": issue,
                                },
                            },
                        }
                    ],
                }
            ],
        },
        headers=ws.key_headers,
    )
    assert added.status == 200, added.body


async def decide(
    api: ApiClient,
    ws: Workspace,
    key: str,
    action: str,
    reason: str,
    *,
    user: dict[str, Any],
    organization: str = "acme",
    document: str = "brochure",
) -> None:
    """Accept or reject the suggestion `key` as `user`, with a reason."""
    resolved = await api.post(
        "/v2/commentannotations/suggestions/resolve",
        {
            "organizationId": organization,
            "documentId": document,
            "annotationId": key,
            "action": action,
            "user": user,
            "reason": reason,
        },
        headers=ws.key_headers,
    )
    assert resolved.status == 200, resolved.body


async def judged(
    api: ApiClient,
    ws: Workspace,
    key: str,
    content: str,
    action: str,
    reason: str,
    *,
    user: dict[str, Any],
    **where: Any,
) -> None:
    await suggestion(api, ws, key, content, **where)
    where.pop("issue", None)
    await decide(api, ws, key, action, reason, user=user, **where)


async def until_recorded(api: ApiClient, ws: Workspace, count: int) -> list[Any]:
    async with asyncio.timeout(60):
        while True:
            got = await api.post(
                "/v2/memory/judgments/query", {"limit": 100}, headers=ws.key_headers
            )
            assert got.status == 200, got.body
            if got.result["total"] >= count:
                return list(got.result["results"])
            await asyncio.sleep(0.1)
