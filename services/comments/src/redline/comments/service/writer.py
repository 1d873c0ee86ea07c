"""What every changing endpoint needs: the caller, its right to write the document, which of the
document's annotations it may touch, and the fields each event of a change carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redline.comments.storage import visibility
from redline.comments.storage.annotations import SCHEMA as SCHEMA
from redline.comments.storage.annotations import AnnotationRow
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.pg import Pool
from redline.proto.rpc import AccessDecision
from redline.runtime.access import AccessClient


def may_see(row: AnnotationRow, user_id: str, decision: AccessDecision) -> bool:
    """Whether a user with document access `decision` may see the annotation at all."""
    if decision.role is None:
        return False
    return visibility.may_see(
        user_id,
        visibility=row.visibility,
        creator_user_id=row.creator_user_id,
        assigned_user_id=row.assigned_user_id,
        visible_to=row.visible_to,
        via_public=decision.via == "public",
    )


@dataclass(frozen=True)
class Writer:
    """One caller changing one document's annotations."""

    pool: Pool
    access: AccessClient
    principal: ApiKeyPrincipal

    @property
    def user_id(self) -> str | None:
        """The user of a user token; None for the key's own auth token (the trusted server)."""
        return self.principal.user_id

    async def require_write(self, organization_id: str, document_id: str) -> AccessDecision | None:
        """PERMISSION_DENIED unless a user-token caller is an editor of the document."""
        if self.principal.user_id is None:
            return None
        return await self.access.require(self.principal, organization_id, document_id, write=True)

    def visible(self, row: AnnotationRow, decision: AccessDecision | None) -> bool:
        """Annotations a user cannot see are, to that user, not there."""
        if decision is None or self.principal.user_id is None:
            return True
        return may_see(row, self.principal.user_id, decision)

    def acting_as(self, user_id: str | None, path: str) -> None:
        """A user token acts only as its own user: a different `from`/`user` is refused."""
        own = self.principal.user_id
        if own is not None and user_id is not None and user_id != own:
            raise PermissionDenied(f"{path}: a user token acts only as its own user.")

    def event_fields(
        self, row: AnnotationRow, action_user: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The fields every comments event of `row` carries, `annotation` as it is now."""
        if action_user is None and self.principal.user_id is not None:
            action_user = {"userId": self.principal.user_id}
        return {
            "workspaceId": self.principal.workspace_id,
            "apiKey": row.api_key,
            "organizationId": row.organization_id,
            "documentId": row.document_id,
            "annotationId": row.annotation_id,
            "annotation": row.body,
            "actionUser": action_user,
        }
