"""Building a WHERE clause from optional filters, with every value a numbered parameter."""

from __future__ import annotations

from typing import Any


class Conditions:
    """Conditions joined with AND, and the parameters they number (`$1`, `$2`, …).

    Values never go into the text: a filter adds a fragment with `{}` where its values go.
    """

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.params: list[Any] = []

    def param(self, value: Any) -> str:
        """Add a parameter; returns its placeholder."""
        self.params.append(value)
        return f"${len(self.params)}"

    def where(self, fragment: str, *values: Any) -> None:
        """`fragment` holds `{}` for each value, replaced by its parameter number."""
        self.conditions.append(fragment.format(*(self.param(v) for v in values)))
