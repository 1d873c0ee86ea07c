"""How much mail a workspace may send through the operator's SMTP relay: recipients per hour and
per (rolling) day, one rule for every service that sends mail on a tenant's behalf (invitations,
notification mail, workflow email steps).

The relay is the operator's, and its reputation is every tenant's: without a bound, one
workspace could send as much as the relay takes. The count lives in PostgreSQL, in the table
`<schema>.mail_quota` of the sending service (each service's migration creates it), so every
replica of the service sees one count; each service counts its own mail, so a burst of workflow
email cannot starve a workspace's invitations or notification mail.

A send takes its recipients from the quota before it goes out, in one statement that locks
the workspace's row of the current hour (concurrent takers of one workspace wait for each
other; other workspaces do not), checks both limits against the latest count and adds to it; a
send the relay then refused altogether gives them back. The hour's row is created by the first
take of the hour (a statement of its own, then the take again), so that the take itself only
ever locks a row that exists: two first takers then wait for each other as any two do. Rows
older than a day are deleted as the workspace takes more, so the table holds at most 25 rows a
workspace.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec

from redline.envelope.errors import ResourceExhausted
from redline.pg import Pool
from redline.pg.names import schema_name
from redline.runtime.settings import RuntimeSettings

_HOUR = dt.timedelta(hours=1)

log = logging.getLogger("redline.mail_quota")


class MailQuotaExceeded(ResourceExhausted):
    """The workspace has sent to as many recipients as it may for now: `message` says which
    limit, `retry_after_s` when the count next goes down. An API call that meets it answers
    429 RESOURCE_EXHAUSTED with Retry-After."""

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message, retry_after_s=retry_after_s)
        self.retry_after_s = retry_after_s


class MailTaken(msgspec.Struct, frozen=True):
    """Recipients taken from a workspace's quota, in the hour they count in."""

    workspace_id: str
    recipients: int
    hour: dt.datetime


class MailQuota:
    """At most `per_hour` recipients in a clock hour and `per_day` in the last 24 clock hours
    (the current one with them), per workspace."""

    def __init__(self, pool: Pool, schema: str, *, per_hour: int, per_day: int) -> None:
        if per_hour < 1 or per_day < 1:
            raise ValueError("mail quotas must allow at least one recipient")
        self._pool = pool
        self._table = table = f"{schema_name(schema)}.mail_quota"
        self._per_hour = per_hour
        self._per_day = per_day
        self._limits = (per_hour, per_day)
        # $1 the workspace, $2 the recipients, $3 and $4 the limits per hour and per day. No row
        # when the hour's row does not exist yet. The lock (FOR UPDATE) reads the hour's latest
        # count, whatever committed since the statement began; the earlier hours change only
        # by a give-back, which can only make the check stricter than it need be.
        self._take = f"""
            WITH current AS (
                SELECT hour, recipients FROM {table}
                WHERE workspace_id = $1 AND hour = date_trunc('hour', now())
                FOR UPDATE
            ), earlier AS (
                SELECT coalesce(sum(q.recipients), 0) AS used
                FROM {table} q, current c
                WHERE q.workspace_id = $1 AND q.hour > c.hour - interval '1 day'
                  AND q.hour < c.hour
            ), decision AS (
                SELECT c.hour, c.recipients AS used_hour, e.used + c.recipients AS used_day,
                       c.recipients + $2 <= $3 AND e.used + c.recipients + $2 <= $4 AS allowed
                FROM current c, earlier e
            ), counted AS (
                UPDATE {table} q SET recipients = q.recipients + $2
                FROM decision d
                WHERE q.workspace_id = $1 AND q.hour = d.hour AND d.allowed
            ), gone AS (
                DELETE FROM {table} q USING decision d
                WHERE q.workspace_id = $1 AND q.hour <= d.hour - interval '1 day' AND d.allowed
            )
            SELECT hour, used_hour, used_day, allowed FROM decision
        """  # noqa: S608 (the table's name is this module's)

    async def take(self, workspace_id: str, recipients: int) -> MailTaken:
        """Count `recipients` against the workspace's quota, or raise MailQuotaExceeded and
        count nothing."""
        row = await self._pool.fetchrow(self._take, workspace_id, recipients, *self._limits)
        if row is None:
            # The first take of the hour: its row, then the take (one that made it meanwhile
            # is the same row).
            await self._pool.execute(
                f"INSERT INTO {self._table} (workspace_id, hour, recipients)"  # noqa: S608
                " VALUES ($1, date_trunc('hour', now()), 0) ON CONFLICT DO NOTHING",
                workspace_id,
            )
            row = await self._pool.fetchrow(self._take, workspace_id, recipients, *self._limits)
            assert row is not None, "the hour's row was made a moment ago"
        if not row["allowed"]:
            raise self._refusal(
                int(row["used_hour"]), int(row["used_day"]), recipients, row["hour"]
            )
        return MailTaken(workspace_id, recipients, row["hour"])

    @asynccontextmanager
    async def sending(self, workspace_id: str, recipients: int) -> AsyncIterator[MailTaken]:
        """Take `recipients` for the send in the block, and give them back if the block fails
        (the relay took the message for nobody, or the caller refused it)."""
        taken = await self.take(workspace_id, recipients)
        try:
            yield taken
        except Exception:
            try:
                await self.give_back(taken)
            except Exception as exc:  # the send's own failure is the one to report
                log.warning("mail quota: giving back %d recipients failed (%s)", recipients, exc)
            raise

    async def give_back(self, taken: MailTaken) -> None:
        """Return what a send took when the relay took the message for nobody."""
        await self._pool.execute(
            f"UPDATE {self._table} SET recipients = greatest(recipients - $3, 0)"  # noqa: S608
            " WHERE workspace_id = $1 AND hour = $2",
            taken.workspace_id,
            taken.hour,
            taken.recipients,
        )

    def _refusal(
        self, used_hour: int, used_day: int, wanted: int, hour: dt.datetime
    ) -> MailQuotaExceeded:
        """What a take the statement refused answers: the limit it met (the hour's first)."""
        next_hour = hour + _HOUR
        wait_s = max(1, math.ceil((next_hour - dt.datetime.now(dt.UTC)).total_seconds()))
        if used_hour + wanted > self._per_hour:
            return MailQuotaExceeded(
                f"The workspace's mail quota is used up: at most {self._per_hour} recipients an"
                f" hour ({used_hour} so far this hour, {wanted} more asked for).",
                retry_after_s=wait_s,
            )
        return MailQuotaExceeded(
            f"The workspace's mail quota is used up: at most {self._per_day} recipients a"
            f" day ({used_day} in the last 24 hours, {wanted} more asked for).",
            retry_after_s=wait_s,
        )


def mail_quota_for(pool: Pool, schema: str, settings: RuntimeSettings) -> MailQuota:
    """The quota of the service owning `schema`, as the settings bound it."""
    return MailQuota(
        pool,
        schema,
        per_hour=settings.mail_recipients_per_hour,
        per_day=settings.mail_recipients_per_day,
    )
