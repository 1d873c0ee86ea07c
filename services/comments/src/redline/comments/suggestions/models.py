"""The request of the suggestion endpoint; it answers with the annotation as stored
(`shared.models.Annotation`)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from redline.comments.shared.models import Id, Request, User


class ResolveSuggestion(Request):
    organizationId: Id
    documentId: Id
    annotationId: Id
    action: Literal["accept", "reject"]
    user: User
    reason: Annotated[str, Meta(max_length=2000)] | None = None
