"""Requests and answers of /v2/workflow/slack/config/update|get.

The token is write-only: no answer carries it, only whether one is set and a hint (its type
prefix and last four characters) for its owner to recognise it by."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.envelope import Request

# Slack's tokens: `xoxb-` (bot), `xoxp-` (user) and the like, then letters, digits and hyphens.
BotToken = Annotated[str, Meta(pattern=r"^xox[a-z]-[A-Za-z0-9-]+$", min_length=10, max_length=256)]


class UpdateSlackConfig(Request):
    """`botToken` sets this key's bot token (replacing any earlier one); null removes it."""

    botToken: BotToken | None


class GetSlackConfig(Request):
    pass


class SlackConfigView(msgspec.Struct, frozen=True, kw_only=True):
    botTokenSet: bool
    botTokenHint: str | None = None
    updatedAt: int | None = None
