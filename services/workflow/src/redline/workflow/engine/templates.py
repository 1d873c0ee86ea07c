"""Notification templates: `{{dot.path}}` substitution and nothing else, never code.

A token names a path under one of three roots: `input` (the previous step's output),
`execution` (`executionId`, `definitionId`, `correlationId`, `triggerContext`) and `step` (this
step's metadata); spaces inside the braces are allowed. A token that resolves to nothing, or to
null, renders as the empty string; strings render as they are, numbers and booleans as JSON text
(`true`, `1.5`), objects and arrays as compact JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from redline.workflow.engine.expressions import lookup

__all__ = ["ROOTS", "render", "template_roots"]

ROOTS = frozenset({"input", "execution", "step"})

# No braces inside a token, so a scan never backtracks past the next brace.
_TOKEN = re.compile(r"\{\{([^{}]*)\}\}")


def render(template: str, roots: Mapping[str, Any]) -> str:
    return _TOKEN.sub(lambda token: _text(_resolve(token.group(1), roots)), template)


def template_roots(template: str) -> set[str]:
    """The root of every token in `template` (the whole token when it is not a dot path), for
    the linter to compare with ROOTS."""
    return {token.strip().split(".")[0] for token in _TOKEN.findall(template)}


def _resolve(token: str, roots: Mapping[str, Any]) -> Any:
    parts = token.strip().split(".")
    if parts[0] not in ROOTS or any(not part for part in parts):
        return None
    return lookup(roots, parts)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError, RecursionError):
        # Not JSON (a mapping with non-string keys, say): nothing sensible to show.
        return ""
