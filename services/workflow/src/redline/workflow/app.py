"""The workflow service as a plugin of the shared runtime, and as an app of its own.

It holds the engine (executions change in PostgreSQL transactions, each with its events), the
step worker that runs automatic nodes and SLA deadlines, and the answer to notify's question
for an execution's webhook receiver.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from redline.envelope import Tier, add_endpoints
from redline.mail import MailSender, sender_for
from redline.pg import Pool
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.keys import Sealer, derive_key
from redline.runtime.mail_quota import mail_quota_for
from redline.runtime.personal_data import take_part_in_personal_data
from redline.runtime.rate_counts import shared_limiter
from redline.runtime.resources import BUS, HOLDER, POOL, SECRET_KEY
from redline.runtime.tasks import running
from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.app_keys import (
    CALLBACKS,
    DEFINITIONS,
    ENGINE,
    EXECUTIONS,
    SCHEDULES,
    SETTINGS,
    SLACK,
    STEPS,
    TRIGGERS,
)
from redline.workflow.callbacks.links import CallbackLinks
from redline.workflow.callbacks.routes import add_callback_routes
from redline.workflow.definitions import routes as definition_routes
from redline.workflow.definitions.service import DefinitionService
from redline.workflow.documents import WORKFLOW_DOCUMENTS
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.nodes.agent import AgentRunner
from redline.workflow.engine.nodes.notification import Mail
from redline.workflow.engine.nodes.slack import SlackSender
from redline.workflow.engine.runners import NodeRunners
from redline.workflow.engine.storage import SCHEMA
from redline.workflow.engine.worker import StepWorker
from redline.workflow.executions import routes as execution_routes
from redline.workflow.executions.service import ExecutionService
from redline.workflow.executions.subscribers import follow_directory_deletions
from redline.workflow.personal_data.storage import WORKFLOW_KINDS
from redline.workflow.receivers.rpc import serve_receivers
from redline.workflow.settings import WorkflowSettings
from redline.workflow.slack import routes as slack_routes
from redline.workflow.slack.service import SlackCredentials
from redline.workflow.steps import routes as step_routes
from redline.workflow.steps.service import StepService
from redline.workflow.triggers.routes import add_trigger_routes
from redline.workflow.triggers.schedule import ScheduleRunner
from redline.workflow.triggers.service import TriggerService

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


def _runners(
    settings: WorkflowSettings,
    client: WebhookClient,
    slack_credentials: SlackCredentials,
    pool: Pool,
) -> NodeRunners:
    sender: MailSender | None = None
    if settings.smtp_url:
        sender = sender_for(
            settings.smtp_url, from_address=settings.smtp_from, timeout_s=settings.smtp_timeout_s
        )
    elif settings.smtp_host:
        sender = MailSender(
            host=settings.smtp_host,
            port=settings.smtp_port,
            from_address=settings.smtp_from,
            username=settings.smtp_username,
            password=settings.smtp_password,
            security=settings.smtp_security,
            timeout_s=settings.smtp_timeout_s,
        )
    mail = None if sender is None else Mail(sender, mail_quota_for(pool, SCHEMA, settings))
    agents = None
    if settings.agent_runner_url:
        agents = AgentRunner(
            settings.agent_runner_url,
            token=settings.agent_runner_token,
            timeout_s=settings.outbound_timeout_s,
        )
    # The operator's token posts for keys without their own only when the operator shares it.
    shared = settings.slack_bot_token if settings.slack_bot_token_shared else None
    slack = SlackSender(
        client, tokens=slack_credentials, bot_token=shared, api_url=settings.slack_api_url
    )
    return NodeRunners(client, brands=settings.header_brands, mail=mail, slack=slack, agents=agents)


@contextlib.asynccontextmanager
async def _workflow(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    sealer = Sealer(derive_key(app[SECRET_KEY], "workflow.secrets"))
    guard = AddressGuard(settings.webhook_allow)
    engine = Engine(
        app[POOL],
        retry_delays_s=settings.step_retry_delays_s,
        max_steps_per_execution=settings.max_steps_per_execution,
    )
    app[ENGINE] = engine
    app[DEFINITIONS] = DefinitionService(app[POOL], sealer, guard)
    app[EXECUTIONS] = ExecutionService(engine, sealer, guard, app[ACCESS_CLIENT])
    app[STEPS] = StepService(engine)
    app[SLACK] = SlackCredentials(app[POOL], sealer)
    public_url = settings.public_url or f"http://{settings.host}:{settings.port}"
    app[CALLBACKS] = CallbackLinks(
        derive_key(app[SECRET_KEY], "workflow.callbacks"), public_url, settings.header_brands[0]
    )
    async with WebhookClient(
        guard, timeout_s=settings.outbound_timeout_s, ca_file=settings.webhook_ca_file
    ) as client:
        runners = _runners(settings, client, app[SLACK], app[POOL])
        worker = StepWorker(
            engine,
            runners,
            app[CALLBACKS],
            sealer,
            concurrency=settings.step_concurrency,
            concurrency_per_key=settings.step_concurrency_per_key,
            lease_s=settings.step_lease_s,
            holder=app[HOLDER],
        )
        receivers = await serve_receivers(app[BUS], app[POOL], sealer)
        try:
            async with running(worker.run(), name="workflow-steps"):
                yield
        finally:
            await receivers.unsubscribe()
            await runners.close()


@contextlib.asynccontextmanager
async def _triggers(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    limits = {Tier.INBOUND_TRIGGER: settings.trigger_rate_limit}
    async with shared_limiter(limits, app[POOL], settings.rate_limit_sync_s) as limiter:
        app[TRIGGERS] = TriggerService(
            app[POOL],
            app[EXECUTIONS],
            settings.header_brands,
            replay_window_s=settings.trigger_replay_window_s,
            limiter=limiter,
        )
        app[SCHEDULES] = ScheduleRunner(
            app[POOL],
            app[TRIGGERS],
            interval_s=settings.schedule_interval_s,
            window_s=settings.schedule_window_s,
        )
        async with running(app[SCHEDULES].run(), name="workflow-schedules"):
            yield


def plugin(settings: WorkflowSettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(app, definition_routes.ENDPOINTS)
        add_endpoints(app, execution_routes.ENDPOINTS)
        add_endpoints(app, step_routes.ENDPOINTS)
        add_endpoints(app, slack_routes.ENDPOINTS)
        add_callback_routes(app, settings.header_brands[0])
        # The engine, the services, the step worker and the receivers' answer.
        app.cleanup_ctx.append(_workflow)
        # Inbound webhook triggers, and the loop that fires schedule triggers.
        add_trigger_routes(app, settings.header_brands[0])
        app.cleanup_ctx.append(_triggers)
        app.cleanup_ctx.append(follow_directory_deletions)
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: WORKFLOW_DOCUMENTS)
        )
        app.cleanup_ctx.append(take_part_in_personal_data(SCHEMA, lambda app: WORKFLOW_KINDS))

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: WorkflowSettings) -> web.Application:
    return build_app(settings, [plugin(settings)])
