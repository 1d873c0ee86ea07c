"""What the tenancy matrix sends for a route: B's bodies naming A-only state, or why the route
takes no id of another workspace; and the reasons more than one route shares."""

from __future__ import annotations

from dataclasses import dataclass

from tests.api.tenancy_support import Json


@dataclass
class Probe:
    """B's bodies for a route; `why` is set when the route takes no id of another workspace, and
    says why (those routes are still called, and their answers checked the same way)."""

    bodies: list[Json]
    why: str = ""
    credentials: str = "key"  # "key", "workspace" (workspace id and token), or "none"
    # The route makes B state under the ids it names (a grant makes its document, a member its
    # organization): it runs after every other route, so that their probes still find the
    # A-only ids absent from B.
    makes: bool = False


def no_id(why: str, *bodies: Json, credentials: str = "key") -> Probe:
    return Probe(list(bodies) or [{}], why, credentials)


CREATES = "creates in B's own namespace; the same ids made by both at the start show one "
CREATES += "workspace's ids are free in the other"
OWN = "reads or changes the caller's own workspace settings, named by its credentials alone"
PUBLIC = "public, about an email address alone: it holds no workspace's ids"
ALERTS = "alert ids are the key's own and A's state raises none (the API tests show another "
ALERTS += "workspace's alert id is NOT_FOUND)"
UPKEEP = "acts on the caller's own memory, named by its credentials alone"
