"""Documents identity has said exist, remembered, so that a write to a document seen a moment ago
does not ask again.

Every write that attaches data to a document (a comment, a notification) first makes sure the
organization and the document exist, creating them when the request asks
(`rpc.identity.documents.ensure`). Once identity has answered for a document, the answer stands
until the document could have gone: every process hears identity's events on core NATS, and a
deletion of an organization, a folder or a document, a document migration, or a revoked key
drops what it remembers of that API key. The time bound covers an announcement missed.
"""

from __future__ import annotations

import logging

from aiohttp import web

from redline.bus import Bus, rpc
from redline.proto.events import (
    DocumentDeleted,
    DocumentMigrationApproved,
    FolderDeleted,
    KeyRevoked,
    OrganizationDeleted,
)
from redline.proto.rpc import EnsuredDocument, EnsureDocument
from redline.proto.subjects import DOCUMENTS_GONE, RPC_DOCUMENTS_ENSURE
from redline.runtime.announcements import DroppedOnAnnouncements
from redline.runtime.cache import TtlCache

log = logging.getLogger("redline.runtime.known_documents")

# Short: while NATS is down no deletion is heard, and a deleted document would take writes this
# long.
DEFAULT_TTL_S = 10.0
# What may make a known document unknown: the key's entries are dropped.
_GONE = (OrganizationDeleted, FolderDeleted, DocumentDeleted, DocumentMigrationApproved, KeyRevoked)

_Document = tuple[str, str, str]  # API key, organization, document


class KnownDocuments:
    def __init__(
        self,
        bus: Bus,
        ttl_s: float = DEFAULT_TTL_S,
        timeout_s: float = 2.0,
        max_entries: int = 100_000,
    ) -> None:
        self._bus = bus
        self._timeout_s = timeout_s
        self._known: TtlCache[_Document, bool] = TtlCache(ttl_s, max_entries)
        self._forgetting = DroppedOnAnnouncements(
            bus, DOCUMENTS_GONE, _GONE, self._known, lambda document: document[0]
        )

    async def start(self) -> None:
        await self._forgetting.start()

    async def stop(self) -> None:
        await self._forgetting.stop()

    async def ensure(self, request: EnsureDocument) -> None:
        """The organization and the document exist (made as the request asks); raises identity's
        answer (NOT_FOUND for one missing and not to be made, UNAVAILABLE, …) otherwise."""
        document = (request.apiKey, request.organizationId, request.documentId)
        if self._known.get(document):
            return
        epoch = self._known.epoch
        await rpc.call(
            self._bus.nc, RPC_DOCUMENTS_ENSURE, request, EnsuredDocument, timeout_s=self._timeout_s
        )
        # Not kept when a deletion was heard meanwhile: the answer may predate it.
        self._known.put(document, True, since=epoch)


KNOWN_DOCUMENTS = web.AppKey("redline_known_documents", KnownDocuments)
