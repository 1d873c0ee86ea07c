"""NATS names shared by every service: the event stream, durable consumers and RPC subjects."""

from __future__ import annotations

STREAM = "EVENTS"
STREAM_SUBJECTS = ["evt.>"]

# Durable consumers on the EVENTS stream.
CONSUMER_NOTIFY_WEBHOOKS = "notify-webhooks"
CONSUMER_NOTIFY_ACTIVITY = "notify-activity"
CONSUMER_NOTIFY_NOTIFICATIONS = "notify-notifications"
CONSUMER_MEMORY_JUDGMENTS = "memory-judgments"

# Every event of the workflow service, and the visible execution events bound for receivers.
WORKFLOW_EVENTS = "evt.workflow.>"
WORKFLOW_EXECUTION_EVENTS = "evt.workflow.execution.event"
WORKFLOW_DECISIONS = [
    "evt.workflow.reviewer_decision.recorded",
    "evt.workflow.agent_decision.recorded",
]
CONSUMER_NOTIFY_WORKFLOW = "notify-workflow-webhooks"

# Every event of the comments service (what notify turns into webhooks and activity records).
COMMENT_EVENTS = "evt.comments.>"

# Events that every process listens to on plain NATS (JetStream also fans them out to core
# subscribers), to drop cached credentials the moment they are revoked.
KEY_REVOKED = "evt.identity.key.revoked"
IDENTITY_EVENTS = "evt.identity.>"
# Per-API-key settings changed (webhooks, activity logs, domains): cached copies are dropped.
CONFIG_EVENTS = "evt.identity.config.>"
# A user's access, or the disable state of an organization or document, changed somewhere in an
# API key: cached access decisions and disable states of that key are dropped.
ACCESS_CHANGED = "evt.identity.access.changed"
# What may make a document that existed a moment ago gone: cached knowledge of the key's
# documents is dropped.
DOCUMENTS_GONE = (
    "evt.identity.organization.deleted",
    "evt.identity.folder.deleted",
    "evt.identity.document.deleted",
    "evt.identity.document_migration.approved",
    KEY_REVOKED,
)

# Request/reply (core NATS, no stream).
RPC_AUTH_VERIFY = "rpc.identity.auth.verify"
RPC_ACCESS_CHECK = "rpc.identity.access.check"
RPC_DOCUMENTS_ENSURE = "rpc.identity.documents.ensure"
RPC_CONFIG_GET = "rpc.identity.config.get"
RPC_DOCUMENTS_IN_FOLDER = "rpc.identity.documents.list_in_folder"
RPC_USER_GROUP_MEMBERS = "rpc.identity.usergroups.members"
RPC_USER_CONTACTS = "rpc.identity.users.contacts"
RPC_DISABLE_STATE = "rpc.identity.disablestate.get"
RPC_WORKFLOW_RECEIVER = "rpc.workflow.receivers.get"

# What identity deleted: services drop the data of the documents that went with it.
DIRECTORY_DELETIONS = [
    "evt.identity.document.deleted",
    "evt.identity.folder.deleted",
    "evt.identity.organization.deleted",
]

# Document migration: what participants hear, and the replies identity collects.
DOCUMENT_MIGRATION_PHASES = [
    "evt.identity.document_migration.requested",
    "evt.identity.document_migration.approved",
]
DOCUMENT_MIGRATION_REPLIES = ["evt.*.document_migration.checked", "evt.*.document_migration.moved"]

# Personal data erasure: what participants hear, and the reports identity collects.
PERSONAL_DATA_ERASURE_REQUESTS = ["evt.identity.personal_data.erasure_requested"]
PERSONAL_DATA_ERASURE_REPORTS = ["evt.*.personal_data.erased"]


def personal_data_export_subject(service: str) -> str:
    """`rpc.<service>.personal_data.export`: what one service holds about one user."""
    return f"rpc.{service}.personal_data.export"
