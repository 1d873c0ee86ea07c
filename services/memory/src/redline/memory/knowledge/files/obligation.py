"""Whether a statement obliges or forbids: the words that make a sentence a rule."""

from __future__ import annotations

import re

_OBLIGATION = re.compile(
    r"\b(?:must|never|always|should|shall|required|needs?\s+to|may\s+not|do\s+not"
    r"|don['\u2019]t|(?:is|are)\s+prohibited)\b",
    re.IGNORECASE,
)


def states_obligation(text: str) -> bool:
    """True if `text` holds a word of obligation or prohibition ("must", "never", "may not")."""
    return _OBLIGATION.search(text) is not None
