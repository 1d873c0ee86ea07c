"""Writes to a document identity answered for a moment ago ask no more; a deletion heard from
identity, or a refusal, is never remembered as a known document."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from redline.bus import Bus, rpc
from redline.envelope.errors import NotFound
from redline.proto.events import DocumentDeleted, OrganizationDeleted, encode_event
from redline.proto.rpc import EnsuredDocument, EnsureDocument
from redline.proto.subjects import RPC_DOCUMENTS_ENSURE
from redline.runtime.known_documents import KnownDocuments


class Identity:
    """Answers `rpc.identity.documents.ensure`, counting the questions; `missing` are not
    there."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.missing: set[str] = set()

    async def answer(self, request: EnsureDocument) -> EnsuredDocument:
        self.asked.append(request.documentId)
        if request.documentId in self.missing:
            raise NotFound("No such document.")
        return EnsuredDocument(
            organizationId=request.organizationId,
            documentId=request.documentId,
            organizationCreated=False,
            documentCreated=False,
        )


def ensure(document_id: str, api_key: str = "key1") -> EnsureDocument:
    return EnsureDocument(apiKey=api_key, organizationId="org1", documentId=document_id)


@pytest.fixture
async def bus(nats_url: str) -> AsyncIterator[Bus]:
    connected = await Bus.connect(nats_url, name="test-known-documents")
    yield connected
    await connected.close()


@pytest.fixture
async def identity(bus: Bus) -> AsyncIterator[Identity]:
    found = Identity()
    served = await rpc.serve(bus.nc, RPC_DOCUMENTS_ENSURE, EnsureDocument, found.answer)
    yield found
    await served.unsubscribe()


async def announce(bus: Bus, *events: DocumentDeleted | OrganizationDeleted) -> None:
    for event in events:
        await bus.nc.publish(event.subject, encode_event(event))
    await bus.nc.flush()
    await asyncio.sleep(0.1)


async def test_a_document_seen_a_moment_ago_is_not_asked_about_again(
    bus: Bus, identity: Identity
) -> None:
    documents = KnownDocuments(bus)
    await documents.start()
    try:
        for _ in range(3):
            await documents.ensure(ensure("d1"))
        await documents.ensure(ensure("d1", api_key="key2"))
        assert identity.asked == ["d1", "d1"]

        # Deleted in identity: the key's documents are asked about again; another key's not.
        await announce(
            bus,
            DocumentDeleted(
                workspaceId="ws", apiKey="key1", organizationId="org1", documentId="d1"
            ),
        )
        identity.missing.add("d1")
        with pytest.raises(NotFound):
            await documents.ensure(ensure("d1"))
        await documents.ensure(ensure("d1", api_key="key2"))
        assert identity.asked == ["d1", "d1", "d1"]
    finally:
        await documents.stop()


async def test_a_refusal_is_not_remembered(bus: Bus, identity: Identity) -> None:
    documents = KnownDocuments(bus)
    identity.missing.add("d2")
    for _ in range(2):
        with pytest.raises(NotFound):
            await documents.ensure(ensure("d2"))
    identity.missing.clear()
    await documents.ensure(ensure("d2"))
    assert identity.asked == ["d2", "d2", "d2"]


async def test_an_organization_deleted_forgets_its_keys_documents(
    bus: Bus, identity: Identity
) -> None:
    documents = KnownDocuments(bus)
    await documents.start()
    try:
        await documents.ensure(ensure("d3"))
        await announce(
            bus, OrganizationDeleted(workspaceId="ws", apiKey="key1", organizationId="org1")
        )
        await documents.ensure(ensure("d3"))
        assert identity.asked == ["d3", "d3"]
    finally:
        await documents.stop()
