"""Announcing that who may do what changed: the `identity.access.changed` event, written with the
change that caused it, and dropping this process's cached access decisions once it committed.

Other processes hear the event on NATS and drop theirs; this one drops its own at once, so the
caller's next check reads the change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity.schema import SCHEMA
from redline.pg import Connection, write_events
from redline.proto.events import AccessChanged, Event

# Stands for every organization of the key in an `identity.access.changed` event (a change of
# the key's permission provider bears on all of them).
ALL_ORGANIZATIONS = "*"

# Drops this process's cached access decisions of an API key.
ForgetAccess = Callable[[str], None]


def _ignore(api_key: str) -> None:
    """A ForgetAccess for processes that cache no access decisions."""


FORGET_NOTHING: ForgetAccess = _ignore


def access_changed_event(caller: ApiKeyPrincipal, organization_id: str) -> AccessChanged:
    return AccessChanged(
        workspaceId=caller.workspace_id, apiKey=caller.api_key, organizationId=organization_id
    )


async def write_access_changed(
    conn: Connection, caller: ApiKeyPrincipal, organization_ids: Iterable[str]
) -> None:
    """One event per organization named, in the caller's transaction."""
    await write_events(
        conn,
        SCHEMA,
        [access_changed_event(caller, org) for org in sorted(set(organization_ids))],
    )


def forget_if_access_changed(
    forget: ForgetAccess, caller: ApiKeyPrincipal, events: Sequence[Event]
) -> None:
    """After a commit: drop the cached decisions when its events announced a change of access."""
    if any(isinstance(event, AccessChanged) for event in events):
        forget(caller.api_key)
