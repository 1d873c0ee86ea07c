"""Who is calling: the scope of an API key that another service names, and what needs the key
holder's own auth token rather than a user token of the key."""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.identity import errors
from redline.identity.workspace.storage import workspace_of_api_key
from redline.pg import Connection, Pool


def require_key_caller(caller: ApiKeyPrincipal) -> None:
    """Managing configuration, users and grants, and minting user tokens, need the API key's own
    auth token. (The endpoints refuse user tokens already; this holds for in-process callers.)"""
    if caller.user_id is not None:
        raise PermissionDenied("This endpoint needs the API key's auth token, not a user token.")


async def caller_named(conn: Connection | Pool, api_key: str) -> ApiKeyPrincipal:
    """The scope of the API key another service's request names (that service checked the
    credentials); NOT_FOUND when no workspace holds the key."""
    workspace_id = await workspace_of_api_key(conn, api_key)
    if workspace_id is None:
        raise errors.unknown_api_key()
    return ApiKeyPrincipal(workspace_id=workspace_id, api_key=api_key)
