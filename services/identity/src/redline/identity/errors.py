"""The identity service's client-visible errors, worded once."""

from __future__ import annotations

from redline.envelope.errors import FailedPrecondition, NotFound, Unauthenticated


def workspace_not_found() -> NotFound:
    return NotFound("Workspace not found.")


def api_key_not_found() -> NotFound:
    return NotFound("API key not found in this workspace.")


def unknown_api_key() -> NotFound:
    """Another service asked about an API key that does not exist (anywhere)."""
    return NotFound("API key not found.")


def organization_not_found() -> NotFound:
    return NotFound("Organization not found.")


def folder_not_found() -> NotFound:
    return NotFound("Folder not found.")


def document_not_found() -> NotFound:
    return NotFound("Document not found.")


def document_id_held(document_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"Document id {document_id} is held: a document is being migrated to it."
    )


def bad_api_credentials() -> Unauthenticated:
    return Unauthenticated("Invalid API key or auth token.")


def bad_workspace_credentials() -> Unauthenticated:
    return Unauthenticated("Invalid workspace id or workspace auth token.")


def user_group_not_found() -> NotFound:
    return NotFound("Organization user group not found.")
