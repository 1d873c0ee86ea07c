"""Users' profiles as the endpoints that write them build them: the fields given, the initial
derived from the name when none is given, and the display fields kept in `metadata`."""

from __future__ import annotations

from typing import Any

from redline.identity.users import models
from redline.identity.users.storage import Profile


def initial_of(name: str) -> str:
    """The first letters of the name's first two words, uppercased: "Ada Lovelace" -> "AL"."""
    return "".join(word[0] for word in name.split()[:2]).upper()


def profile_of(user: models.User) -> Profile:
    metadata: dict[str, Any] = {}
    for field in ("photoUrl", "color", "textColor"):
        value = getattr(user, field)
        if value is not None:
            metadata[field] = value
    initial = user.initial
    if initial is None and user.name is not None:
        initial = initial_of(user.name)
    return Profile(user.userId, user.name, user.email, initial, metadata)
