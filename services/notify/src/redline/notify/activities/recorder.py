"""The `notify-activity` consumer's handler: comments events in, activity records out.

Each event is checked against its API key's current activity settings (asked of identity,
cached briefly). A key that no longer exists records nothing; any other failure to get the
settings raises, and the consumer redelivers the event later. Recording is an insert that does
nothing when the event's record exists, so redelivery never duplicates.
"""

from __future__ import annotations

from typing import Protocol

from redline.envelope.errors import NotFound, Unauthenticated
from redline.notify.activities import changes, storage
from redline.pg import Pool
from redline.proto.events import CommentsEvent, Event
from redline.proto.rpc import ApiKeyConfig


class KeyConfigSource(Protocol):
    async def get(self, api_key: str) -> ApiKeyConfig: ...


class ActivityRecorder:
    def __init__(self, pool: Pool, configs: KeyConfigSource) -> None:
        self._pool = pool
        self._configs = configs

    async def handle(self, event: Event) -> None:
        if not isinstance(event, CommentsEvent):
            return
        try:
            config = await self._configs.get(event.apiKey)
        except (NotFound, Unauthenticated):
            return  # the key is gone: nothing to record for it
        if not changes.should_record(config, event):
            return
        record = changes.record_of(event, immutable=config.activity.immutable)
        await storage.insert(self._pool, event.workspaceId, [record])
