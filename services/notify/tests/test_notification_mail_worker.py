"""The notification mail worker against a real database and a real SMTP server: a mail held by a
process that died is sent once its lease ran out, and a relay that is down gets the mail on a
later attempt."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from redline.bus import Bus, rpc
from redline.local.processes import free_port
from redline.mail import MailSender
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.mail.worker import MailWorker
from redline.notify.notifications.recorder import NotificationRecorder
from redline.pg import Pool
from redline.proto.rpc import GroupMember, UserContacts, UserContactsGet
from redline.proto.subjects import RPC_USER_CONTACTS
from redline.runtime.mail_quota import MailQuota
from redline.testing.mail import HOST, smtp_server
from services.notify.tests.test_notification_mail_queue import Configs, mention_of_dave
from services.notify.tests.test_notification_recorder import Access


async def answer_contacts(request: UserContactsGet) -> UserContacts:
    return UserContacts(
        {u: GroupMember(userId=u, email=f"{u}@people.test") for u in request.userIds}
    )


@asynccontextmanager
async def worker_running(pool: Pool, bus: Bus, port: int) -> AsyncIterator[None]:
    """The worker sending through the SMTP server on `port`, with identity's contacts answered."""
    subscription = await rpc.serve(bus.nc, RPC_USER_CONTACTS, UserContactsGet, answer_contacts)
    sender = MailSender(host=HOST, port=port, from_address="mail@redline.test", security="none")
    worker = MailWorker(
        pool,
        bus,
        Configs(),
        sender,
        RetrySchedule([0.05] * 50, jitter=0.0),
        MailQuota(pool, "notify", per_hour=1000, per_day=1000),
        lease_s=60.0,
        retention_s=3600.0,
    )
    task = asyncio.create_task(worker.run())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await sender.close()
        await subscription.unsubscribe()


async def queue_a_mention(pool: Pool) -> None:
    """dave's mail about one mention (alice and bob, in the thread, have mail of their own)."""
    await pool.execute(
        "INSERT INTO notify.notification_user_config VALUES"
        " ('key1', 'org1', 'alice', '', '{\"email\": \"NONE\"}'),"
        " ('key1', 'org1', 'bob', '', '{\"email\": \"NONE\"}')"
    )
    await NotificationRecorder(pool, Configs(), Access(), mail=True).handle([mention_of_dave(2)])


async def rows_once(pool: Pool, condition: str, timeout_s: float = 10.0) -> list[Any]:
    """The queue's rows once `condition` (SQL over them) holds."""
    async with asyncio.timeout(timeout_s):
        while True:
            rows = await pool.fetch("SELECT * FROM notify.notification_mail")
            if await pool.fetchval(f"SELECT {condition} FROM notify.notification_mail"):  # noqa: S608
                return list(rows)
            await asyncio.sleep(0.02)


async def test_a_mail_held_by_a_process_that_died_is_sent_after_its_lease(
    pool: Pool, bus: Bus
) -> None:
    await queue_a_mention(pool)
    # Taken by a process that stopped before it sent the mail, its lease now over.
    await pool.execute(
        "UPDATE notify.notification_mail SET state = 'sending',"
        " lease_until = now() - interval '1 second'"
    )

    with smtp_server() as (mailbox, port):
        async with worker_running(pool, bus, port):
            [mail] = await mailbox.wait_for(1)
            await rows_once(pool, "count(*) = 0")

    assert mail.recipients == ["dave@people.test"]
    assert mail.message["Subject"] == "carol mentioned you in a comment"


async def test_a_relay_that_is_down_gets_the_mail_on_a_later_attempt(pool: Pool, bus: Bus) -> None:
    await queue_a_mention(pool)
    port = free_port(HOST)

    async with worker_running(pool, bus, port):
        [row] = await rows_once(pool, "bool_and(attempts >= 1)")
        assert row["state"] in ("waiting", "sending")
        assert await pool.fetchval("SELECT last_error FROM notify.notification_mail") == (
            "smtp-unavailable: the connection to the mail server failed"
        )

        with smtp_server(port=port) as (mailbox, _):
            [mail] = await mailbox.wait_for(1)
            await rows_once(pool, "count(*) = 0")

    assert mail.recipients == ["dave@people.test"]
