"""One request id follows one change everywhere: from the caller's `X-Request-ID` to the events the
change wrote, the consumers that handled them, their log lines and the events they wrote in turn."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import nats
import pytest
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from redline.proto.request_context import REQUEST_ID_HEADER
from redline.proto.subjects import STREAM
from redline.runtime.logs import RequestContextFilter
from redline.testing.api import ApiClient
from redline.testing.receiver import WebhookReceiver
from tests.api.workflow_support import Workflow, definition, edge, human, mock_agent
from tests.e2e.webhook_flows import add_annotations, comment

# Each test's system shares no servers with another's, so fixed ids identify its requests.
COMMENT_REQUEST = "e2e-comment-1"
DELETE_REQUEST = "e2e-delete-1"


class Published(msgspec.Struct, frozen=True):
    subject: str
    request_id: str | None
    payload: dict[str, Any]


@pytest.fixture
async def stream(nats_url: str) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(nats_url)
    try:
        yield nc.jetstream()
    finally:
        await nc.drain()


async def published(js: JetStreamContext) -> list[Published]:
    """Every event on the EVENTS stream: its subject, its request id header and its body."""
    info = await js.stream_info(STREAM)
    found = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        with contextlib.suppress(NotFoundError):
            msg = await js.get_msg(STREAM, seq)
            assert msg.subject is not None
            assert msg.data is not None
            found.append(
                Published(
                    msg.subject,
                    (msg.headers or {}).get(REQUEST_ID_HEADER),
                    msgspec.json.decode(msg.data),
                )
            )
    return found


async def published_for(
    js: JetStreamContext, request_id: str, *, at_least: set[str], timeout_s: float = 15.0
) -> list[Published]:
    """The events carrying `request_id`, once those of the subjects `at_least` are among them."""
    deadline = time.monotonic() + timeout_s
    while True:
        carrying = [p for p in await published(js) if p.request_id == request_id]
        if at_least <= {p.subject for p in carrying}:
            return carrying
        assert time.monotonic() < deadline, (at_least, await published(js))
        await asyncio.sleep(0.05)


# The consumers that follow the directory's deletions log here, each line naming its consumer.
DELETIONS_LOG = "redline.runtime.directory_deletions"


async def logged(
    caplog: pytest.LogCaptureFixture, logger: str, start: str, timeout_s: float = 15.0
) -> logging.LogRecord:
    """The first record of `logger` whose message starts with `start`, once there is one."""
    deadline = time.monotonic() + timeout_s
    while True:
        records = [
            r for r in caplog.records if r.name == logger and r.getMessage().startswith(start)
        ]
        if records:
            return records[0]
        assert time.monotonic() < deadline, f"{logger} logged nothing starting {start!r}"
        await asyncio.sleep(0.05)


async def test_a_comments_request_id_goes_with_its_events_onto_the_stream(
    api: ApiClient, stream: JetStreamContext
) -> None:
    ws = await api.create_workspace("ids@example.com")

    added = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "acme",
            "documentId": "d1",
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [{"commentData": [comment(text="Looks good")]}],
        },
        headers={**ws.key_headers, "x-request-id": COMMENT_REQUEST},
    )

    assert added.status == 200, added.body
    assert added.headers["X-Request-ID"] == COMMENT_REQUEST
    # The organization and the document the comment created (identity, asked over RPC) and the
    # comment's own event: all written for this one request. Each service's outbox is relayed
    # on its own, so identity's may reach the stream after the comment's.
    expected = {
        "evt.identity.organization.added",
        "evt.identity.document.added",
        "evt.comments.comment_annotation.add",
    }
    carrying = await published_for(stream, COMMENT_REQUEST, at_least=expected)
    assert {p.subject for p in carrying} == expected
    # The workspace was created by an earlier request, under an id of its own.
    [created] = [p for p in await published(stream) if p.subject.endswith("workspace.created")]
    assert created.request_id is not None
    assert created.request_id != COMMENT_REQUEST


async def test_a_deletes_request_id_reaches_the_consumers_logs_and_the_events_they_write(
    api: ApiClient,
    stream: JetStreamContext,
    caplog: pytest.LogCaptureFixture,
    receiver: WebhookReceiver,
) -> None:
    flow = Workflow(api, await api.create_workspace("chain@example.com"))
    ws = flow.workspace
    await flow.create(
        definition(
            "doc-review",
            [human("review", ("alice", True)), mock_agent("rework")],
            [edge("review", "rework", "reject")],
        )
    )
    await add_annotations(api, ws, {"commentData": [comment()]}, document_id="draft")
    doomed = await flow.dispatch(
        "doc-review",
        organizationId="acme",
        documentId="draft",
        webhookUrl=receiver.url("/executions"),
        webhookSecret="a receiver secret",
    )
    await flow.waiting_step(doomed, "review")
    caplog.handler.addFilter(RequestContextFilter())
    caplog.set_level(logging.INFO, logger=DELETIONS_LOG)

    deleted = await api.post(
        "/v2/organizations/documents/delete",
        {"organizationId": "acme", "documentIds": ["draft"]},
        headers={**ws.key_headers, "x-request-id": DELETE_REQUEST},
    )

    assert deleted.status == 200, deleted.body
    # The comments consumer deleted the document's annotations, and said so under the id.
    comments_line = await logged(caplog, DELETIONS_LOG, "comments-directory: 1 annotations deleted")
    assert getattr(comments_line, "requestId", None) == DELETE_REQUEST
    assert getattr(comments_line, "workspaceId", None) == ws.id
    # The workflow consumer cancelled the execution, under the same id ...
    workflow_line = await logged(
        caplog, DELETIONS_LOG, "workflow-directory: 1 executions cancelled"
    )
    assert getattr(workflow_line, "requestId", None) == DELETE_REQUEST
    # ... and the event it wrote for the cancellation, bound for the execution's receiver, went
    # out with it too.
    carrying = await published_for(
        stream,
        DELETE_REQUEST,
        at_least={"evt.identity.document.deleted", "evt.workflow.execution.event"},
    )
    cancellations = [p.payload for p in carrying if p.subject == "evt.workflow.execution.event"]
    # Written in one transaction with the cancellation, so all there once one is.
    assert {c["executionId"] for c in cancellations} == {doomed}
    assert [c["event"]["type"] for c in cancellations] == ["step.cancelled", "execution.cancelled"]
    assert (await flow.ended(doomed))["status"] == "cancelled"
