"""A comment changes → the key's HTTPS receiver gets the webhook, once, as configured."""

from __future__ import annotations

import base64
import time
from typing import Any

import msgspec
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import padding as asymmetric_padding
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import Received, WebhookReceiver
from tests.e2e.webhook_flows import (
    RECEIVER_TOKEN,
    add_annotations,
    comment,
    enable_webhooks,
    notified,
    ok,
)

ORG_DOC = {"organizationId": "acme", "documentId": "d1"}


async def make_every_comment_event(api: ApiClient, ws: Workspace) -> None:
    """One of each event type of the comments service, in this order."""
    (a1,) = await add_annotations(api, ws, notified(comment(), annotationId="a1"))
    (reply,) = await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {**ORG_DOC, "annotationId": a1, "commentData": [comment("bob", "Reply")]},
    )
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/update",
        {**ORG_DOC, "annotationId": a1, "commentId": reply, "commentText": "Reply, edited"},
    )
    reaction = {**ORG_DOC, "annotationId": a1, "commentId": reply, "icon": "heart"}
    await ok(api, ws, "/v2/commentannotations/reactions/add", {**reaction, "user": {"userId": "c"}})
    await ok(
        api, ws, "/v2/commentannotations/reactions/delete", {**reaction, "user": {"userId": "c"}}
    )
    await ok(
        api,
        ws,
        "/v2/commentannotations/update",
        {
            **ORG_DOC,
            "annotationIds": [a1],
            "updatedData": [
                {
                    "status": {"id": "done", "name": "Done", "type": "terminal"},
                    "assignedTo": {"userId": "bob", "name": "Bob"},
                    "priority": {"id": "p1", "name": "High"},
                }
            ],
        },
    )
    await ok(
        api,
        ws,
        "/v1/commentannotations/comments/delete",
        {**ORG_DOC, "annotationId": a1, "commentIds": [reply]},
    )
    agent = {
        "agentSource": "svc",
        "agentId": "lint",
        "reason": {"title": "Typo", "description": "Misspelt word", "severity": "low"},
    }
    await add_annotations(
        api,
        ws,
        {"annotationId": "s1", "commentData": [comment(agent=agent)]},
        {"annotationId": "s2", "commentData": [comment(agent=agent)]},
    )
    for annotation_id, action in (("s1", "accept"), ("s2", "reject")):
        await ok(
            api,
            ws,
            "/v2/commentannotations/suggestions/resolve",
            {**ORG_DOC, "annotationId": annotation_id, "action": action, "user": {"userId": "c"}},
        )
    await ok(api, ws, "/v2/commentannotations/delete", {**ORG_DOC, "annotationIds": [a1]})


EXPECTED_RAW = [
    ("comment_annotation.add", "newlyAdded"),
    ("comment.add", "added"),
    ("comment.update", "updated"),
    ("comment.reaction_add", "reactionAdded"),
    ("comment.reaction_delete", "reactionDeleted"),
    ("comment_annotation.status_change", "statusChanged"),
    ("comment_annotation.assign", "assigned"),
    ("comment_annotation.priority_change", "priorityChanged"),
    ("comment.delete", "deleted"),
    ("comment_annotation.suggestion_accept", "accepted"),
    ("comment_annotation.suggestion_reject", "rejected"),
    ("comment_annotation.delete", "deleted"),
]


async def test_every_comment_event_reaches_the_receiver_once_with_its_headers(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("hooks@example.com")
    await enable_webhooks(api, ws, receiver)
    started = time.time()

    await make_every_comment_event(api, ws)

    await receiver.wait_for(len(EXPECTED_RAW), path="/raw")
    await receiver.wait_for(2 * len(EXPECTED_RAW))
    raw = receiver.delivered("/raw")
    # One document, one receiver URL, a healthy receiver: the order of the changes.
    assert [(r.json()["eventType"], r.json()["actionType"]) for r in raw] == EXPECTED_RAW
    assert set(receiver.counts().values()) == {1}
    for request in receiver.requests:
        assert request.headers["Authorization"] == f"Basic {RECEIVER_TOKEN}"
        assert request.headers["Content-Type"] == "application/json"
        assert request.json()["webhookId"] == request.headers["webhook-id"]
        assert started - 5 <= int(request.headers["webhook-timestamp"]) <= time.time() + 5
        assert "webhook-signature" not in request.headers

    first = raw[0].json()
    assert first["notificationSource"] == "comment"
    assert first["platform"] == "api"
    assert first["metadata"] == {"apiKey": ws.api_key, **ORG_DOC}
    assert first["actionUser"] == {"userId": "alice", "name": "Alice"}
    assert first["commentAnnotation"]["annotationId"] == "a1"
    assert first["commentAnnotation"]["comments"][0]["commentText"] == "Hello"
    by_type = {r.json()["eventType"]: r.json() for r in raw}
    assert by_type["comment.update"]["targetComment"]["commentText"] == "Reply, edited"
    assert by_type["comment_annotation.status_change"]["newStatus"]["id"] == "done"
    assert by_type["comment_annotation.assign"]["assigned"]["userId"] == "bob"
    assert by_type["comment_annotation.priority_change"]["newPriority"]["id"] == "p1"
    assert by_type["comment.reaction_add"]["reaction"]["icon"] == "heart"

    processed = {r.json()["eventType"]: r.json() for r in receiver.delivered("/processed")}
    added = processed["comment.add"]
    assert added["from"] == {"userId": "bob", "name": "Bob"}
    assert added["commentText"] == "Reply"
    assert added["documentId"] == "d1"
    assert added["targetAnnotationId"] == "a1"
    assert isinstance(added["targetCommentId"], int)
    assert added["targetCommentId"] != 1
    assert added["toContactsTagged"] == []


async def test_a_request_without_the_flag_or_a_trigger_turned_off_sends_nothing(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("quiet@example.com")
    await enable_webhooks(api, ws, receiver, processed=False, triggers={"comment.add": False})

    await add_annotations(api, ws, {"annotationId": "quiet", "commentData": [comment()]})
    await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {**ORG_DOC, "annotationId": "quiet", "commentData": [comment("bob")]},
    )
    await add_annotations(api, ws, notified(annotationId="loud"))

    # Deliveries of one document reach a healthy receiver in order: had either earlier change
    # been sent, it would have arrived first.
    await receiver.wait_for(1)
    assert [r.json()["commentAnnotation"]["annotationId"] for r in receiver.requests] == ["loud"]


async def test_an_encrypted_delivery_decrypts_to_the_raw_payload(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    ws = await api.create_workspace("sealed@example.com")
    await enable_webhooks(
        api,
        ws,
        receiver,
        processed=False,
        encryptData=True,
        encodeData=True,  # encryption wins when both are on
        publicKey=base64.b64encode(der).decode(),
    )
    plain = await api.create_workspace("plain@example.com")
    await enable_webhooks(api, plain, receiver, processed=False)

    await add_annotations(api, ws, notified(annotationId="a1"))
    await add_annotations(api, plain, notified(annotationId="a1"))

    await receiver.wait_for(2)
    sealed, clear = _by_key(receiver.requests, ws, plain)
    envelope = sealed.json()
    assert set(envelope) == {"encryptedData", "encryptedKey", "iv"}
    payload = msgspec.json.decode(_decrypt(private_key, envelope))
    assert payload["webhookId"] == sealed.headers["webhook-id"]
    # The same change in a workspace without encryption: equal but for ids and the key.
    expected = clear.json()
    for body, key in ((payload, ws.api_key), (expected, plain.api_key)):
        assert body.pop("webhookId")
        assert body["metadata"].pop("apiKey") == key
        _drop_volatile(body["commentAnnotation"])
    assert payload == expected


async def test_an_encoded_delivery_is_the_payload_in_base64(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("encoded@example.com")
    await enable_webhooks(api, ws, receiver, processed=False, encodeData=True)

    await add_annotations(api, ws, notified(annotationId="a1"))

    await receiver.wait_for(1)
    (request,) = receiver.requests
    body = request.json()
    assert set(body) == {"encodedPayload"}
    payload = msgspec.json.decode(base64.b64decode(body["encodedPayload"]))
    assert payload["webhookId"] == request.headers["webhook-id"]
    assert payload["eventType"] == "comment_annotation.add"
    assert payload["commentAnnotation"]["comments"][0]["commentText"] == "Hello"


async def test_data_protection_sends_ids_and_metadata_without_comment_bodies(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("protected@example.com")
    await enable_webhooks(api, ws, receiver, enableDataProtection=True)

    await add_annotations(api, ws, notified(comment(commentHtml="<p>Hello</p>"), annotationId="a1"))

    await receiver.wait_for(2)
    raw = receiver.delivered("/raw")[0].json()
    processed = receiver.delivered("/processed")[0].json()
    root = raw["commentAnnotation"]["comments"][0]
    assert "commentText" not in root
    assert "commentHtml" not in root
    assert isinstance(root["commentId"], int)
    assert raw["commentAnnotation"]["annotationId"] == "a1"
    assert "commentText" not in processed
    assert processed["targetAnnotationId"] == "a1"
    assert b"Hello" not in receiver.requests[0].body + receiver.requests[1].body


def _by_key(
    requests: list[Received], first: Workspace, second: Workspace
) -> tuple[Received, Received]:
    def key_of(request: Received) -> str | None:
        body = request.json()
        return body["metadata"]["apiKey"] if "metadata" in body else None

    clear = next(r for r in requests if key_of(r) == second.api_key)
    sealed = next(r for r in requests if key_of(r) is None)
    assert first.api_key not in sealed.body.decode()
    return sealed, clear


def _decrypt(private_key: rsa.RSAPrivateKey, envelope: dict[str, Any]) -> bytes:
    key = private_key.decrypt(
        base64.b64decode(envelope["encryptedKey"]),
        asymmetric_padding.OAEP(
            mgf=asymmetric_padding.MGF1(algorithm=hashes.SHA256()),
            algorithm=hashes.SHA256(),
            label=None,
        ),
    )
    decryptor = Cipher(algorithms.AES(key), modes.CBC(base64.b64decode(envelope["iv"]))).decryptor()
    padded = decryptor.update(base64.b64decode(envelope["encryptedData"])) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def _drop_volatile(annotation: dict[str, Any]) -> None:
    """What differs between the same annotation made in two workspaces: times, generated comment
    ids and the API key."""
    for key in ("createdAt", "lastUpdated"):
        annotation.pop(key, None)
    annotation["metadata"].pop("apiKey")
    for item in annotation["comments"]:
        for key in ("createdAt", "lastUpdated", "commentId"):
            item.pop(key, None)
