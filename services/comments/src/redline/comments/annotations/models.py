"""Requests and answers of the annotation endpoints: add, get, count, update and
delete."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.comments.shared.models import (
    MAX_COMMENTS,
    Actions,
    AgentSource,
    AnnotationType,
    Email,
    Id,
    IdList,
    Location,
    Metadata,
    Ms,
    Name,
    NewComment,
    NewDocument,
    NewOrganization,
    Priority,
    Request,
    Status,
    TargetElement,
    Url,
    User,
    Visibility,
)

MAX_ANNOTATIONS = 100
MAX_UPDATES = 20
MAX_USER_RENAMES = 100
PageSize = Annotated[int, Meta(ge=1, le=1000)]
PageToken = Annotated[str, Meta(min_length=1, max_length=1024)]
AgentType = Literal["built-in", "custom", "external"]

# add ---------------------------------------------------------------------------------------------


class NewAnnotation(Request):
    commentData: Annotated[list[NewComment], Meta(min_length=1, max_length=MAX_COMMENTS)]
    annotationId: Id | None = None
    location: Location | None = None
    targetElement: TargetElement | None = None
    status: Status | None = None
    assignedTo: User | None = None
    context: Metadata | None = None
    createdAt: Ms | None = None
    lastUpdated: Ms | None = None
    priority: Priority | None = None
    type: AnnotationType | None = None
    # The proposed change of a `suggestion` annotation: open, kept as sent (its `status` is the
    # server's); ignored on other annotations.
    suggestion: Metadata | None = None
    commentType: Literal["manual", "chart", "suggestion"] | None = None
    visibility: Visibility | None = None
    actions: Actions | None = None


class AddAnnotations(Request):
    organizationId: Id
    documentId: Id
    commentAnnotations: Annotated[
        list[NewAnnotation], Meta(min_length=1, max_length=MAX_ANNOTATIONS)
    ]
    createOrganization: bool | NewOrganization = False
    createDocument: bool | NewDocument = False
    verifyUserPermissions: bool = False


class AddedAnnotation(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One entry of the add endpoint's result map (and of `details` when some failed)."""

    success: bool
    annotationId: str
    commentIds: list[int] = msgspec.field(default_factory=list)
    message: str
    # Set on failed entries: what kind of failure, and the offending fields.
    code: str | None = None
    issues: list[dict[str, str]] | None = None


AddedAnnotations = dict[str, AddedAnnotation]

# get and count -----------------------------------------------------------------------------------

# The agent filters, of which a request may use at most one.
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
    # The official SDK's switches for what the hosted product leaves out by default; Redline's
    # answers always carry annotations' metadata and the next page's token.
    includeMetadata: bool | None = None
    includePageInfo: bool | None = None

    def agent_filters(self) -> list[str]:
        """Names of the agent filters this request sets (a `false` flag sets nothing)."""
        return [
            name
            for name in AGENT_FILTERS
            if getattr(self, name) is not None and getattr(self, name) is not False
        ]


# Annotations travel as their stored JSON, never decoded on the read path: in request order with
# null where an asked-for id matched nothing, or in lists by document id.
AnnotationList = list[msgspec.Raw | None]
GroupedAnnotations = dict[str, list[msgspec.Raw]]


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


# update and delete -------------------------------------------------------------------------------


class UpdatedData(Request):
    location: Location | None = None
    targetElement: TargetElement | None = None
    from_: User | None = msgspec.field(default=None, name="from")
    status: Status | None = None
    assignedTo: User | None = None
    context: Metadata | None = None
    priority: Priority | None = None
    actions: Actions | None = None  # replaces the annotation's actions whole
    # Who resolved it (what the `resolvedBy` filter matches) and who last changed the status;
    # null clears, absent keeps.
    resolvedByUserId: Id | UnsetType | None = UNSET
    statusUpdatedByUserId: Id | UnsetType | None = UNSET


class UserRef(Request):
    userId: Id
    name: Name | None = None
    email: Email | None = None


class UserRename(Request):
    oldUser: UserRef
    newUser: UserRef


class UpdateAnnotations(Request):
    __openapi_any_of__ = (("updatedData",), ("updateUsers",))

    organizationId: Id
    documentId: Id
    locationIds: IdList | None = None
    userIds: IdList | None = None
    annotationIds: IdList | None = None
    # Document 2 lists an array, and its samples send one object: both are taken.
    updatedData: Annotated[list[UpdatedData], Meta(max_length=MAX_UPDATES)] | UpdatedData | None = (
        None
    )
    updateUsers: Annotated[list[UserRename], Meta(max_length=MAX_USER_RENAMES)] | None = None

    @property
    def updates(self) -> list[UpdatedData]:
        """`updatedData` as a list, whichever form it came in."""
        if isinstance(self.updatedData, UpdatedData):
            return [self.updatedData]
        return self.updatedData or []


class DeleteAnnotations(Request):
    organizationId: Id
    documentId: Id
    annotationIds: IdList | None = None
    locationIds: IdList | None = None
    userIds: IdList | None = None
    agentId: Id | None = None
    agentSuggestions: bool | None = None
    # Pages an agent's annotations were made on (`agent.url`); AND-combined with the other
    # agent filters, OR within the list.
    agentUrls: Annotated[list[Url], Meta(min_length=1, max_length=30)] | None = None


class ItemResult(msgspec.Struct):
    """One annotation's outcome in a keyed result map."""

    success: bool
    id: str
    message: str
