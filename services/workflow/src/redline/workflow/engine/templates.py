"""Notification templates: `{{dot.path}}` substitution and nothing else, never code.

A token names a path under one of three roots: `input` (the previous step's output),
`execution` (`executionId`, `definitionId`, `correlationId`, `triggerContext`) and `step` (this
step's metadata); spaces inside the braces are allowed. A token that resolves to nothing, or to
null, renders as the empty string; strings render as they are, numbers and booleans as JSON text
(`true`, `1.5`), objects and arrays as compact JSON.

What a template renders to is bounded: each substitution to MAX_SUBSTITUTION_CHARS, the whole to
MAX_RENDERED_CHARS. A 16,000-character body of `{{execution}}` tokens would otherwise repeat a
large trigger context a thousand times over; the sizes are added up as the tokens are resolved,
so a template past its cap is refused before anything that large is built. Each distinct token
is resolved once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from redline.workflow.engine.expressions import lookup

__all__ = [
    "MAX_RENDERED_CHARS",
    "MAX_SUBSTITUTION_CHARS",
    "ROOTS",
    "TemplateTooLarge",
    "render",
    "template_roots",
]

ROOTS = frozenset({"input", "execution", "step"})

# No braces inside a token, so a scan never backtracks past the next brace.
_TOKEN = re.compile(r"\{\{([^{}]*)\}\}")


# Far above any message a mail server or Slack takes, far below what hurts a worker.
MAX_RENDERED_CHARS = 1024 * 1024
MAX_SUBSTITUTION_CHARS = 256 * 1024


class TemplateTooLarge(Exception):
    """A template renders past a cap: `size` characters (so far) against `limit`. The same
    template and context always do, so trying again cannot help."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        super().__init__(f"{what} renders to more than {limit} characters")
        self.size = size
        self.limit = limit


def render(template: str, roots: Mapping[str, Any]) -> str:
    """`template` with its tokens substituted; TemplateTooLarge past a cap."""
    parts: list[str] = []
    texts: dict[str, str] = {}
    size = position = 0
    for match in _TOKEN.finditer(template):
        token = match.group(1).strip()
        text = texts.get(token)
        if text is None:
            text = _text(_resolve(token, roots))
            if len(text) > MAX_SUBSTITUTION_CHARS:
                raise TemplateTooLarge(f"{{{{{token}}}}}", len(text), MAX_SUBSTITUTION_CHARS)
            texts[token] = text
        literal = template[position : match.start()]
        size += len(literal) + len(text)
        if size > MAX_RENDERED_CHARS:
            raise TemplateTooLarge("the template", size, MAX_RENDERED_CHARS)
        parts += (literal, text)
        position = match.end()
    tail = template[position:]
    if size + len(tail) > MAX_RENDERED_CHARS:
        raise TemplateTooLarge("the template", size + len(tail), MAX_RENDERED_CHARS)
    parts.append(tail)
    return "".join(parts)


def template_roots(template: str) -> set[str]:
    """The root of every token in `template` (the whole token when it is not a dot path), for
    the linter to compare with ROOTS."""
    return {token.strip().split(".")[0] for token in _TOKEN.findall(template)}


def _resolve(token: str, roots: Mapping[str, Any]) -> Any:
    parts = token.split(".")
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
