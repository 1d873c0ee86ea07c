"""Where an invitation's membership lives, by its type and the place it names."""

from __future__ import annotations

import pytest

from redline.envelope.errors import InvalidArgument
from redline.identity.invitations.membership import level_of_invite
from redline.identity.users.storage import Level


def test_each_type_names_its_own_kind_of_place() -> None:
    assert level_of_invite("org_user", "o", None, None) == Level("o", "organization", "o")
    assert level_of_invite("doc_user", "o", "d", None) == Level("o", "document", "d")
    assert level_of_invite("folder_user", "o", None, "f") == Level("o", "folder", "f")


@pytest.mark.parametrize(
    ("invite_type", "document_id", "folder_id", "field"),
    [
        ("doc_user", None, None, "data.documentId"),
        ("folder_user", None, None, "data.folderId"),
        ("org_user", "d", None, "data.documentId"),
        ("org_user", None, "f", "data.folderId"),
        ("doc_user", "d", "f", "data.folderId"),
        ("folder_user", "d", "f", "data.documentId"),
    ],
)
def test_a_missing_or_foreign_place_is_refused_naming_the_field(
    invite_type: str, document_id: str | None, folder_id: str | None, field: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        level_of_invite(invite_type, "o", document_id, folder_id)

    details = refused.value.details or {}
    assert [issue["path"] for issue in details["issues"]] == [field]
