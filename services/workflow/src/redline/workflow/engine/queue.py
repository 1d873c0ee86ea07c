"""The task queue workers share: claiming due tasks fairly between API keys, holding a claim
while its outcome is written, giving it back. (Tasks are added and removed with the changes of
their execution, in `storage.flush`.)

A claim moves each task it takes a lease into the future under a new token and names the
process holding it, so that the task comes due again, for any worker, if this one dies before
finishing it: within seconds of its holder's session ending (`free_dead_holders`), when the
lease runs out at the latest. Which tasks it takes:

- per API key with due tasks, its earliest due, up to the places the key has left: no key has
  more than `per_key_limit` tasks in flight across replicas (a claim whose lease ran out no
  longer counts), so one key's thousands of due steps never fill a process's slots;
- across keys, in rounds: every key's first task before any key's second, the keys in turn
  from just after the last one the previous claim served (`workflow.task_turn`), so a key with
  one due step waits for no other key's backlog.

Claims are serialised by a transaction-level advisory lock, held for one short statement: it
makes the per-key limit exact across replicas, where `SKIP LOCKED` alone would let two claims
at once both take a key's last place.
"""

from __future__ import annotations

import msgspec

from redline.pg import LIVE_HOLDERS, Connection

# Any constant shared by every replica (the ASCII of "wftask").
_CLAIM_LOCK = 0x77667461736B


class ClaimedTask(msgspec.Struct, frozen=True):
    """A task this worker holds: the task (execution, step, kind) and the claim's token."""

    execution_id: str
    step_id: str
    kind: str
    claim_token: str


_CLAIM = """
WITH RECURSIVE keys AS (
    -- Each key with a task, one index probe per key (a loose index scan).
    (SELECT api_key FROM workflow.task ORDER BY api_key LIMIT 1)
    UNION ALL
    SELECT next.api_key FROM keys k, LATERAL (
        SELECT api_key FROM workflow.task WHERE api_key > k.api_key ORDER BY api_key LIMIT 1
    ) next
), turn AS (
    SELECT coalesce((SELECT after_key FROM workflow.task_turn), '') AS after_key
), in_flight AS (
    SELECT api_key, count(*) AS n FROM workflow.task
    WHERE claim_token IS NOT NULL AND due_at > now() GROUP BY api_key
), free AS (
    SELECT k.api_key, least($2 - coalesce(f.n, 0), $1) AS places,
           k.api_key <= turn.after_key AS served_last
    FROM keys k CROSS JOIN turn LEFT JOIN in_flight f USING (api_key)
), candidates AS (
    SELECT f.api_key, f.served_last, c.id,
           row_number() OVER (PARTITION BY f.api_key ORDER BY c.due_at, c.id) AS round
    FROM free f, LATERAL (
        SELECT id, due_at FROM workflow.task t
        WHERE t.api_key = f.api_key AND t.due_at <= now()
        ORDER BY t.due_at, t.id LIMIT f.places FOR UPDATE SKIP LOCKED
    ) c
    WHERE f.places > 0
), picked AS (
    SELECT id, api_key, round, served_last FROM candidates
    ORDER BY round, served_last, api_key LIMIT $1
), turned AS (
    INSERT INTO workflow.task_turn (one, after_key)
    SELECT true, api_key FROM picked
    ORDER BY round DESC, served_last DESC, api_key DESC LIMIT 1
    ON CONFLICT (one) DO UPDATE SET after_key = excluded.after_key
)
UPDATE workflow.task t
SET due_at = now() + make_interval(secs => $3), claim_token = gen_random_uuid(), holder = $4
WHERE t.id = ANY (ARRAY(SELECT id FROM picked))
RETURNING t.id, t.execution_id, t.step_id, t.kind, t.claim_token::text
"""


# Tasks whose holder died are due now, for the claims that follow.
_FREE_DEAD_HOLDERS = f"""
UPDATE workflow.task SET due_at = now(), claim_token = NULL, holder = NULL
WHERE claim_token IS NOT NULL AND due_at > now() AND holder IS NOT NULL
  AND holder NOT IN ({LIVE_HOLDERS})
"""  # noqa: S608 (constant)


async def free_dead_holders(conn: Connection) -> None:
    """Make the tasks of processes that died due now (`redline.pg.holders`). Run every few
    seconds rather than with each claim: reading `pg_locks` holds the lock manager's
    partitions for a moment, which every transaction of the server waits on."""
    await conn.execute(_FREE_DEAD_HOLDERS)


async def claim_tasks(
    conn: Connection, limit: int, per_key_limit: int, lease_s: float, holder: int
) -> list[ClaimedTask]:
    """Claim up to `limit` due tasks for the process numbered `holder`, fairly between API keys
    (see the module's words)."""
    async with conn.transaction():
        await conn.execute(f"SELECT pg_advisory_xact_lock({_CLAIM_LOCK})")
        rows = await conn.fetch(_CLAIM, limit, per_key_limit, lease_s, holder)
    return [
        ClaimedTask(r["execution_id"], r["step_id"], r["kind"], r["claim_token"])
        for r in sorted(rows, key=lambda r: r["id"])
    ]


# The task row of a claim, as long as the claim is still the task's (parameters: execution,
# step, kind, claim token): the one test of whether a worker still holds its task.
HELD = "execution_id = $1 AND step_id = $2 AND kind = $3 AND claim_token = $4::uuid"


def _held(task: ClaimedTask) -> tuple[str, str, str, str]:
    return task.execution_id, task.step_id, task.kind, task.claim_token


async def hold_claim(conn: Connection, task: ClaimedTask) -> bool:
    """Whether the task is still this worker's (its lease did not run out and get taken); if
    so its row stays locked until the transaction ends, so no claim takes it meanwhile."""
    held = await conn.fetchval(
        f"SELECT true FROM workflow.task WHERE {HELD} FOR UPDATE",  # noqa: S608 (constant)
        *_held(task),
    )
    return bool(held)


async def release_task(conn: Connection, task: ClaimedTask, delay_s: float) -> None:
    """Give a claimed task back unfinished, due again after `delay_s`."""
    await conn.execute(
        "UPDATE workflow.task SET due_at = now() + make_interval(secs => $5),"  # noqa: S608
        f" claim_token = NULL WHERE {HELD}",
        *_held(task),
        delay_s,
    )


async def delete_task(conn: Connection, task: ClaimedTask) -> None:
    await conn.execute(
        f"DELETE FROM workflow.task WHERE {HELD}",  # noqa: S608 (constant)
        *_held(task),
    )


async def next_task_due(conn: Connection) -> float | None:
    """Seconds until the next task comes due, None if none will. Tasks due already are left
    out: those no claim took wait for their key's places, and the worker hears when one of its
    own tasks ends (another replica's within its poll)."""
    value = await conn.fetchval(
        "SELECT extract(epoch FROM min(due_at) - now()) FROM workflow.task WHERE due_at > now()"
    )
    return None if value is None else max(0.0, float(value))
