"""The base of every request Struct: unknown fields are refused, keyword-only construction."""

from __future__ import annotations

import msgspec


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    pass
