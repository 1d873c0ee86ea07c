"""List items: lines that open with a bullet or an item number."""

from __future__ import annotations

import re

LIST_ITEM = re.compile(
    r"^(?:(?P<bullet>[-*\u2022\u2023\u25e6\u25aa\u2013])|(?P<number>\d{1,3}[.)]|[a-z][.)]))"
    r"\s+(?P<body>\S.*)$"
)


def is_list_item(text: str) -> bool:
    return LIST_ITEM.match(text) is not None


def without_marker(text: str) -> str:
    """`text` without its bullet or item number, if it has one."""
    item = LIST_ITEM.match(text)
    return item.group("body") if item is not None else text
