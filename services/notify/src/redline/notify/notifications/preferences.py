"""What a user's channel preference (inbox, email) lets through: the one rule, also written as
SQL for notifyAll notifications where the feed is read (`storage.in_feed`)."""

from __future__ import annotations


def receives(preference: str, *, direct: bool) -> bool:
    """ALL takes everything; MINE only notifications that directly involve the user (a mention,
    a reply in their thread, an assignment, or one naming them); NONE takes nothing."""
    if preference == "NONE":
        return False
    return direct or preference == "ALL"
