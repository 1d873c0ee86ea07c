"""Domain events: one tagged union over every service's events.

Evolution rules (msgspec's schema evolution): a new field gets a default, a field's type never
changes, consumers ignore fields they don't know. The tag is `<service>.<eventType>` and the NATS
subject is `evt.` + tag: `evt.comments.comment_annotation.add` carries
`comments.comment_annotation.add`. Each service's events live in a module of their own.
"""

from __future__ import annotations

import typing
from typing import Union

import msgspec

from redline.proto.events.base import Event, epoch_ms, new_event_id, now_ms
from redline.proto.events.comments import (
    AnnotationAdded,
    AnnotationDeleted,
    AnnotationUpdated,
    Assigned,
    CommentAdded,
    CommentDeleted,
    CommentEvent,
    CommentsEvent,
    CommentUpdated,
    PriorityChanged,
    ReactionAdded,
    ReactionDeleted,
    StatusChanged,
    SuggestionAccepted,
    SuggestionRejected,
)
from redline.proto.events.identity import (
    AccessChanged,
    ActivityConfigState,
    ActivityConfigUpdated,
    AdvancedWebhookConfigState,
    AdvancedWebhookConfigUpdated,
    AdvancedWebhookEndpointChanged,
    ApiKeyCreated,
    ApiKeyUpdated,
    DocumentAdded,
    DocumentDeleted,
    DocumentUpdated,
    DomainsUpdated,
    EmailConfigState,
    EmailConfigUpdated,
    FolderAdded,
    FolderDeleted,
    FolderUpdated,
    KeyRevoked,
    NotificationConfigState,
    NotificationConfigUpdated,
    NotificationServiceConfigState,
    OrganizationAdded,
    OrganizationDeleted,
    OrganizationUpdated,
    WebhookConfigState,
    WebhookConfigUpdated,
    WebhookServiceConfigState,
    WorkspaceCreated,
    deleted_documents,
)
from redline.proto.events.migration import (
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    DocumentMigrationRequested,
)
from redline.proto.events.personal_data import PersonalDataErased, PersonalDataErasureRequested
from redline.proto.events.workflow import (
    AgentDecisionRecorded,
    ExecutionEventOut,
    ExecutionEventView,
    ReviewerDecisionRecorded,
    WorkflowDecision,
)

AnyEvent = Union[  # noqa: UP007 (msgspec needs a runtime union object)
    WorkspaceCreated,
    ApiKeyCreated,
    ApiKeyUpdated,
    KeyRevoked,
    AccessChanged,
    OrganizationAdded,
    OrganizationUpdated,
    OrganizationDeleted,
    FolderAdded,
    FolderUpdated,
    FolderDeleted,
    DocumentAdded,
    DocumentUpdated,
    DocumentDeleted,
    WebhookConfigUpdated,
    AdvancedWebhookConfigUpdated,
    AdvancedWebhookEndpointChanged,
    ActivityConfigUpdated,
    NotificationConfigUpdated,
    EmailConfigUpdated,
    DomainsUpdated,
    DocumentMigrationRequested,
    DocumentMigrationApproved,
    DocumentMigrationChecked,
    DocumentMigrationMoved,
    PersonalDataErasureRequested,
    PersonalDataErased,
    AnnotationAdded,
    AnnotationDeleted,
    AnnotationUpdated,
    StatusChanged,
    Assigned,
    PriorityChanged,
    SuggestionAccepted,
    SuggestionRejected,
    CommentAdded,
    CommentUpdated,
    CommentDeleted,
    ReactionAdded,
    ReactionDeleted,
    ExecutionEventOut,
    ReviewerDecisionRecorded,
    AgentDecisionRecorded,
]

EVENT_TYPES: tuple[type[Event], ...] = typing.get_args(AnyEvent)

_json_decoder = msgspec.json.Decoder(AnyEvent)
_json_encoder = msgspec.json.Encoder()


def encode_event(event: Event) -> bytes:
    return _json_encoder.encode(event)


def decode_event(payload: bytes) -> Event:
    """Decode any known event; raises msgspec.DecodeError for unknown types or bad payloads."""
    event: Event = _json_decoder.decode(payload)
    return event


__all__ = [
    "EVENT_TYPES",
    "AccessChanged",
    "ActivityConfigState",
    "ActivityConfigUpdated",
    "AdvancedWebhookConfigState",
    "AdvancedWebhookConfigUpdated",
    "AdvancedWebhookEndpointChanged",
    "AgentDecisionRecorded",
    "AnnotationAdded",
    "AnnotationDeleted",
    "AnnotationUpdated",
    "AnyEvent",
    "ApiKeyCreated",
    "ApiKeyUpdated",
    "Assigned",
    "CommentAdded",
    "CommentDeleted",
    "CommentEvent",
    "CommentUpdated",
    "CommentsEvent",
    "DocumentAdded",
    "DocumentDeleted",
    "DocumentMigrationApproved",
    "DocumentMigrationChecked",
    "DocumentMigrationMoved",
    "DocumentMigrationRequested",
    "DocumentUpdated",
    "DomainsUpdated",
    "EmailConfigState",
    "EmailConfigUpdated",
    "Event",
    "ExecutionEventOut",
    "ExecutionEventView",
    "FolderAdded",
    "FolderDeleted",
    "FolderUpdated",
    "KeyRevoked",
    "NotificationConfigState",
    "NotificationConfigUpdated",
    "NotificationServiceConfigState",
    "OrganizationAdded",
    "OrganizationDeleted",
    "OrganizationUpdated",
    "PersonalDataErased",
    "PersonalDataErasureRequested",
    "PriorityChanged",
    "ReactionAdded",
    "ReactionDeleted",
    "ReviewerDecisionRecorded",
    "StatusChanged",
    "SuggestionAccepted",
    "SuggestionRejected",
    "WebhookConfigState",
    "WebhookConfigUpdated",
    "WebhookServiceConfigState",
    "WorkflowDecision",
    "WorkspaceCreated",
    "decode_event",
    "deleted_documents",
    "encode_event",
    "epoch_ms",
    "new_event_id",
    "now_ms",
]
