"""The `notify-activity` consumer's handler: comments events in, activity records out.

Each event is checked against its API key's current activity settings (asked of identity,
cached briefly). A key that no longer exists records nothing; any other failure to get the
settings raises, and the consumer redelivers the event later. Recording is an insert that does
nothing when the event's record exists, so redelivery never duplicates.
"""

from __future__ import annotations

from redline.notify.activities import changes, storage
from redline.notify.activities.models import Activity
from redline.notify.key_config import KeyConfigSource, config_of_event
from redline.pg import Pool
from redline.proto.events import CommentsEvent, Event


class ActivityRecorder:
    def __init__(self, pool: Pool, configs: KeyConfigSource) -> None:
        self._pool = pool
        self._configs = configs

    async def handle(self, events: list[Event]) -> None:
        """Record a batch of events, one insert per workspace in it."""
        by_workspace: dict[str, list[Activity]] = {}
        for event in events:
            record = await self._record_of(event)
            if record is not None:
                by_workspace.setdefault(event.workspaceId, []).append(record)
        for workspace_id, records in by_workspace.items():
            await storage.insert(self._pool, workspace_id, records)

    async def _record_of(self, event: Event) -> Activity | None:
        if not isinstance(event, CommentsEvent):
            return None
        config = await config_of_event(self._configs, event)
        if config is None or not changes.should_record(config, event):
            return None
        return changes.record_of(event, immutable=config.activity.immutable)
