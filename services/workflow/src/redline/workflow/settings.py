"""Settings of the workflow service."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from redline.runtime.settings import RuntimeSettings


class WorkflowSettings(RuntimeSettings, kw_only=True, frozen=True):
    # The address receivers and agent runners reach this service at, for the callback URLs of
    # async webhook and agent steps (default: http://<host>:<port>).
    public_url: str | None = None
    # Steps one process runs at once (node calls in flight), and how long a worker's claim on a
    # step lasts before another may take it up (longer than any node's timeout).
    step_concurrency: int = 64
    step_lease_s: float = 120.0
    # Steps of one API key in flight at once across replicas: one key's backlog never takes
    # every slot, and each claim serves the keys with due steps in turn.
    step_concurrency_per_key: Annotated[int, Meta(ge=1)] = 16
    # Waits before a node that failed in a way a retry may fix (5xx, timeout) runs again; after
    # the last the step fails.
    step_retry_delays_s: list[float] = msgspec.field(default_factory=lambda: [2.0, 8.0])
    # The most steps one execution makes: the step that would pass it fails the execution
    # (`step-limit-exceeded`), so no definition makes a run grow without end.
    max_steps_per_execution: Annotated[int, Meta(ge=1)] = 1000
    # Email for notification nodes: an SMTP server (none: email steps fail, saying so), named
    # by one URL (redline.mail.relay; it wins) or by the host settings below.
    smtp_url: str | None = None
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_from: str = "redline@localhost"
    # tls from the start (usually port 465), starttls (587), or none (a trusted relay).
    smtp_security: Literal["none", "starttls", "tls"] = "starttls"
    smtp_timeout_s: float = 30.0
    # Slack for notification nodes that name a channel id (incoming-webhook URLs need none):
    # each API key sets its own bot token. The operator's token posts for keys that set none
    # only when `slack_bot_token_shared` says so (a deployment whose keys are all one tenant's).
    slack_bot_token: str | None = None
    slack_bot_token_shared: bool = False
    slack_api_url: str = "https://slack.com/api"
    # The operator's agent runner for agent nodes (none: agent steps fail, saying so; the
    # `__mock__` agent needs none), and the bearer token it expects.
    agent_runner_url: str | None = None
    agent_runner_token: str | None = None
    # Timeout of calls to the agent runner and of Slack calls.
    outbound_timeout_s: float = 10.0
    # How often each process looks for schedule triggers due to fire, and how old a slot may be
    # and still fire (a few intervals, so a slow tick or a quick restart loses no slot; an older
    # one is a missed run, never replayed).
    schedule_interval_s: float = 5.0
    schedule_window_s: float = 15.0
    # How far a timestamped inbound delivery's time (Stripe's `t=`, Standard Webhooks'
    # `webhook-timestamp`) may be from this server's clock and still be taken.
    trigger_replay_window_s: float = 300.0
    # Authenticated inbound deliveries one trigger may make per minute, in each process
    # (0: no limit); more are refused with RESOURCE_EXHAUSTED.
    trigger_rate_limit: int = 120
