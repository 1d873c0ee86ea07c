"""The access model's rules, one at a time, and which wins when several apply."""

from __future__ import annotations

import pytest

from redline.identity.fields import AccessType, Role
from redline.identity.permissions.access_model import (
    AccessFacts,
    Decision,
    FolderLink,
    decide,
    stronger,
    with_token_grants,
)

ORG = "org"
DOC = "doc"


def facts(
    grants: dict[tuple[str, str], Role] | None = None,
    *,
    access_type: AccessType | None = "organizationPrivate",
    folders: list[FolderLink] | None = None,
) -> AccessFacts:
    return AccessFacts(ORG, DOC, access_type, folders or [], grants or {})


# one rule at a time ------------------------------------------------------------------------------


def test_no_grant_means_no_access() -> None:
    assert decide(facts(), "organizationPrivate") == Decision(None, "organizationPrivate", "none")


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_document_grant_gives_its_role(role: Role) -> None:
    assert decide(facts({("document", DOC): role}), "public") == Decision(
        role, "organizationPrivate", "document"
    )


def test_a_grant_on_another_document_does_not_count() -> None:
    assert decide(facts({("document", "other"): "editor"}), "public").role is None


def test_a_grant_on_the_documents_folder_counts() -> None:
    decision = decide(facts({("folder", "f"): "viewer"}, folders=[FolderLink("f", True)]), "public")
    assert decision == Decision("viewer", "organizationPrivate", "folder")


def test_a_grant_on_an_ancestor_counts_while_folders_inherit() -> None:
    chain = [FolderLink("child", True), FolderLink("parent", True), FolderLink("root", True)]
    decision = decide(facts({("folder", "root"): "editor"}, folders=chain), "public")
    assert decision == Decision("editor", "organizationPrivate", "folder")


def test_a_folder_that_does_not_inherit_stops_the_climb() -> None:
    chain = [FolderLink("child", True), FolderLink("parent", False), FolderLink("root", True)]
    assert decide(facts({("folder", "root"): "editor"}, folders=chain), "public").role is None
    # The folder that does not inherit still counts itself.
    assert decide(facts({("folder", "parent"): "viewer"}, folders=chain), "public").role == "viewer"


def test_a_grant_on_a_folder_outside_the_chain_does_not_count() -> None:
    chain = [FolderLink("child", True)]
    assert decide(facts({("folder", "elsewhere"): "editor"}, folders=chain), "public").role is None


@pytest.mark.parametrize("access_type", ["organizationPrivate", "public"])
def test_organization_members_reach_unrestricted_documents(access_type: AccessType) -> None:
    decision = decide(
        facts({("organization", ORG): "viewer"}, access_type=access_type), "restricted"
    )
    assert decision == Decision("viewer", access_type, "organization")


def test_organization_members_do_not_reach_restricted_documents() -> None:
    decision = decide(facts({("organization", ORG): "editor"}, access_type="restricted"), "public")
    assert decision == Decision(None, "restricted", "none")


def test_a_grant_on_another_organization_does_not_count() -> None:
    assert decide(facts({("organization", "other"): "editor"}), "public").role is None


def test_public_documents_admit_everyone_as_editor() -> None:
    assert decide(facts(access_type="public"), "restricted") == Decision(
        "editor", "public", "public"
    )


@pytest.mark.parametrize("default", ["public", "organizationPrivate", "restricted"])
def test_a_document_without_an_access_type_takes_the_default(default: AccessType) -> None:
    decision = decide(facts({("organization", ORG): "viewer"}, access_type=None), default)
    assert decision.access_type == default
    assert decision.role == (None if default == "restricted" else "viewer")


# precedence --------------------------------------------------------------------------------------


def test_the_document_grant_wins_over_folder_and_organization() -> None:
    grants: dict[tuple[str, str], Role] = {
        ("document", DOC): "viewer",
        ("folder", "f"): "editor",
        ("organization", ORG): "editor",
    }
    decision = decide(facts(grants, folders=[FolderLink("f", True)]), "public")
    assert decision == Decision("viewer", "organizationPrivate", "document")


def test_the_nearest_folder_wins_over_ancestors_and_organization() -> None:
    chain = [FolderLink("child", True), FolderLink("root", True)]
    grants: dict[tuple[str, str], Role] = {
        ("folder", "child"): "viewer",
        ("folder", "root"): "editor",
        ("organization", ORG): "editor",
    }
    assert decide(facts(grants, folders=chain), "public") == Decision(
        "viewer", "organizationPrivate", "folder"
    )


def test_a_folder_grant_reaches_a_restricted_document() -> None:
    decision = decide(
        facts(
            {("folder", "f"): "editor", ("organization", ORG): "viewer"},
            access_type="restricted",
            folders=[FolderLink("f", True)],
        ),
        "public",
    )
    assert decision == Decision("editor", "restricted", "folder")


def test_membership_wins_over_public_even_when_it_gives_less() -> None:
    decision = decide(facts({("organization", ORG): "viewer"}, access_type="public"), "public")
    assert decision == Decision("viewer", "public", "organization")


def test_a_stopped_climb_falls_through_to_membership() -> None:
    chain = [FolderLink("child", False), FolderLink("root", True)]
    grants: dict[tuple[str, str], Role] = {
        ("folder", "root"): "editor",
        ("organization", ORG): "viewer",
    }
    assert decide(facts(grants, folders=chain), "public") == Decision(
        "viewer", "organizationPrivate", "organization"
    )


# roles and token grants --------------------------------------------------------------------------


def test_stronger_prefers_editor_and_ignores_none() -> None:
    assert stronger("viewer", "editor") == "editor"
    assert stronger("editor", "viewer") == "editor"
    assert stronger(None, "viewer") == "viewer"
    assert stronger("viewer", None) == "viewer"
    assert stronger(None, None) is None


def test_token_grants_add_to_stored_ones_and_only_strengthen() -> None:
    stored: dict[tuple[str, str], Role] = {
        ("document", "a"): "editor",
        ("document", "b"): "viewer",
    }
    merged = with_token_grants(
        stored,
        {
            ("document", "a"): "viewer",
            ("document", "b"): "editor",
            ("folder", "f"): "viewer",
            ("document", "c"): "owner",
        },
    )
    assert merged == {
        ("document", "a"): "editor",
        ("document", "b"): "editor",
        ("folder", "f"): "viewer",
    }
    assert stored == {("document", "a"): "editor", ("document", "b"): "viewer"}
