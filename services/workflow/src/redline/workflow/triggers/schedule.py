"""Scheduled triggers: a loop in every replica that, every few seconds, reads the enabled
schedules and dispatches each one's most recent slot while it is fresh.

A slot fires at most once: its dispatch carries the idempotency key `trig:…:<slot ms>`, and the
execution table's unique index on the key lets one of several replicas racing for the slot make
the execution (the others get it back as a replay). Missed slots are not replayed: only a slot
at most `window` old fires, so after downtime longer than the window the schedule simply
continues with its next slot. The window is a few loop intervals wide so that one slow or
skipped tick loses nothing.

Slots are computed in the trigger's IANA zone, so a daily 02:00 stays 02:00 local across DST.
On the spring-forward day a wall time that does not exist fires when the clock jumps; on the
fall-back day a fixed-time schedule (neither minute nor hour a `*` pattern) fires once, at the
first of the two identical wall times, while `*/15 * * * *` keeps firing every quarter hour of
real time (as cron itself does).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

import msgspec
from croniter import CroniterBadDateError, croniter

from redline.envelope.errors import ApiError
from redline.pg import Pool
from redline.proto.events import now_ms
from redline.workflow.definitions.triggers import Schedule
from redline.workflow.executions.models import Dispatched
from redline.workflow.triggers import storage
from redline.workflow.triggers.idempotency import trigger_key
from redline.workflow.triggers.service import TriggerService
from redline.workflow.triggers.storage import ScheduleRow

log = logging.getLogger("redline.workflow.schedules")

MINUTE_MS = 60_000


def latest_slot(cron: str, timezone: str, now: int) -> int | None:
    """The most recent instant at or before `now` (ms) that the cron names in the zone, or None
    when that instant is the second pass of a fall-back wall time a fixed-time schedule does not
    fire at again."""
    zone = ZoneInfo(timezone)
    # Slots fall on whole minutes and croniter's previous slot is strictly before its start:
    # starting at the end of now's minute, it is the latest slot at or before now.
    minute_end = (now // MINUTE_MS + 1) * MINUTE_MS
    start = datetime.fromtimestamp(minute_end / 1000, zone)
    try:
        slot = croniter(cron, start).get_prev(datetime)
    except CroniterBadDateError:
        # A valid expression naming no date in reach (the 30th of February): never due.
        return None
    slot_ms = int(slot.timestamp()) * 1000
    if _is_fixed_time(cron) and datetime.fromtimestamp(slot_ms / 1000, zone).fold == 1:
        return None
    return slot_ms


def due_slot(cron: str, timezone: str, now: int, window_ms: int) -> int | None:
    """The slot to fire at `now`: the latest one, when it is at most `window_ms` old."""
    slot = latest_slot(cron, timezone, now)
    if slot is None or now - slot > window_ms:
        return None
    return slot


def _is_fixed_time(cron: str) -> bool:
    minute, hour = cron.split()[:2]
    return not (minute.startswith("*") or hour.startswith("*"))


class ScheduleRunner:
    def __init__(
        self,
        pool: Pool,
        triggers: TriggerService,
        *,
        interval_s: float,
        window_s: float,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self._pool = pool
        self._triggers = triggers
        self._interval_s = interval_s
        self._window_ms = int(window_s * 1000)
        self._clock = clock
        # Slots this replica has seen fired, by (API key, idempotency key), with their time:
        # later ticks within the window skip them without asking the database again.
        self._fired: dict[tuple[str, str], int] = {}

    async def run(self) -> None:
        while True:
            try:
                await self.tick(self._clock())
            except Exception:
                log.exception("schedule tick failed; trying again next tick")
            await asyncio.sleep(self._interval_s)

    async def tick(self, now: int) -> list[Dispatched]:
        """Fire every enabled schedule's due slot at `now`; the dispatches this call made
        (a replay of a slot another replica fired first among them)."""
        self._fired = {k: slot for k, slot in self._fired.items() if now - slot <= self._window_ms}
        async with self._pool.acquire() as conn:
            rows = await storage.enabled_schedules(conn)
        dispatched: list[Dispatched] = []
        for row in rows:
            try:
                fired = await self._fire(row, now)
            except ApiError as exc:
                log.warning(
                    "schedule %s of definition %s not fired: %s",
                    row.trigger_id,
                    row.definition_id,
                    exc.message,
                )
            except Exception:
                log.exception(
                    "schedule %s of definition %s failed", row.trigger_id, row.definition_id
                )
            else:
                if fired is not None:
                    dispatched.append(fired)
        return dispatched

    async def _fire(self, row: ScheduleRow, now: int) -> Dispatched | None:
        schedule = msgspec.convert(row.schedule, Schedule)
        slot = due_slot(schedule.cron, schedule.timezone, now, self._window_ms)
        if slot is None:
            return None
        key = trigger_key(row.trigger_id, row.definition_id, str(slot))
        seen = (row.api_key, key)
        if seen in self._fired:
            return None
        async with self._pool.acquire() as conn:
            # Not the guard (the unique index is): it spares a dispatch, and the replay event
            # it would log, for each tick that sees a slot another replica already fired.
            exists = await storage.has_execution(conn, row.api_key, key)
        if exists:
            self._fired[seen] = slot
            return None
        template = schedule.payloadTemplate
        payload = {} if isinstance(template, msgspec.UnsetType) else template
        context = {
            "schedule": {"triggerId": row.trigger_id, "scheduledAt": slot, "payload": payload}
        }
        dispatched = await self._triggers.start_scheduled(
            row.api_key, row.definition_id, key, context
        )
        self._fired[seen] = slot
        return dispatched
