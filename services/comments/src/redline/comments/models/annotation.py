"""Request Structs of annotation and comment fields that more than one endpoint accepts (document 2
"Resources"): users, location, target element, status, priority, attachments, tagged contacts,
visibility and the agent block. Every one forbids unknown fields, except where document 2 says
extra fields are kept (an agent's `reason`, decoded as a map and checked by the service)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from redline.comments.models.common import Id, Metadata, Name, Request, Text, Url

Color = Annotated[str, Meta(max_length=64)]
Email = Annotated[str, Meta(max_length=320)]
Svg = Annotated[str, Meta(max_length=65_536)]
ShortText = Annotated[str, Meta(max_length=2048)]
StatusType = Literal["default", "ongoing", "terminal"]
AgentSource = Literal["svc", "external"]
MAX_CONTACTS = 100
MAX_ATTACHMENTS = 50


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


class TaggedUserContact(Request):
    """A tagged user as the annotation add endpoint takes it (`text` is accepted too)."""

    userId: Id
    contact: Contact
    text: ShortText | None = None


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
