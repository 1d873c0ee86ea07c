"""Field types, the request base, and the Structs of annotation and comment fields that more than
one endpoint accepts (the API's resources): users, location, target element, status, priority,
attachments, tagged contacts, visibility, the agent block, and a new comment as the two add
endpoints take it. Every one forbids unknown fields, except where the API says extra fields
are kept (an agent's `reason`, decoded as a map and checked by the service).

The annotation as stored, which the endpoints that answer with one return, is
`redline.proto.annotation.Annotation`; `as_stored` turns a request's objects into its parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import UNSET, Meta, UnsetType

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Name = Annotated[str, Meta(max_length=512)]
Url = Annotated[str, Meta(max_length=4096)]
Text = Annotated[str, Meta(max_length=100_000)]
Ms = Annotated[int, Meta(ge=0, le=10**14)]  # ms since the epoch
IdList = Annotated[list[Id], Meta(max_length=30)]  # the API's limit of 30 ids a list
Metadata = Annotated[dict[str, Any], Meta(max_length=256)]
CommentId = Annotated[int, Meta(ge=0, le=2**53)]
AnnotationType = Literal["comment", "suggestion"]
Color = Annotated[str, Meta(max_length=64)]
Email = Annotated[str, Meta(max_length=320)]
Svg = Annotated[str, Meta(max_length=65_536)]
ShortText = Annotated[str, Meta(max_length=2048)]
StatusType = Literal["default", "ongoing", "terminal"]
# The service's own agents are `svc`; the hosted reference names them by its brand, `velt`, which
# is taken as the same source and stored (and matched) as `svc`.
AgentSource = Literal["svc", "velt", "external"]


def own_agent_source(source: str) -> str:
    """`source` as stored and matched: the hosted brand's name for the service's agents is `svc`."""
    return "svc" if source == "velt" else source


T = TypeVar("T")

MAX_CONTACTS = 100
MAX_ATTACHMENTS = 50
MAX_COMMENTS = 100


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""


def to_body(value: msgspec.Struct) -> dict[str, Any]:
    """A request Struct as stored: fields the caller did not set are absent."""
    built: dict[str, Any] = msgspec.to_builtins(value)
    return built


S = TypeVar("S", bound=msgspec.Struct)


def as_stored(value: msgspec.Struct, shape: type[S]) -> S:
    """A request's object (a user, a status, ...) as the annotation keeps it (`shape`, of
    `redline.proto.annotation`): the fields the caller set, under the same names."""
    return msgspec.convert(to_body(value), shape)


def all_stored(values: Sequence[msgspec.Struct] | None, shape: type[S]) -> list[S] | UnsetType:
    """`as_stored` for a list the caller may leave out (absent then, as the stored JSON has it)."""
    return UNSET if values is None else [as_stored(value, shape) for value in values]


def given(value: T | None) -> T | UnsetType:
    """A request's optional field as the annotation keeps it: absent when not given."""
    return UNSET if value is None else value


# An organization's or document's name, as identity bounds it.
DirectoryName = Annotated[str, Meta(max_length=256)]


class NewOrganization(Request):
    """The object form of `createOrganization` (the hosted product's request collection sends
    it): create the organization when it is missing, with this name. Redline's organizations
    have no type: `organizationType` is accepted and not kept."""

    organizationName: DirectoryName = ""
    organizationType: DirectoryName | None = None


class NewDocument(Request):
    """The object form of `createDocument`, as `NewOrganization` is of `createOrganization`."""

    documentName: DirectoryName = ""
    documentType: DirectoryName | None = None


class User(Request):
    """A user as the client SDK describes one; only `userId` is required."""

    userId: Id
    organizationId: Id | None = None
    userSnippylyId: Id | None = None
    photoUrl: Url | None = None
    initial: Annotated[str, Meta(max_length=8)] | None = None
    clientUserName: Name | None = None
    name: Name | None = None
    name_lowercase: Name | None = None
    clientOrganizationId: Id | None = None
    clientGroupId: Id | None = None
    groupId: Id | None = None
    type: Name | None = None
    contacts: Annotated[list[Any], Meta(max_length=MAX_CONTACTS)] | None = None
    email: Email | None = None
    email_lowercase: Email | None = None
    color: Color | None = None
    textColor: Color | None = None
    isAdmin: bool | None = None
    # The hosted product's request collection names the author's name and email `userName` and
    # `userEmail`; they are kept under the reference's names, `name` and `email`.
    userName: Name | None = None
    userEmail: Email | None = None

    def __post_init__(self) -> None:
        if self.name is None:
            self.name = self.userName
        if self.email is None:
            self.email = self.userEmail
        self.userName = self.userEmail = None


class Location(Request):
    id: Id
    locationName: Name | None = None


class TargetElement(Request):
    elementId: Id | None = None
    targetText: Text | None = None
    occurrence: Annotated[int, Meta(ge=0, le=1_000_000)] | None = None
    selectAllContent: bool | None = None


class Status(Request):
    """Colors and an icon are optional here; the add endpoint requires them (service rule)."""

    id: Id
    name: Name
    type: StatusType
    color: Color | None = None
    lightColor: Color | None = None
    svg: Svg | None = None
    iconUrl: Url | None = None


class Priority(Request):
    id: Id
    name: Name
    color: Color | None = None
    lightColor: Color | None = None


class Attachment(Request):
    attachmentId: Annotated[int, Meta(ge=0, le=2**53)]
    name: Name | None = None
    bucketPath: Url | None = None
    size: Annotated[int, Meta(ge=0)] | None = None
    type: Name | None = None
    url: Url | None = None
    thumbnail: Url | None = None
    mimeType: Name | None = None
    metadata: Metadata | None = None


class Contact(Request):
    userId: Id
    name: Name | None = None
    email: Email | None = None


class TaggedGroup(Request):
    """An organization user group a tagged entry names (the hosted product's `OrganizationUserGroup`
    shape): its members count as tagged."""

    groupId: Id
    groupName: Name | None = None


class TaggedUserContact(Request):
    """A tagged user as the annotation add endpoint takes it (`text` is accepted too), or a
    tagged user group (`group`; `userId` is then the id its `{{…}}` mention uses)."""

    __openapi_any_of__ = (("contact",), ("group",))

    userId: Id
    contact: Contact | None = None
    text: ShortText | None = None
    group: TaggedGroup | None = None


class Visibility(Request):
    """`userIds` names who besides the author may see a `restricted` annotation;
    `organizationId` is the organization an `organizationPrivate` one is private to."""

    type: Literal["public", "organizationPrivate", "restricted"]
    organizationId: Id | None = None
    userIds: Annotated[list[Id], Meta(max_length=MAX_CONTACTS)] | None = None


class Agent(Request):
    """The agent block of a comment. `reason` keeps its extra fields, so it is a map here and
    checked against `AgentReason` by the service."""

    agentSource: AgentSource
    reason: Annotated[dict[str, Any], Meta(max_length=64)]
    agentId: Id | None = None
    executionId: Id | None = None
    agentName: Name | None = None
    url: Url | None = None


class AgentReason(Request, forbid_unknown_fields=False):
    title: Annotated[str, Meta(max_length=1024)]
    description: Text
    severity: Literal["critical", "high", "medium", "low", "info"]
    findingId: Id | None = None
    findingType: Literal["text", "pin", "page"] | None = None
    issueType: Name | None = None
    confidence: Annotated[int, Meta(ge=0, le=100)] | None = None
    suggestion: Text | None = None
    suggestedFix: Text | None = None
    htmlSnippet: Text | None = None
    htmlSelector: ShortText | None = None
    source: Literal["instructions", "knowledge"] | None = None
    knowledgeSection: Name | None = None


# Progress and actions -----------------------------------------------------------------------------
# Fields the official SDK documents for annotations and comments and the reference does not: stored
# as given and echoed back, never interpreted (an action performs no write; `visibleToUserIds` is
# for display, not a visibility rule).

MAX_ACTIONS = 20
MAX_PROGRESS_STEPS = 100
# The SDK gives these times no type: milliseconds since the epoch or an ISO 8601 text.
Moment = Ms | Annotated[str, Meta(max_length=64)]


class ProgressStep(Request):
    label: Name
    id: Id | None = None
    state: Literal["pending", "active", "completed", "failed"] | None = None
    startedAt: Moment | None = None
    completedAt: Moment | None = None
    metadata: Metadata | None = None


class Progress(Request):
    state: Literal["active", "completed", "failed", "cancelled"]
    steps: Annotated[list[ProgressStep], Meta(max_length=MAX_PROGRESS_STEPS)] | None = None
    visibleToUserIds: Annotated[list[Id], Meta(max_length=MAX_CONTACTS)] | None = None
    startedAt: Moment | None = None


class Action(Request):
    id: Id
    label: Name | None = None
    icon: Url | None = None
    disabled: bool | None = None
    hidden: bool | None = None
    metadata: Metadata | None = None


Actions = Annotated[list[Action], Meta(max_length=MAX_ACTIONS)]


# A new comment ------------------------------------------------------------------------------------


class CommentFields(Request):
    """What a new comment has, whichever add endpoint it comes with."""

    from_: User = msgspec.field(name="from")
    commentId: CommentId | None = None
    commentText: Text | None = None
    commentHtml: Text | None = None
    context: Metadata | None = None
    # The caller's own data on the comment (the hosted product's request collection sends it);
    # kept with the comment and answered back.
    metadata: Metadata | None = None
    isCommentResolverUsed: bool | None = None
    isCommentTextAvailable: bool | None = None
    createdAt: Ms | None = None
    lastUpdated: Ms | None = None
    attachments: Annotated[list[Attachment], Meta(max_length=MAX_ATTACHMENTS)] | None = None
    agent: Agent | None = None
    progress: Progress | None = None
    actions: Actions | None = None


class NewComment(CommentFields):
    """A comment of the annotation add endpoint."""

    taggedUserContacts: Annotated[list[TaggedUserContact], Meta(max_length=MAX_CONTACTS)] | None = (
        None
    )
    triggerNotification: bool = False
    triggerActivities: bool = False


class FullContact(Request):
    userId: Id
    name: Name
    email: Email


class ReplyTaggedUserContact(Request):
    """A tagged user as the comment add endpoint takes it, every field required; or a tagged
    user group (`group`), which needs no `contact`."""

    __openapi_any_of__ = (("contact",), ("group",))

    text: ShortText
    userId: Id
    contact: FullContact | None = None
    group: TaggedGroup | None = None


class ReplyComment(CommentFields):
    """A comment of the comment add endpoint (no notification flags there)."""

    taggedUserContacts: (
        Annotated[list[ReplyTaggedUserContact], Meta(max_length=MAX_CONTACTS)] | None
    ) = None
    # The SDK's per-comment notification opt-in: it reaches the event, and is never stored.
    triggerNotification: bool | None = None
