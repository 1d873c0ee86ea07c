"""Requests and answers of /v2/workflow/definitions/*.

A request refuses unknown fields and explicit nulls: optional fields default to UNSET, never to
None, so a read response pasted back with its nulls left in is an INVALID_ARGUMENT, as the hosted
product answers. Edges, nodes, groups and triggers are echoed on reads as authored (UNSET fields
omitted). Server-owned fields (`version`, `status`, `compiled`, timestamps) exist only on the
view, so a request carrying them is refused as carrying unknown fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.envelope import Request
from redline.workflow.definitions.nodes import (
    AgentConfig,
    AgentNode,
    Description,
    ExternalId,
    HttpsUrl,
    HumanConfig,
    HumanNode,
    Name,
    Node,
    NodeId,
    NodeType,
    NotificationConfig,
    NotificationNode,
    Reviewer,
    WebhookNode,
    WebhookNodeConfig,
)
from redline.workflow.definitions.triggers import (
    AppTrigger,
    EventName,
    InboundWebhook,
    PayloadFilter,
    Schedule,
    Secret,
    Trigger,
)

__all__ = [
    "AgentConfig",
    "AgentNode",
    "AppTrigger",
    "CompiledEdge",
    "CompiledGraph",
    "CompiledLoop",
    "CreateDefinition",
    "DefinitionBody",
    "DefinitionPage",
    "DefinitionView",
    "DeleteDefinition",
    "DeletedDefinition",
    "Edge",
    "EdgeEndpoint",
    "GetDefinition",
    "Group",
    "GroupRef",
    "HumanConfig",
    "HumanNode",
    "InboundWebhook",
    "ListDefinitions",
    "Loop",
    "Node",
    "NodeRef",
    "NodeType",
    "NotificationConfig",
    "NotificationNode",
    "PayloadFilter",
    "ReceiverConfig",
    "Reviewer",
    "Role",
    "RouteTo",
    "Schedule",
    "Scope",
    "ScopeView",
    "Trigger",
    "UpdateDefinition",
    "WebhookNode",
    "WebhookNodeConfig",
    "effective_scope",
    "view",
]

T = TypeVar("T")

# `\Z`, not `$`: `$` would also take the id followed by a newline.
DefinitionId = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9-]{2,63}\Z")]
# Looked-up ids only need to be plausible: an id that cannot exist is simply not found.
LookupId = Annotated[str, Meta(min_length=1, max_length=256)]
GroupId = Annotated[str, Meta(min_length=1, max_length=64)]
Tag = Annotated[str, Meta(max_length=64)]

Role = Literal["approve", "reject", "always", "exhausted", "custom"]
QuorumPolicy = Literal["waitAll", "cancelOnQuorum", "joinOnQuorum"]
ScopeLevel = Literal["apiKey", "organization", "document"]


# ---- edges


class NodeRef(Request, tag_field="kind", tag="node"):
    nodeId: NodeId


class GroupRef(Request, tag_field="kind", tag="group"):
    groupId: GroupId


# A bare string names a node.
EdgeEndpoint = NodeId | NodeRef | GroupRef


class Loop(Request):
    maxIterations: Annotated[int, Meta(ge=1, le=20)]


class Edge(Request):
    """One transition. `on` left out means `always`; `when` goes with `custom` only; `loop`
    marks a reject edge back to an ancestor."""

    source: EdgeEndpoint = msgspec.field(name="from")
    target: EdgeEndpoint = msgspec.field(name="to")
    on: Role | UnsetType = UNSET
    when: Annotated[str, Meta(max_length=1000)] | UnsetType = UNSET
    loop: Loop | UnsetType = UNSET

    @property
    def role(self) -> Role:
        return "always" if isinstance(self.on, UnsetType) else self.on

    @property
    def is_loop_back(self) -> bool:
        """A reject edge marked `loop`: the way back into a loop, never a forward edge."""
        return self.role == "reject" and not isinstance(self.loop, UnsetType)


# ---- groups, scope, receiver


class Group(Request):
    groupId: GroupId
    memberNodeIds: Annotated[list[NodeId], Meta(min_length=1, max_length=500)]
    expectedSteps: Annotated[int, Meta(ge=1, le=500)]
    quorum: Annotated[int, Meta(ge=1, le=500)]
    onQuorumMet: QuorumPolicy | UnsetType = UNSET
    requiredNodeIds: Annotated[list[NodeId], Meta(max_length=500)] | UnsetType = UNSET

    @property
    def policy(self) -> QuorumPolicy:
        return "waitAll" if isinstance(self.onQuorumMet, UnsetType) else self.onQuorumMet


class Scope(Request):
    level: ScopeLevel
    organizationId: ExternalId | UnsetType = UNSET
    documentId: ExternalId | UnsetType = UNSET


class ReceiverConfig(Request):
    """The definition's default execution-webhook receiver (`webhookConfig`): write-only."""

    url: HttpsUrl
    secret: Secret
    eventTypes: Annotated[list[EventName], Meta(max_length=50)] | UnsetType = UNSET


# ---- requests


class DefinitionBody(Request, kw_only=True):
    definitionId: DefinitionId
    name: Name
    description: Description | UnsetType = UNSET
    scope: Scope | UnsetType = UNSET
    nodes: Annotated[list[Node], Meta(min_length=1, max_length=100)]
    edges: Annotated[list[Edge], Meta(max_length=500)]
    groups: Annotated[list[Group], Meta(max_length=100)] | UnsetType = UNSET
    triggers: Annotated[list[Trigger], Meta(max_length=50)] | UnsetType = UNSET
    webhookConfig: ReceiverConfig | UnsetType = UNSET
    tags: Annotated[list[Tag], Meta(max_length=20)] | UnsetType = UNSET
    custom: dict[str, Any] | UnsetType = UNSET
    organizationId: ExternalId | UnsetType = UNSET
    documentId: ExternalId | UnsetType = UNSET

    @property
    def group_list(self) -> list[Group]:
        return [] if isinstance(self.groups, UnsetType) else self.groups

    @property
    def trigger_list(self) -> list[Trigger]:
        return [] if isinstance(self.triggers, UnsetType) else self.triggers


class CreateDefinition(DefinitionBody, kw_only=True):
    pass


class UpdateDefinition(DefinitionBody, kw_only=True):
    """A whole definition: anything left out (scope included) is not kept from the stored one."""

    ifVersion: Annotated[int, Meta(ge=1, le=2**31 - 1)]


class GetDefinition(Request):
    definitionId: LookupId
    # Accepted and ignored: a definition is found by its id alone.
    organizationId: ExternalId | UnsetType = UNSET
    documentId: ExternalId | UnsetType = UNSET


class DeleteDefinition(Request):
    definitionId: LookupId
    purge: bool = False
    organizationId: ExternalId | UnsetType = UNSET
    documentId: ExternalId | UnsetType = UNSET


class ListDefinitions(Request):
    pageSize: Annotated[int, Meta(ge=1, le=500)] = 50
    # The previous page's `nextCursor`: the `updatedAt` of its last item.
    cursor: Annotated[int, Meta(ge=0, le=2**53)] | UnsetType = UNSET
    organizationId: ExternalId | UnsetType = UNSET
    documentId: ExternalId | UnsetType = UNSET


# ---- views


class ScopeView(msgspec.Struct, kw_only=True):
    level: ScopeLevel
    organizationId: str | None
    documentId: str | None


class CompiledEdge(msgspec.Struct, kw_only=True):
    """A runtime forward edge between two nodes; a group endpoint is expanded to one edge per
    member, which names the group."""

    source: str = msgspec.field(name="from")
    target: str = msgspec.field(name="to")
    role: Role
    when: dict[str, Any] | None
    fromGroupId: str | UnsetType = UNSET
    toGroupId: str | UnsetType = UNSET


class RouteTo(msgspec.Struct, kw_only=True):
    routeToNodeId: str


class CompiledLoop(msgspec.Struct, kw_only=True):
    loopId: str
    entryNodeId: str
    bodyNodeIds: list[str]
    maxIterations: int
    onExhausted: RouteTo | None


class CompiledGraph(msgspec.Struct, kw_only=True):
    forwardEdges: list[CompiledEdge]
    loops: list[CompiledLoop]


class DefinitionView(msgspec.Struct, kw_only=True):
    """A definition as reads return it: never `webhookConfig`, unset optional fields as null."""

    definitionId: str
    name: str
    description: str | None
    version: int
    scope: ScopeView
    nodes: list[Node]
    edges: list[Edge]
    groups: list[Group] | None
    compiled: CompiledGraph
    triggers: list[Trigger] | None
    tags: list[str] | None
    custom: dict[str, Any] | None
    createdAt: int
    updatedAt: int
    status: Literal["active", "tombstoned"]


class DefinitionPage(msgspec.Struct, kw_only=True):
    items: list[DefinitionView]
    nextCursor: int | None


class DeletedDefinition(msgspec.Struct, kw_only=True):
    deleted: bool
    purged: bool
    definitionId: str


def effective_scope(body: DefinitionBody) -> ScopeView:
    """The scope a definition and every run it starts belong to. Ids come from `scope` or from
    the top-level fields (the linter has checked they agree); a level keeps only its own ids."""
    scope = body.scope if not isinstance(body.scope, UnsetType) else Scope(level="apiKey")
    organization_id = _either(scope.organizationId, body.organizationId)
    document_id = _either(scope.documentId, body.documentId)
    return ScopeView(
        level=scope.level,
        organizationId=organization_id if scope.level != "apiKey" else None,
        documentId=document_id if scope.level == "document" else None,
    )


def _either(first: str | UnsetType, second: str | UnsetType) -> str | None:
    if not isinstance(first, UnsetType):
        return first
    return None if isinstance(second, UnsetType) else second


def view(
    body: DefinitionBody,
    compiled: CompiledGraph,
    *,
    version: int,
    status: Literal["active", "tombstoned"],
    created_at: int,
    updated_at: int,
) -> DefinitionView:
    return DefinitionView(
        definitionId=body.definitionId,
        name=body.name,
        description=_or_none(body.description),
        version=version,
        scope=effective_scope(body),
        nodes=body.nodes,
        edges=body.edges,
        groups=_or_none(body.groups),
        compiled=compiled,
        triggers=_or_none(body.triggers),
        tags=_or_none(body.tags),
        custom=_or_none(body.custom),
        createdAt=created_at,
        updatedAt=updated_at,
        status=status,
    )


def _or_none(value: T | UnsetType) -> T | None:
    return None if isinstance(value, UnsetType) else value
