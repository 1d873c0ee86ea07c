import typing

import msgspec
import pytest

from redline.proto import schema
from redline.proto.events import EVENT_TYPES, AnyEvent, KeyRevoked, decode_event, encode_event


def test_committed_json_schema_matches_the_event_types() -> None:
    assert schema.SCHEMA_PATH.read_text() == schema.render(), "run `make schemas`"


def test_every_event_type_has_a_unique_service_qualified_tag() -> None:
    tags = [t.__struct_config__.tag for t in EVENT_TYPES]
    assert len(tags) == len(set(tags))
    for tag in tags:
        assert isinstance(tag, str)
        service, _, event_type = tag.partition(".")
        assert service
        assert event_type


def test_event_subject_is_evt_plus_tag_and_round_trips() -> None:
    event = KeyRevoked(workspaceId="ws1", credential="apiKey", apiKey="k1")
    assert event.subject == "evt.identity.key.revoked"
    decoded = decode_event(encode_event(event))
    assert decoded == event
    assert len(event.id) == 32
    assert event.occurredAt > 0


def test_consumers_ignore_fields_they_do_not_know() -> None:
    payload = msgspec.json.encode(
        {
            "type": "identity.key.revoked",
            "id": "e1",
            "workspaceId": "ws1",
            "occurredAt": 1,
            "credential": "apiKey",
            "addedLater": {"x": 1},
        }
    )
    event = decode_event(payload)
    assert isinstance(event, KeyRevoked)


def test_unknown_event_type_is_a_decode_error() -> None:
    with pytest.raises(msgspec.DecodeError):
        decode_event(b'{"type": "nobody.nothing", "id": "e", "workspaceId": "w", "occurredAt": 1}')


def test_union_lists_every_event_type() -> None:
    assert set(typing.get_args(AnyEvent)) == set(EVENT_TYPES)
