"""The text of a notification mail. No I/O.

One notification: its headline is the subject, its body the text. Several (a digest): the
subject counts them, the text lists each headline with its body, oldest first. Headlines are the
notification's template with its `{name}` placeholders filled from the template data: a user by
the name the data gives, else the name of their profile (`names`), else their id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from redline.notify.notifications.models import Notification

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class MailText:
    subject: str
    body: str


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _shown(value: Any, names: dict[str, str]) -> str:
    if isinstance(value, dict):
        user_id = _text(value.get("userId"))
        given = _text(value.get("name")) or (names.get(user_id) if user_id else None)
        return given or user_id or _text(value.get("email")) or ""
    return "" if value is None else str(value)


def user_ids(notification: Notification) -> list[str]:
    """The users the headline's data names (whose profile names may fill it)."""
    data = notification.displayHeadlineMessageTemplateData or {}
    found = [v.get("userId") for v in data.values() if isinstance(v, dict)]
    return [u for u in found if isinstance(u, str) and u]


def headline(notification: Notification, names: dict[str, str]) -> str:
    template = notification.displayHeadlineMessageTemplate or "You have a new notification"
    data = notification.displayHeadlineMessageTemplateData or {}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return _shown(data[name], names) if name in data else match.group(0)

    return " ".join(_PLACEHOLDER.sub(fill, template).split())


def _where(notification: Notification) -> str:
    meta = notification.metadata
    if meta.documentId:
        return f"Document {meta.documentId} in organization {meta.organizationId}"
    return f"Organization {meta.organizationId}"


def _entry(notification: Notification, names: dict[str, str]) -> str:
    lines = [headline(notification, names)]
    if notification.displayBodyMessage:
        lines += ["", notification.displayBodyMessage]
    lines += ["", _where(notification)]
    return "\n".join(lines)


def compose(notifications: list[Notification], names: dict[str, str]) -> MailText:
    """The mail about `notifications` (at least one); `names`: user id -> profile name."""
    if len(notifications) == 1:
        [only] = notifications
        return MailText(headline(only, names), _entry(only, names) + "\n")
    subject = f"You have {len(notifications)} new notifications"
    entries = [_entry(n, names) for n in notifications]
    return MailText(subject, "\n\n---\n\n".join(entries) + "\n")
