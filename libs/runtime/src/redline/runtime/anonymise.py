"""Anonymising a user inside stored JSON (annotation bodies, activity records, workflow steps):
the one rule every service applies when personal data is erased and a record that also belongs
to other users has to stay.

- In a user object (a map whose `userId` is the user) the id becomes the stand-in, `name` becomes
  "Deleted user" and the other fields that describe a person (e-mail, photo, initials, contacts…)
  go; fields about the record (a reviewer's `mandatory`, say) stay.
- A user id held under a key that names users (`userId`, `reviewerId`, `…UserIds`, …), alone or
  in a list, becomes the stand-in; so does a map key equal to the user id (maps by user, such
  as a step's responses by reviewer).
- A `{{userId}}` mention in a text is removed.

The stand-in is random per erasure: it links the records of one erasure to each other and to
nothing else.
"""

from __future__ import annotations

import secrets
from typing import Any

DELETED_USER_NAME = "Deleted user"

# Fields of a user object that describe the person.
_PERSONAL_FIELDS = frozenset(
    {
        "name",
        "name_lowercase",
        "clientUserName",
        "email",
        "email_lowercase",
        "photoUrl",
        "initial",
        "contacts",
        "color",
        "textColor",
    }
)

_USER_KEYS = frozenset(
    {"userId", "userIds", "reviewerId", "reviewerIds", "actorId", "rejectedBy", "resolvedBy"}
)


def stand_in_id() -> str:
    return "deleted-user-" + secrets.token_hex(8)


def _names_users(key: str) -> bool:
    return key in _USER_KEYS or key.endswith(("UserId", "UserIds"))


def anonymise(value: Any, user_id: str, stand_in: str) -> Any:
    """`value` with every trace of `user_id` replaced or removed (a new value; `value` is left
    as it was)."""
    if isinstance(value, dict):
        the_user = value.get("userId") == user_id
        kept = {
            (stand_in if key == user_id else key): _field(key, item, user_id, stand_in)
            for key, item in value.items()
            if not (the_user and key in _PERSONAL_FIELDS)
        }
        return {**kept, "name": DELETED_USER_NAME} if the_user else kept
    if isinstance(value, list):
        return [anonymise(item, user_id, stand_in) for item in value]
    if isinstance(value, str) and "{{" in value:
        return value.replace("{{" + user_id + "}}", "")
    return value


def _field(key: str, value: Any, user_id: str, stand_in: str) -> Any:
    if _names_users(key):
        if value == user_id:
            return stand_in
        if isinstance(value, list):
            value = [stand_in if item == user_id else item for item in value]
    return anonymise(value, user_id, stand_in)
