"""What a user's inbox preference lets into their feed: the one rule, also written as SQL for
notifyAll notifications where the feed is read (`storage.in_feed`)."""

from __future__ import annotations


def receives(inbox: str, *, direct: bool) -> bool:
    """ALL takes everything; MINE only notifications that directly involve the user (a mention,
    a reply in their thread, an assignment, or one naming them); NONE takes nothing."""
    if inbox == "NONE":
        return False
    return direct or inbox == "ALL"
