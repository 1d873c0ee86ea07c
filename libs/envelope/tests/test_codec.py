from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import pytest

from redline.envelope import decode_request
from redline.envelope.codec import MAX_NESTING
from redline.envelope.errors import InvalidArgument


class User(msgspec.Struct, forbid_unknown_fields=True):
    userId: str
    admin: bool = False


class Invite(msgspec.Struct, forbid_unknown_fields=True):
    teamId: str
    users: Annotated[list[User], msgspec.Meta(max_length=3)] = []
    pageSize: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    email: Annotated[str, msgspec.Meta(pattern=r"^[^@\s]+@[^@\s]+$")] = "a@example.com"


class Everything(msgspec.Struct, forbid_unknown_fields=True):
    teamId: str = "t_default"


def issues_of(body: bytes, tp: Any = Invite) -> list[dict[str, Any]]:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(body, tp)
    assert caught.value.details is not None
    issues: list[dict[str, Any]] = caught.value.details["issues"]
    return issues


def test_valid_request_decodes_into_the_struct() -> None:
    body = b'{"data": {"teamId": "t1", "users": [{"userId": "u1", "admin": true}], "pageSize": 5}}'

    assert decode_request(body, Invite) == Invite(
        teamId="t1", users=[User("u1", admin=True)], pageSize=5
    )


def test_missing_field_names_its_path() -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(b'{"data": {}}', Invite)

    assert caught.value.code == "INVALID_ARGUMENT"
    assert caught.value.details is not None
    assert caught.value.details["issues"][0] == {
        "code": "missing_field",
        "path": "data.teamId",
        "message": "Object missing required field `teamId`",
    }
    assert "data.teamId" in caught.value.message


def test_unknown_field_inside_data_is_named() -> None:
    issue = issues_of(b'{"data": {"teamId": "t1", "colour": "red"}}')[0]

    assert (issue["code"], issue["path"]) == ("unknown_field", "data.colour")


def test_unknown_field_in_a_nested_object_is_named_with_its_path() -> None:
    issue = issues_of(b'{"data": {"teamId": "t1", "users": [{"userId": "u", "x": 1}]}}')[0]

    assert (issue["code"], issue["path"]) == ("unknown_field", "data.users[0].x")


def test_unknown_key_beside_data_is_rejected() -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(b'{"teamId": "t2", "data": {"teamId": "t1"}}', Invite)

    assert caught.value.details is not None
    issue = caught.value.details["issues"][0]
    assert (issue["code"], issue["path"]) == ("unknown_field", "teamId")
    assert "data" not in caught.value.message


def test_fields_sent_without_the_data_wrapper_are_told_to_wrap_them() -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(b'{"teamId": "t1", "pageSize": 5}', Invite)

    assert caught.value.message == (
        'teamId: Object contains unknown field `teamId`; requests wrap their fields in {"data": …}'
    )
    assert caught.value.details == {
        "issues": [
            {
                "code": "unknown_field",
                "path": "teamId",
                "message": "Object contains unknown field `teamId`",
            }
        ]
    }


def test_wrong_type_deep_in_a_list_names_the_element() -> None:
    body = b'{"data": {"teamId": "t", "users": [{"userId": "a"}, {"userId": "b"}, {"userId": 7}]}}'

    issue = issues_of(body)[0]

    assert issue == {
        "code": "invalid_type",
        "path": "data.users[2].userId",
        "message": "Expected `str`, got `int`",
    }


def test_list_longer_than_its_bound_is_invalid_length() -> None:
    users = [{"userId": f"u{i}"} for i in range(4)]
    body = msgspec.json.encode({"data": {"teamId": "t", "users": users}})

    issue = issues_of(body)[0]

    assert (issue["code"], issue["path"]) == ("invalid_length", "data.users")
    assert "3" in issue["message"]


@pytest.mark.parametrize("size", [0, 101, -5])
def test_number_outside_its_bounds_is_out_of_range(size: int) -> None:
    issue = issues_of(b'{"data": {"teamId": "t", "pageSize": %d}}' % size)[0]

    assert (issue["code"], issue["path"]) == ("out_of_range", "data.pageSize")


def test_number_on_its_bounds_is_accepted() -> None:
    assert decode_request(b'{"data": {"teamId": "t", "pageSize": 1}}', Invite).pageSize == 1
    assert decode_request(b'{"data": {"teamId": "t", "pageSize": 100}}', Invite).pageSize == 100


def test_string_not_matching_its_pattern_is_an_invalid_value_not_a_type_error() -> None:
    issue = issues_of(b'{"data": {"teamId": "t", "email": "not-an-address"}}')[0]

    assert (issue["code"], issue["path"]) == ("invalid_value", "data.email")


class Contact(msgspec.Struct, forbid_unknown_fields=True):
    # Email checks as services spell them, and a pattern that is no email check.
    email: Annotated[str, msgspec.Meta(pattern=r"^[^@\s]+@[^@\s]+\Z")] = "a@example.com"
    handle: Annotated[str, msgspec.Meta(pattern=r"^[a-z']+$")] = "ana"


@pytest.mark.parametrize(
    ("tp", "data"),
    [(Invite, b'{"teamId": "t", "email": "ana.example.com"}'), (Contact, b'{"email": "a@b c"}')],
)
def test_a_string_failing_an_email_pattern_is_not_an_email_address(tp: Any, data: bytes) -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(b'{"data": %s}' % data, tp)

    assert caught.value.message == "data.email: not an email address"
    assert caught.value.details is not None
    assert caught.value.details["issues"] == [
        {"code": "invalid_value", "path": "data.email", "message": "not an email address"}
    ]


def test_a_string_failing_another_pattern_names_the_pattern() -> None:
    issue = issues_of(b'{"data": {"handle": "Ana"}}', Contact)[0]

    assert issue == {
        "code": "invalid_value",
        "path": "data.handle",
        "message": 'Expected `str` matching regex "^[a-z\']+$"',
    }


@pytest.mark.parametrize("data", [b"5", b"[]", b'"text"', b"null", b"true"])
def test_data_that_is_not_an_object_is_invalid_argument(data: bytes) -> None:
    issue = issues_of(b'{"data": %s}' % data)[0]

    assert (issue["code"], issue["path"]) == ("invalid_type", "data")


@pytest.mark.parametrize("body", [b"[]", b"5", b'"data"', b"null"])
def test_body_that_is_not_an_object_is_invalid_argument(body: bytes) -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(body, Everything)

    assert caught.value.details is not None
    assert caught.value.details["issues"][0]["code"] == "invalid_type"
    assert not caught.value.message.startswith(":")


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b'{"data": {"teamId": "t"}',
        b'{"data": ',
        b"{'data': {}}",
        b"\xff\xfe{}",
        b"{} {}",
        # Not UTF-8, in a value, in a key, in a key beside `data`, and an encoded surrogate.
        b'{"data": {"teamId": "\xff"}}',
        b'{"data": {"\xc0\xaf": 1}}',
        b'{"\xff": 1}',
        b'{"data": {"teamId": "\xed\xa0\x80"}}',
    ],
)
def test_malformed_json_is_invalid_argument(body: bytes) -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_request(body, Everything)

    assert caught.value.message == "Request body is not valid JSON."
    assert caught.value.details is not None
    assert caught.value.details["issues"][0]["code"] == "malformed_json"


@pytest.mark.parametrize("body", [b"", b"   ", b"\n", b"{}"])
def test_empty_body_means_empty_data(body: bytes) -> None:
    assert decode_request(body, Everything) == Everything()


def test_empty_body_still_requires_required_fields() -> None:
    issue = issues_of(b"")[0]

    assert (issue["code"], issue["path"]) == ("missing_field", "data.teamId")


def test_data_may_be_decoded_into_a_plain_type() -> None:
    assert decode_request(b'{"data": {"a": 1}}', dict[str, int]) == {"a": 1}


class Anything(msgspec.Struct, forbid_unknown_fields=True):
    value: Any = None


def nested(depth: int, leaf: bytes = b"1") -> bytes:
    """`{"data": {"value": ...}}` with arrays nested so that `data` is `depth` levels deep."""
    inner = depth - 1
    return b'{"data": {"value": ' + b"[" * inner + leaf + b"]" * inner + b"}}"


def test_data_nested_as_deep_as_the_bound_is_accepted() -> None:
    decoded = decode_request(nested(MAX_NESTING), Anything)

    depth, value = 1, decoded.value
    while isinstance(value, list):
        depth, value = depth + 1, value[0]
    assert (depth, value) == (MAX_NESTING, 1)


@pytest.mark.parametrize(
    "body",
    [
        nested(MAX_NESTING + 1),
        # Deep enough that the recursion check of later steps (the U+0000 walk, encoding for
        # the database) would fail where the decoder had not.
        nested(975, b'"\\u0000"'),
        nested(973),
        # Past what the decoder itself follows.
        nested(100_000),
    ],
)
def test_data_nested_past_the_bound_is_too_deep(body: bytes) -> None:
    issue = issues_of(body, Anything)[0]

    assert (issue["code"], issue["path"]) == ("too_deep", "")


def test_brackets_in_strings_do_not_count_as_nesting() -> None:
    text = '[{\\"' * 200  # brackets, and escaped quotes that end no string
    body = b'{"data": {"value": ["%s"]}}' % text.encode()

    assert decode_request(body, Anything) == Anything(value=['[{"' * 200])


class Pick(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["a", "b"]


def test_a_refused_value_is_not_echoed_at_length() -> None:
    body = b'{"data": {"kind": "%s"}}' % (b"x" * 5000)

    issue = issues_of(body, Pick)[0]

    assert issue["path"] == "data.kind"
    assert issue["message"].startswith("Invalid enum value 'xxx")
    assert len(issue["message"]) < 200
