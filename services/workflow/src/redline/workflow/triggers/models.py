"""What the inbound-webhook endpoint hands its service and what it answers.

The endpoint answers as the hosted product's does, outside the `result` envelope, because the
callers are other systems' webhook senders: `{ok: true, code: "accepted", executionId,
deduplicated}` or HTTP 200 `{ok: false, code: "event-ignored"}`. Failures (a missing
definition or trigger, a wrong signature, a malformed body) are the failure envelope like
everywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType


@dataclass(frozen=True)
class InboundDelivery:
    """One request to the endpoint, as received. The ids come from the query string when it
    has them; otherwise the service reads them from the body."""

    api_key: str | None
    definition_id: str | None
    trigger_id: str | None
    headers: Mapping[str, str]
    body: bytes


class InboundAnswer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    ok: bool
    code: Literal["accepted", "event-ignored"]
    executionId: str | UnsetType = UNSET
    deduplicated: bool | UnsetType = UNSET


EVENT_IGNORED = InboundAnswer(ok=False, code="event-ignored")
