"""The notification mail worker: sends the queued mails that are due, through the SMTP relay.

One per process; replicas share the queue through the claim (`storage.claim`), and a mail taken
by a process that dies is taken again when its lease runs out, so the queue survives restarts.
It wakes when a mail is queued (NOTIFY), when the next one is due, and at least every second.

Each mail is judged when it goes out: the key's email config must still have mail on (a key that
is gone, or turned mail off, sends nothing), the user needs an email address in identity's
profile (`rpc.identity.users.contacts`, which also names the users headlines mention), and only
the notifications the user has neither read nor deleted by then are in it. Nothing left: the
mail is dropped. Each mail takes one recipient of the workspace's mail quota
(`redline.runtime.mail_quota`); past it the mail waits, logged, until the quota has room, as one
of its attempts. A failure another attempt may cure (the relay or identity unreachable, a 4xx
reply) waits its turn in the retry schedule; past its end, or on a failure that needs a person
(settings refused, the recipient refused), the mail is kept as failed with the reason, and
logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable

import prometheus_client

from redline.bus import Bus, rpc
from redline.envelope.errors import ApiError, NotFound, Unauthenticated
from redline.mail import MailFailed, MailSender
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.key_config import KeyConfigSource
from redline.notify.mail import storage
from redline.notify.mail.compose import compose, user_ids
from redline.notify.mail.storage import ClaimedMail
from redline.pg import Pool
from redline.pg.listen import Listener
from redline.proto.rpc import UserContacts, UserContactsGet
from redline.proto.subjects import RPC_USER_CONTACTS
from redline.runtime.mail_quota import MailQuota, MailQuotaExceeded

log = logging.getLogger("redline.notify.mail")

MAILS = prometheus_client.Counter(
    "redline_notification_mails",
    "Notification mails by what became of them: sent, dropped (nothing left to send, mail "
    "off, no address), retry (another attempt is scheduled), deferred (the workspace's mail "
    "quota is used up) or failed (given up).",
    ("state",),
)

IDLE_POLL_S = 1.0
ERROR_BACKOFF_S = 1.0
PURGE_INTERVAL_S = 600.0
CLAIM_LIMIT = 16


class _Drop(Exception):
    """Nothing to send for this mail; the reason is logged."""


class _Failed(Exception):
    """Sending this mail needs a person; no retry."""


class MailWorker:
    def __init__(
        self,
        pool: Pool,
        bus: Bus,
        configs: KeyConfigSource,
        sender: MailSender,
        schedule: RetrySchedule,
        quota: MailQuota,
        *,
        lease_s: float,
        retention_s: float,
        rpc_timeout_s: float = 5.0,
    ) -> None:
        self._pool = pool
        self._bus = bus
        self._configs = configs
        self._sender = sender
        self._schedule = schedule
        self._quota = quota
        self._lease_s = lease_s
        self._retention_s = retention_s
        self._rpc_timeout_s = rpc_timeout_s
        self._wakeup = asyncio.Event()
        self._purged_at = 0.0

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        listener = Listener(self._pool, storage.NOTIFY_CHANNEL, self.wake)
        try:
            while True:
                self._wakeup.clear()
                try:
                    await listener.renew()
                    await self._purge_now_and_then()
                    claimed = await storage.claim(self._pool, CLAIM_LIMIT, self._lease_s)
                    if claimed:
                        await asyncio.gather(*(self._send(mail) for mail in claimed))
                        continue
                    wait_s = await storage.seconds_until_due(self._pool, IDLE_POLL_S)
                except Exception as exc:
                    log.warning("notification mail: claim failed (%s); retrying", exc)
                    await asyncio.sleep(ERROR_BACKOFF_S)
                    continue
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait_s):
                        await self._wakeup.wait()
        finally:
            await listener.close()

    async def _purge_now_and_then(self) -> None:
        now = time.monotonic()
        if now - self._purged_at >= PURGE_INTERVAL_S:
            self._purged_at = now
            await storage.purge(self._pool, self._retention_s)

    async def _send(self, mail: ClaimedMail) -> None:
        """Send one mail and record what became of it; never raises but on cancellation."""
        try:
            await self._deliver(mail)
        except _Drop as exc:
            log.info("notification mail %s not sent: %s", mail.id, exc)
            await self._record(storage.done(self._pool, mail.id), "dropped")
        except _Failed as exc:
            await self._give_up(mail, str(exc))
        except MailQuotaExceeded as exc:
            await self._defer(mail, exc)
        except MailFailed as exc:
            if exc.retryable:
                await self._retry(mail, f"{exc.code}: {exc.message}")
            else:
                await self._give_up(mail, f"{exc.code}: {exc.message}")
        except ApiError as exc:
            await self._retry(mail, f"identity: {exc}")
        except Exception as exc:
            log.exception("notification mail %s: unexpected failure", mail.id)
            await self._retry(mail, f"unexpected: {exc}")
        else:
            await self._record(storage.done(self._pool, mail.id), "sent")

    async def _deliver(self, mail: ClaimedMail) -> None:
        try:
            config = await self._configs.get(mail.api_key)
        except (NotFound, Unauthenticated):
            raise _Drop("the API key is gone") from None
        if config.workspaceId != mail.workspace_id or not config.email.useEmailService:
            raise _Drop("notification mail is off for the key")
        notifications = await storage.unsent_notifications(self._pool, mail)
        if not notifications:
            raise _Drop("its notifications were read or deleted")
        named = [u for n in notifications for u in user_ids(n)]
        contacts = await rpc.call(
            self._bus.nc,
            RPC_USER_CONTACTS,
            UserContactsGet(apiKey=mail.api_key, userIds=list({mail.user_id, *named})),
            UserContacts,
            timeout_s=self._rpc_timeout_s,
        )
        contact = contacts.users.get(mail.user_id)
        if contact is None or not contact.email:
            raise _Drop("the user has no email address")
        names = {u: c.name for u, c in contacts.users.items() if c.name}
        text = compose(notifications, names)
        async with self._quota.sending(mail.workspace_id, 1):
            # Framed as the words of the key's workspace (its headlines and names are). No
            # Reply-To: notify cannot tell whether the workspace controls `fromEmail`.
            sent = await self._sender.send(
                [contact.email],
                text.subject,
                text.body,
                for_workspace=config.email.fromCompany or f"workspace {mail.workspace_id}",
            )
        if sent.refused:
            reply = next(iter(sent.refused.values()))
            raise _Failed(f"the relay refused the recipient: {reply}")

    async def _retry(self, mail: ClaimedMail, error: str) -> None:
        wait_s = self._schedule.next_wait_s(mail.attempts + 1)
        if wait_s is None:
            await self._give_up(mail, error)
            return
        await self._record(storage.retry(self._pool, mail.id, wait_s, error), "retry")

    async def _defer(self, mail: ClaimedMail, exc: MailQuotaExceeded) -> None:
        """The workspace's mail quota is used up: the mail waits until the count goes down, as
        one of its attempts (so a workspace over its quota for long gives up in the end)."""
        reason = f"mail-quota: {exc.message}"
        log.warning("notification mail %s deferred: %s", mail.id, reason)
        if self._schedule.next_wait_s(mail.attempts + 1) is None:
            await self._give_up(mail, reason)
            return
        write = storage.retry(self._pool, mail.id, exc.retry_after_s, reason)
        await self._record(write, "deferred")

    async def _give_up(self, mail: ClaimedMail, error: str) -> None:
        log.warning("notification mail %s failed for good: %s", mail.id, error)
        await self._record(storage.fail(self._pool, mail.id, error), "failed")

    async def _record(self, write: Awaitable[None], state: str) -> None:
        MAILS.labels(state).inc()
        try:
            await write
        except Exception as exc:
            # The lease runs out and the mail is taken again.
            log.warning("notification mail: recording %s failed (%s)", state, exc)
