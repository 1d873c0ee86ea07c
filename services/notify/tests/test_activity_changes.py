"""From comments events to activity records: action and feature types, targets, changes, entity
data, ids, and when a key's settings and the request's flag let an event be recorded."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
import pytest

from redline.notify.activities.changes import (
    activity_id,
    changes_of,
    record_of,
    should_record,
)
from redline.proto.events import (
    AnnotationAdded,
    AnnotationDeleted,
    AnnotationUpdated,
    Assigned,
    CommentAdded,
    CommentDeleted,
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
    ActivityConfigState,
    AdvancedWebhookConfigState,
    WebhookConfigState,
)
from redline.proto.rpc import ApiKeyConfig
from redline.testing.annotations import annotation_json, comment_json

ALICE = {"userId": "alice", "name": "Alice"}
OPEN = {"id": "open", "name": "Open", "type": "default"}
DONE = {"id": "done", "name": "Done", "type": "terminal"}
REACTION = {
    "annotationId": "r1",
    "type": "reaction",
    "icon": "heart",
    "commentAnnotationId": "a1",
    "lastUpdated": 1,
    "fromUsers": [{"lastUpdated": 1, "from": ALICE}],
}


def comment(comment_id: int, text: str) -> dict[str, Any]:
    return comment_json(comment_id, commentText=text, commentHtml=f"<p>{text}</p>")


def annotation(**extra: Any) -> dict[str, Any]:
    return annotation_json(comments=[comment(1, "Look"), comment(2, "Agreed")], **extra)


E = TypeVar("E", bound=CommentsEvent)


def make(kind: type[E], **fields: Any) -> E:
    """The event from its JSON, as the consumer reads it."""
    return msgspec.convert(fields, kind)


def base(**extra: Any) -> dict[str, Any]:
    return {
        "workspaceId": "ws1",
        "apiKey": "key1",
        "organizationId": "org1",
        "documentId": "d1",
        "annotationId": "a1",
        "annotation": annotation(),
        "actionUser": ALICE,
        **extra,
    }


def config(
    *,
    enabled: bool = True,
    workspace: str = "ws1",
    immutable: bool = False,
    switched: dict[str, int] | None = None,
    **triggers: bool,
) -> ApiKeyConfig:
    return ApiKeyConfig(
        workspaceId=workspace,
        apiKey="key1",
        webhook=WebhookConfigState(),
        advancedWebhook=AdvancedWebhookConfigState(),
        activity=ActivityConfigState(
            isEnabled=enabled,
            immutable=immutable,
            triggers={name.replace("__", "."): on for name, on in triggers.items()},
        ),
        switchedAt=switched or {},
    )


# action types, ids and the record ------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (make(AnnotationAdded, **base()), "comment_annotation.add"),
        (make(AnnotationDeleted, **base()), "comment_annotation.delete"),
        (make(StatusChanged, **base()), "comment_annotation.status_change"),
        (make(SuggestionRejected, **base()), "comment_annotation.suggestion_reject"),
        (make(CommentAdded, **base(), commentId=2, comment=comment(2, "Agreed")), "comment.add"),
        (
            make(
                ReactionAdded,
                **base(),
                commentId=2,
                comment=comment(2, "Agreed"),
                reaction=REACTION,
            ),
            "comment.reaction_add",
        ),
        (
            make(
                ReactionDeleted,
                **base(),
                commentId=2,
                comment=comment(2, "Agreed"),
                reaction=REACTION,
            ),
            "comment.reaction_delete",
        ),
    ],
)
def test_action_type_is_the_event_type_without_the_service(
    event: CommentsEvent, expected: str
) -> None:
    assert event.trigger == expected


def test_an_annotation_add_becomes_a_comment_record_of_the_annotation() -> None:
    event = make(AnnotationAdded, **base(), occurredAt=1_700_000_000_123)

    record = msgspec.to_builtins(record_of(event, immutable=True))

    assert record == {
        "id": "act_" + event.id,
        "featureType": "comment",
        "actionType": "comment_annotation.add",
        "actionUser": ALICE,
        "timestamp": 1_700_000_000_123,
        "metadata": {"apiKey": "key1", "organizationId": "org1", "documentId": "d1"},
        "targetEntityId": "a1",
        "targetSubEntityId": None,
        "changes": {},
        "entityData": annotation(),
        "immutable": True,
    }


def test_the_record_id_is_derived_from_the_event_id_so_redelivery_maps_to_it() -> None:
    event = make(AnnotationAdded, **base())
    again = msgspec.json.decode(msgspec.json.encode(event), type=AnnotationAdded)

    assert activity_id(event) == activity_id(again) == "act_" + event.id
    assert activity_id(make(AnnotationAdded, **base())) != activity_id(event)


def test_a_comment_event_targets_the_comment_and_carries_it() -> None:
    reply = comment(2, "Agreed")
    added = record_of(make(CommentAdded, **base(), commentId=2, comment=reply), immutable=False)
    deleted = record_of(make(CommentDeleted, **base(), commentId=2, comment=reply), immutable=False)

    for record in (added, deleted):
        assert record.featureType == "comment"
        assert record.targetEntityId == "a1"
        assert record.targetSubEntityId == "2"
        assert record.entityData == reply
        assert record.changes == {}


def test_a_reaction_event_is_a_reaction_record_of_the_reaction() -> None:
    reaction = REACTION
    for kind in (ReactionAdded, ReactionDeleted):
        event = make(kind, **base(), commentId=1, comment=comment(1, "Look"), reaction=reaction)

        record = record_of(event, immutable=False)

        assert record.featureType == "reaction"
        assert record.targetSubEntityId == "1"
        assert record.entityData == reaction
        assert record.changes == {}


# changes -------------------------------------------------------------------------------------


def test_status_assignee_and_priority_changes_name_their_field() -> None:
    bob, carol = {"userId": "bob"}, {"userId": "carol"}
    low, high = {"id": "p3", "name": "Low"}, {"id": "p1", "name": "High"}

    assert changes_of(make(StatusChanged, **base(), oldStatus=OPEN, newStatus=DONE)) == {
        "status": {"from": OPEN, "to": DONE}
    }
    assert changes_of(make(Assigned, **base(), previouslyAssigned=bob, assigned=carol)) == {
        "assignedTo": {"from": bob, "to": carol}
    }
    assert changes_of(make(Assigned, **base(), assigned=carol)) == {
        "assignedTo": {"from": None, "to": carol}
    }
    assert changes_of(make(PriorityChanged, **base(), oldPriority=low, newPriority=high)) == {
        "priority": {"from": low, "to": high}
    }


def test_suggestion_resolution_changes_the_suggestion_status() -> None:
    before = annotation(suggestion={"status": "pending", "text": "x"})

    assert changes_of(make(SuggestionAccepted, **base(before=before))) == {
        "suggestionStatus": {"from": "pending", "to": "accepted"}
    }
    assert changes_of(make(SuggestionRejected, **base())) == {
        "suggestionStatus": {"from": "pending", "to": "rejected"}
    }


def test_comment_update_records_the_text_and_html_that_changed() -> None:
    edited = {**comment(2, "Agreed!"), "status": "updated"}
    event = make(CommentUpdated, **base(before=annotation()), commentId=2, comment=edited)

    assert changes_of(event) == {
        "commentText": {"from": "Agreed", "to": "Agreed!"},
        "commentHtml": {"from": "<p>Agreed</p>", "to": "<p>Agreed!</p>"},
    }

    html_only = {**comment(2, "Agreed"), "commentHtml": "<b>Agreed</b>"}
    event = make(CommentUpdated, **base(before=annotation()), commentId=2, comment=html_only)
    assert changes_of(event) == {"commentHtml": {"from": "<p>Agreed</p>", "to": "<b>Agreed</b>"}}


def test_annotation_update_has_one_entry_per_changed_key() -> None:
    before = annotation(location={"id": "v1"}, context={"k": 1})
    after = annotation(location={"id": "v2"}, context={"k": 1}, targetElement={"elementId": "e"})
    event = make(
        AnnotationUpdated,
        **base(annotation=after, before=before),
        changes=["location", "targetElement", "updateUsers"],
    )

    assert changes_of(event) == {
        "location": {"from": {"id": "v1"}, "to": {"id": "v2"}},
        "targetElement": {"from": None, "to": {"elementId": "e"}},
    }


def test_adds_and_deletes_change_nothing() -> None:
    assert changes_of(make(AnnotationAdded, **base())) == {}
    assert changes_of(make(AnnotationDeleted, **base())) == {}
    assert changes_of(make(CommentAdded, **base(), commentId=1, comment=comment(2, "Agreed"))) == {}


# whether to record ---------------------------------------------------------------------------


def test_recorded_only_when_enabled_and_the_trigger_is_on() -> None:
    event = AnnotationAdded(**base(), triggerActivities=True)

    assert should_record(config(comment_annotation__add=True), event)
    assert not should_record(config(enabled=False, comment_annotation__add=True), event)
    assert not should_record(config(comment_annotation__add=False), event)
    assert not should_record(config(comment__add=True), event)


def test_the_switches_in_force_when_the_event_happened_decide() -> None:
    event = AnnotationAdded(**base(), occurredAt=1_000)
    on = {"comment_annotation__add": True}

    # Logs turned on after the event: they were off then.
    assert not should_record(config(switched={"activity.isEnabled": 1_001}, **on), event)
    assert should_record(config(switched={"activity.isEnabled": 1_000}, **on), event)
    # Turned off after it, or its trigger turned off after it: they were on.
    off_later = config(enabled=False, switched={"activity.isEnabled": 2_000}, **on)
    assert should_record(off_later, event)
    trigger_off_later = {"activity.triggers.comment_annotation.add": 2_000}
    assert should_record(config(switched=trigger_off_later, comment_annotation__add=False), event)


def test_the_request_flag_can_only_turn_recording_off() -> None:
    on = config(comment_annotation__add=True)
    off = config(comment_annotation__add=False)

    assert not should_record(on, AnnotationAdded(**base(), triggerActivities=False))
    assert should_record(on, AnnotationAdded(**base(), triggerActivities=None))
    assert not should_record(off, AnnotationAdded(**base(), triggerActivities=True))


def test_an_event_of_another_workspace_is_not_recorded() -> None:
    event = AnnotationAdded(**base(), triggerActivities=True)

    assert not should_record(config(workspace="ws2", comment_annotation__add=True), event)


def test_immutable_comes_from_the_setting_at_recording_time() -> None:
    event = StatusChanged(**base(), oldStatus=OPEN, newStatus=DONE)

    assert record_of(event, immutable=True).immutable is True
    assert record_of(event, immutable=False).immutable is False
