"""The one rule of disabled organizations and documents: a disabled organization, or a disabled
document, is read-only. Every write that touches one is refused with FAILED_PRECONDITION (the
request is valid and the caller may make it, but the resource's state forbids it until it is
enabled again); reads go on. Identity applies it to its own writes from its tables; the other
services from `rpc.identity.disablestate.get` through `AccessClient.require_writable`.
"""

from __future__ import annotations

from redline.envelope.errors import FailedPrecondition
from redline.proto.rpc import DisableState

ORGANIZATION_DISABLED = "organization-disabled"
DOCUMENT_DISABLED = "document-disabled"


def refuse_if_disabled(
    state: DisableState, organization_id: str, document_id: str | None = None
) -> None:
    """FAILED_PRECONDITION when the organization, or the document in it, is disabled."""
    if state.organizationDisabled:
        raise FailedPrecondition(
            f"Organization {organization_id} is disabled: it is read-only until it is enabled.",
            details={"reason": ORGANIZATION_DISABLED, "organizationId": organization_id},
        )
    if state.documentDisabled:
        raise FailedPrecondition(
            f"Document {document_id} is disabled: it is read-only until it is enabled.",
            details={
                "reason": DOCUMENT_DISABLED,
                "organizationId": organization_id,
                "documentId": document_id,
            },
        )
