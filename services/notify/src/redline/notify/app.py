"""The notify service as a plugin of the shared runtime, and as an app of its own.

Durable consumers of the EVENTS stream turn comment events into basic and advanced webhook
deliveries (`notify-webhooks`), activity records (`notify-activity`) and users' in-app
notifications (`notify-notifications`), and workflow execution events into deliveries to each
execution's receiver (`notify-workflow-webhooks`); one delivery worker sends what is due, of
every kind.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from redline.bus import BatchConsumer
from redline.envelope import PAGE_TOKENS, add_endpoints
from redline.mail import SETTING as SMTP_SETTING
from redline.mail import sender_for
from redline.notify.activities import routes as activity_routes
from redline.notify.activities.personal_data import ACTIVITY_KINDS
from redline.notify.activities.recorder import ActivityRecorder
from redline.notify.activities.service import ActivityService
from redline.notify.advanced.credentials import AdvancedWebhookCredentials
from redline.notify.advanced.enqueue import KIND as ADVANCED_KIND
from redline.notify.app_keys import (
    ACTIVITIES,
    DELIVERIES,
    KEY_CONFIGS,
    NOTIFICATIONS,
    SETTINGS,
    USER_CONFIGS,
)
from redline.notify.deliveries import routes as delivery_routes
from redline.notify.deliveries.personal_data import DELIVERY_KINDS
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.deliveries.service import DeliveryService
from redline.notify.deliveries.worker import DeliveryWorker
from redline.notify.documents import NOTIFY_DOCUMENTS
from redline.notify.key_config import KeyConfigs
from redline.notify.mail.worker import MailWorker
from redline.notify.notifications import routes as notification_routes
from redline.notify.notifications.directory import follow_directory_deletions
from redline.notify.notifications.personal_data import NOTIFICATION_KINDS
from redline.notify.notifications.recorder import NotificationRecorder
from redline.notify.notifications.service import NotificationService
from redline.notify.notifications.user_config import UserConfigService
from redline.notify.settings import NotifySettings
from redline.notify.webhooks.credentials import BasicWebhookCredentials
from redline.notify.webhooks.enqueue import KIND as WEBHOOK_KIND
from redline.notify.webhooks.enqueue import WebhookEnqueuer
from redline.notify.workflow.credentials import WorkflowWebhookCredentials
from redline.notify.workflow.enqueue import KIND as WORKFLOW_KIND
from redline.notify.workflow.enqueue import WorkflowEnqueuer
from redline.proto.subjects import (
    COMMENT_EVENTS,
    CONSUMER_NOTIFY_ACTIVITY,
    CONSUMER_NOTIFY_NOTIFICATIONS,
    CONSUMER_NOTIFY_WEBHOOKS,
    CONSUMER_NOTIFY_WORKFLOW,
    WORKFLOW_EXECUTION_EVENTS,
)
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.known_documents import KNOWN_DOCUMENTS
from redline.runtime.mail_quota import mail_quota_for
from redline.runtime.personal_data import take_part_in_personal_data
from redline.runtime.resources import BUS, HOLDER, POOL
from redline.runtime.tasks import running
from redline.webhooks import AddressGuard, WebhookClient

log = logging.getLogger("redline.notify")

SCHEMA = "notify"
MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


@contextlib.asynccontextmanager
async def _key_configs(app: web.Application) -> AsyncIterator[None]:
    # One for every consumer of the process: an event they all read asks identity once.
    configs = KeyConfigs(app[BUS], app[SETTINGS].config_cache_ttl_s)
    await configs.start()
    app[KEY_CONFIGS] = configs
    try:
        yield
    finally:
        await configs.stop()


@contextlib.asynccontextmanager
async def _activities(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    app[ACTIVITIES] = ActivityService(
        app[POOL],
        app[PAGE_TOKENS],
        settings.notify_page_size,
        app[ACCESS_CLIENT],
        settings.page_byte_budget,
    )
    configs: KeyConfigs = app[KEY_CONFIGS]
    consumer = BatchConsumer(
        app[BUS].js,
        CONSUMER_NOTIFY_ACTIVITY,
        ActivityRecorder(app[POOL], configs).handle,
        filter_subjects=[COMMENT_EVENTS],
    )
    async with running(consumer.run(), name=CONSUMER_NOTIFY_ACTIVITY):
        yield


@contextlib.asynccontextmanager
async def _notifications(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    app[NOTIFICATIONS] = NotificationService(
        app[POOL],
        app[KNOWN_DOCUMENTS],
        app[ACCESS_CLIENT],
        app[PAGE_TOKENS],
        settings.page_byte_budget,
    )
    app[USER_CONFIGS] = UserConfigService(app[POOL])
    configs: KeyConfigs = app[KEY_CONFIGS]
    mail = settings.smtp_url is not None
    if not mail:
        log.warning("notification mail is off: %s is not set", SMTP_SETTING)
    consumer = BatchConsumer(
        app[BUS].js,
        CONSUMER_NOTIFY_NOTIFICATIONS,
        NotificationRecorder(app[POOL], configs, app[ACCESS_CLIENT], mail=mail).handle,
        filter_subjects=[COMMENT_EVENTS],
    )
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(running(consumer.run(), name=CONSUMER_NOTIFY_NOTIFICATIONS))
        if settings.smtp_url is not None:
            await stack.enter_async_context(_mail_worker(app, settings.smtp_url))
        yield


@contextlib.asynccontextmanager
async def _mail_worker(app: web.Application, smtp_url: str) -> AsyncIterator[None]:
    """The worker that sends queued notification mail through the relay of `smtp_url`."""
    settings = app[SETTINGS]
    sender = sender_for(
        smtp_url, from_address=settings.smtp_from, timeout_s=settings.smtp_timeout_s
    )
    configs: KeyConfigs = app[KEY_CONFIGS]
    worker = MailWorker(
        app[POOL],
        app[BUS],
        configs,
        sender,
        RetrySchedule(settings.notification_mail_retry_schedule_s, settings.webhook_retry_jitter),
        mail_quota_for(app[POOL], "notify", settings),
        lease_s=settings.notification_mail_lease_s,
        retention_s=settings.notification_mail_retention_s,
    )
    try:
        async with running(worker.run(), name="notification-mail"):
            yield
    finally:
        await sender.close()


def _delivery_worker(
    app: web.Application, client: WebhookClient, configs: KeyConfigs
) -> DeliveryWorker:
    """The worker that sends every kind of delivery: basic webhooks, advanced webhook
    endpoints (which may ask for a rate of their own) and workflow execution webhooks."""
    settings = app[SETTINGS]
    advanced = AdvancedWebhookCredentials(configs)
    return DeliveryWorker(
        app[POOL],
        client,
        {
            WEBHOOK_KIND: BasicWebhookCredentials(configs),
            ADVANCED_KIND: advanced,
            WORKFLOW_KIND: WorkflowWebhookCredentials(app[BUS].nc, settings.header_brands),
        },
        RetrySchedule(settings.webhook_retry_schedule_s, settings.webhook_retry_jitter),
        # Advanced webhook endpoints' rateLimit.
        rate_sources={ADVANCED_KIND: advanced},
        kind_schedules={
            WORKFLOW_KIND: RetrySchedule(
                settings.workflow_webhook_retry_schedule_s, settings.webhook_retry_jitter
            )
        },
        process_limit=settings.webhook_process_concurrency,
        per_url_limit=settings.webhook_endpoint_concurrency,
        per_url_window=settings.webhook_endpoint_window,
        retention_s=settings.webhook_retention_s,
        lease_s=settings.webhook_lease_s,
        holder=app[HOLDER],
    )


@contextlib.asynccontextmanager
async def _deliveries(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    app[DELIVERIES] = DeliveryService(
        app[POOL], app[PAGE_TOKENS], settings.notify_page_size, settings.page_byte_budget
    )
    configs: KeyConfigs = app[KEY_CONFIGS]
    guard = AddressGuard(settings.webhook_allow)
    async with WebhookClient(
        guard, timeout_s=settings.webhook_timeout_s, ca_file=settings.webhook_ca_file
    ) as client:
        worker = _delivery_worker(app, client, configs)
        basic = BatchConsumer(
            app[BUS].js,
            CONSUMER_NOTIFY_WEBHOOKS,
            WebhookEnqueuer(app[POOL], configs, worker).handle,
            filter_subjects=[COMMENT_EVENTS],
        )
        workflow = BatchConsumer(
            app[BUS].js,
            CONSUMER_NOTIFY_WORKFLOW,
            WorkflowEnqueuer(app[POOL], settings.webhook_retention_s).handle,
            filter_subjects=[WORKFLOW_EXECUTION_EVENTS],
        )
        async with (
            running(worker.run(), name="webhook-delivery"),
            running(basic.run(), name=CONSUMER_NOTIFY_WEBHOOKS),
            running(workflow.run(), name=CONSUMER_NOTIFY_WORKFLOW),
        ):
            yield


def plugin(settings: NotifySettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(
            app,
            [
                *activity_routes.ENDPOINTS,
                *delivery_routes.ENDPOINTS,
                *notification_routes.ENDPOINTS,
            ],
        )
        app.cleanup_ctx.append(_key_configs)
        # ACTIVITIES: the activity service and the notify-activity consumer.
        app.cleanup_ctx.append(_activities)
        # NOTIFICATIONS: the notification services, the notify-notifications consumer, and the
        # consumer dropping the notifications of deleted documents.
        app.cleanup_ctx.append(_notifications)
        app.cleanup_ctx.append(follow_directory_deletions)
        # Document migration moves activity records and notifications.
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: NOTIFY_DOCUMENTS)
        )
        # Personal data export and erasure: activity records and the webhook delivery log (in-app
        # notifications join this list).
        app.cleanup_ctx.append(
            take_part_in_personal_data(
                SCHEMA, lambda app: [*ACTIVITY_KINDS, *DELIVERY_KINDS, *NOTIFICATION_KINDS]
            )
        )
        # DELIVERIES: the webhook client, the delivery worker, and the notify-webhooks and
        # notify-workflow-webhooks consumers.
        app.cleanup_ctx.append(_deliveries)

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: NotifySettings) -> web.Application:
    return build_app(settings, [plugin(settings)])
