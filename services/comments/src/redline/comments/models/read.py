"""Requests and answers of the read endpoints: annotations get, comments get, count get."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.comments.models.common import Id, IdList, Ms, Request

PageSize = Annotated[int, Meta(ge=1, le=1000)]
PageToken = Annotated[str, Meta(min_length=1, max_length=1024)]
CommentId = Annotated[int, Meta(ge=0, le=2**53)]
AgentType = Literal["built-in", "custom", "external"]
AgentSource = Literal["svc", "external"]

# The agent filters, of which a request may use at most one (document 2).
AGENT_FILTERS = (
    "agentId",
    "executionId",
    "agentType",
    "agentSource",
    "agentSuggestions",
    "agentComments",
)


class GetAnnotations(Request, kw_only=True):
    """`/v2/commentannotations/get`."""

    organizationId: Id
    documentId: Id | None = None
    documentIds: IdList | None = None
    groupByDocumentId: bool = False
    locationIds: IdList | None = None
    folderId: Id | None = None
    annotationIds: IdList | None = None
    userIds: IdList | None = None
    mentionedUserIds: IdList | None = None
    resolvedBy: Id | None = None
    agentId: Id | None = None
    executionId: Id | None = None
    agentType: AgentType | None = None
    agentSource: AgentSource | None = None
    agentSuggestions: bool | None = None
    agentComments: bool | None = None
    order: Literal["asc", "desc"] = "desc"
    statusIds: IdList | None = None
    statusId: Id | None = None
    updatedAfter: Ms | None = None
    updatedBefore: Ms | None = None
    createdAfter: Ms | None = None
    createdBefore: Ms | None = None
    pageSize: PageSize | None = None
    pageToken: PageToken | None = None

    def agent_filters(self) -> list[str]:
        """Names of the agent filters this request sets (a `false` flag sets nothing)."""
        return [
            name
            for name in AGENT_FILTERS
            if getattr(self, name) is not None and getattr(self, name) is not False
        ]


class GetComments(Request, kw_only=True):
    """`/v1/commentannotations/comments/get`."""

    organizationId: Id
    documentId: Id
    annotationId: Id
    userIds: IdList | None = None
    commentIds: Annotated[list[CommentId], Meta(max_length=1000)] | None = None


class CommentOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A comment as comments/get answers it: a subset of the stored comment."""

    commentId: int
    commentText: str | None = None
    commentHtml: str | None = None
    from_: dict[str, Any] | None = msgspec.field(default=None, name="from")
    lastUpdated: str | None = None
    status: str | None = None
    type: str | None = None


class CountAnnotations(Request, kw_only=True):
    """`/v2/commentannotations/count/get`."""

    __openapi_rule__ = "userId is due with the API key's auth token (a user token is its user)."

    organizationId: Id
    documentIds: Annotated[list[Id], Meta(min_length=1, max_length=30)]
    userId: Id | None = None
    statusIds: IdList | None = None


class DocumentCount(msgspec.Struct):
    total: int
    unread: int


# Annotations travel as their stored JSON (msgspec.Raw), never decoded on the read path.
AnnotationList = list[Any]
GroupedAnnotations = dict[str, list[Any]]
