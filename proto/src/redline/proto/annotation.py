"""A comment annotation as comments stores it, get answers it and its events carry it.

The Structs mirror the stored JSON key for key: a field the JSON may lack is `UNSET` when absent
and every Struct omits it then (`omit_defaults`), so decoding stored JSON and encoding it again
gives the same JSON. No field has any other default, since a default value would be left out
too. Objects the caller owns and the API keeps as given (`context`, `metadata`, an agent's
`reason`, a suggestion's proposed change, a user's `contacts`) are open maps (`JsonMap`): the
hosted product lets them carry fields of the caller's own.

Field names that are Python keywords are renamed on the wire (`from_` is `from`).

What an annotation says of who may read it (its audience: author, assignee, visibility) is read
here, once; the rule that decides on it is `redline.runtime.visibility`.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

# An object the caller gave and the API keeps as given, with fields of the caller's own.
JsonMap = dict[str, Any]
# The SDK gives progress times no type: milliseconds since the epoch or an ISO 8601 text.
Moment = int | str
# `built-in` and `custom` agents are the service's own (`svc`); `external` ones the caller's.
AgentType = Literal["built-in", "custom", "external"]


class Stored(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Base of the stored shapes: absent fields stay absent when encoded. (`kw_only` holds only
    for the fields a class declares itself: a class with a required field after an optional
    one says it again.)"""


class User(Stored):
    """A user as the client SDK describes one (an author, an assignee)."""

    userId: str
    organizationId: str | UnsetType = UNSET
    userSnippylyId: str | UnsetType = UNSET
    photoUrl: str | UnsetType = UNSET
    initial: str | UnsetType = UNSET
    clientUserName: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    name_lowercase: str | UnsetType = UNSET
    clientOrganizationId: str | UnsetType = UNSET
    clientGroupId: str | UnsetType = UNSET
    groupId: str | UnsetType = UNSET
    type: str | UnsetType = UNSET
    contacts: list[Any] | UnsetType = UNSET
    email: str | UnsetType = UNSET
    email_lowercase: str | UnsetType = UNSET
    color: str | UnsetType = UNSET
    textColor: str | UnsetType = UNSET
    isAdmin: bool | UnsetType = UNSET


class Location(Stored):
    id: str
    locationName: str | UnsetType = UNSET


class TargetElement(Stored):
    elementId: str | UnsetType = UNSET
    targetText: str | UnsetType = UNSET
    occurrence: int | UnsetType = UNSET
    selectAllContent: bool | UnsetType = UNSET


class Status(Stored):
    id: str
    name: str
    type: Literal["default", "ongoing", "terminal"]
    color: str | UnsetType = UNSET
    lightColor: str | UnsetType = UNSET
    svg: str | UnsetType = UNSET
    iconUrl: str | UnsetType = UNSET


class Priority(Stored):
    id: str
    name: str
    color: str | UnsetType = UNSET
    lightColor: str | UnsetType = UNSET


class Attachment(Stored):
    attachmentId: int
    name: str | UnsetType = UNSET
    bucketPath: str | UnsetType = UNSET
    size: int | UnsetType = UNSET
    type: str | UnsetType = UNSET
    url: str | UnsetType = UNSET
    thumbnail: str | UnsetType = UNSET
    mimeType: str | UnsetType = UNSET
    metadata: JsonMap | UnsetType = UNSET


class Contact(Stored):
    """A tagged entry's user."""

    userId: str
    name: str | UnsetType = UNSET
    email: str | UnsetType = UNSET


class TaggedGroup(Stored):
    """An organization user group a tagged entry names: its members count as tagged."""

    groupId: str
    groupName: str | UnsetType = UNSET


class TaggedUserContact(Stored):
    """One entry of a comment's `taggedUserContacts`: a user (`contact`), or a user group
    (`group`; `userId` is then the id its `{{…}}` mention uses)."""

    userId: str
    contact: Contact | UnsetType = UNSET
    text: str | UnsetType = UNSET
    group: TaggedGroup | UnsetType = UNSET


class VisibilityConfig(Stored):
    """`public`, `organizationPrivate` (to `organizationId`) or `restricted` (to the author, the
    assignee and `userIds`). Kept as text: a type this code does not know is read as the least
    access (`redline.runtime.visibility`)."""

    type: str
    organizationId: str | UnsetType = UNSET
    userIds: list[str] | UnsetType = UNSET


class Agent(Stored):
    """The agent block of a comment (and of the annotation its root comment opens). `reason`
    is the finding, with fields of the agent's own beside the ones the add endpoint checks
    (every agent the add endpoint takes has one; blocks written by other means may not)."""

    agentSource: str
    reason: JsonMap | UnsetType = UNSET
    agentId: str | UnsetType = UNSET
    executionId: str | UnsetType = UNSET
    agentName: str | UnsetType = UNSET
    url: str | UnsetType = UNSET
    agentType: AgentType | UnsetType = UNSET


class ProgressStep(Stored):
    label: str
    id: str | UnsetType = UNSET
    state: str | UnsetType = UNSET
    startedAt: Moment | UnsetType = UNSET
    completedAt: Moment | UnsetType = UNSET
    metadata: JsonMap | UnsetType = UNSET


class Progress(Stored):
    state: str
    steps: list[ProgressStep] | UnsetType = UNSET
    visibleToUserIds: list[str] | UnsetType = UNSET
    startedAt: Moment | UnsetType = UNSET


class Action(Stored):
    id: str
    label: str | UnsetType = UNSET
    icon: str | UnsetType = UNSET
    disabled: bool | UnsetType = UNSET
    hidden: bool | UnsetType = UNSET
    metadata: JsonMap | UnsetType = UNSET


class ReactionUser(Stored):
    """One user's reaction with an icon, and when they reacted."""

    lastUpdated: int
    from_: User = msgspec.field(name="from")


class Reaction(Stored, kw_only=True):
    """One icon's reaction to a comment, with every user who reacted with it; where its
    annotation is (location, context) is copied in."""

    annotationId: str
    type: Literal["reaction"]
    icon: str
    commentAnnotationId: str
    locationId: int | str | UnsetType = UNSET
    location: Location | UnsetType = UNSET
    context: JsonMap | UnsetType = UNSET
    lastUpdated: int
    fromUsers: list[ReactionUser]

    def reacted(self, user_id: str) -> bool:
        return any(entry.from_.userId == user_id for entry in self.fromUsers)


class Comment(Stored):
    """A comment of an annotation's thread."""

    commentId: int
    type: str
    status: str  # `added`, then `updated`
    isDraft: bool
    isCommentTextAvailable: bool
    createdAt: int
    lastUpdated: str  # ISO 8601, in UTC
    from_: User = msgspec.field(name="from")
    sourceType: Literal["rest-api", "agent"]
    commentText: str | UnsetType = UNSET
    commentHtml: str | UnsetType = UNSET
    context: JsonMap | UnsetType = UNSET
    metadata: JsonMap | UnsetType = UNSET
    isCommentResolverUsed: bool | UnsetType = UNSET
    attachments: list[Attachment] | UnsetType = UNSET
    agent: Agent | UnsetType = UNSET
    progress: Progress | UnsetType = UNSET
    actions: list[Action] | UnsetType = UNSET
    taggedUserContacts: list[TaggedUserContact] | UnsetType = UNSET
    reactionAnnotationIds: list[str] | UnsetType = UNSET
    reactionAnnotations: list[Reaction] | UnsetType = UNSET
    # Lists of the hosted product's comment that Redline keeps as they are and never fills.
    to: list[Any] | UnsetType = UNSET
    toOrganizationUserGroup: list[Any] | UnsetType = UNSET
    recorders: list[Any] | UnsetType = UNSET
    customList: list[Any] | UnsetType = UNSET

    @property
    def tagged(self) -> list[TaggedUserContact]:
        return [] if self.taggedUserContacts is UNSET else self.taggedUserContacts

    @property
    def reactions(self) -> list[Reaction]:
        return [] if self.reactionAnnotations is UNSET else self.reactionAnnotations

    @property
    def text(self) -> str | None:
        return None if self.commentText is UNSET else self.commentText

    @property
    def html(self) -> str | None:
        return None if self.commentHtml is UNSET else self.commentHtml


class AnnotationMetadata(Stored):
    """Where the annotation is: the key, organization and document that hold it."""

    apiKey: str
    organizationId: str
    documentId: str


class Annotation(Stored, kw_only=True):
    """An annotation as stored, exactly as the get endpoint returns it."""

    annotationId: str
    annotationNumber: int | UnsetType = UNSET
    annotationIndex: int | UnsetType = UNSET
    type: Literal["comment", "suggestion"]
    sourceType: Literal["rest-api", "agent"]
    createdAt: int
    lastUpdated: int
    hasDraftComments: bool
    visibilityConfig: VisibilityConfig
    metadata: AnnotationMetadata
    from_: User = msgspec.field(name="from")
    comments: list[Comment]
    location: Location | UnsetType = UNSET
    # The location's number where the add endpoint derived it (text where the caller's own data
    # gave one).
    locationId: int | str | UnsetType = UNSET
    targetElement: TargetElement | UnsetType = UNSET
    status: Status | UnsetType = UNSET
    priority: Priority | UnsetType = UNSET
    assignedTo: User | UnsetType = UNSET
    context: JsonMap | UnsetType = UNSET
    commentType: Literal["manual", "chart", "suggestion"] | UnsetType = UNSET
    # Set on suggestions: the proposed change as the caller sent it, with its `status`
    # (`pending` until accepted or rejected).
    suggestion: JsonMap | UnsetType = UNSET
    agent: Agent | UnsetType = UNSET
    actions: list[Action] | UnsetType = UNSET
    statusUpdatedByUserId: str | UnsetType = UNSET

    @property
    def root(self) -> Comment | None:
        """The comment that opened the thread."""
        return self.comments[0] if self.comments else None

    def comment(self, comment_id: int) -> Comment | None:
        return next((c for c in self.comments if c.commentId == comment_id), None)

    @property
    def suggestion_status(self) -> str | None:
        """`pending`, `accepted` or `rejected` on a suggestion; None on other annotations."""
        if self.suggestion is UNSET:
            return None
        status = self.suggestion.get("status")
        return status if isinstance(status, str) else None

    # the audience: what the visibility rule reads of it

    @property
    def creator_user_id(self) -> str:
        """The author of its first comment, else the annotation's `from`."""
        root = self.root
        return (root.from_ if root is not None else self.from_).userId

    @property
    def assigned_user_id(self) -> str | None:
        return None if self.assignedTo is UNSET else self.assignedTo.userId

    @property
    def visibility(self) -> str:
        return self.visibilityConfig.type

    @property
    def visible_to(self) -> list[str]:
        """The users besides the author and the assignee a `restricted` annotation names."""
        named = self.visibilityConfig.userIds
        if self.visibility != "restricted" or named is UNSET:
            return []
        return list(dict.fromkeys(named))


def stored_json(value: msgspec.Struct) -> JsonMap:
    """A stored shape as a JSON object: the fields it has, under their wire names."""
    built: JsonMap = msgspec.to_builtins(value)
    return built
