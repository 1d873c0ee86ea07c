"""The groups stored comments tag, whose members a write asks identity for (the rule of who a
comment tags is proto's: `proto/tests/test_tagging.py`)."""

from __future__ import annotations

from typing import Any

from redline.comments.shared.tagged import stored_group_ids
from redline.testing.annotations import comment


def group(group_id: str) -> dict[str, Any]:
    return {"userId": group_id, "text": f"@{group_id}", "group": {"groupId": group_id}}


def test_stored_group_ids_names_each_group_once() -> None:
    comments = [
        comment(1, taggedUserContacts=[group("eng"), {"userId": "ana"}]),
        comment(2, taggedUserContacts=[group("ops"), group("eng")]),
        comment(3, commentText="none"),
    ]

    assert stored_group_ids(comments) == ["eng", "ops"]
