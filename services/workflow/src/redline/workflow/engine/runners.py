"""Running a step's node: the automatic node types' side effects, with what each needs (the
guarded HTTP client, the mail and Slack senders, the agent runner), behind one call."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import msgspec

from redline.webhooks import WebhookClient
from redline.workflow.definitions.nodes import AgentNode, Node, NotificationNode, WebhookNode
from redline.workflow.engine.nodes.agent import AgentRunner, run_agent
from redline.workflow.engine.nodes.notification import Mail, run_notification
from redline.workflow.engine.nodes.outcome import NodeOutcome, StepRun, misconfigured, retry
from redline.workflow.engine.nodes.slack import SlackSender
from redline.workflow.engine.nodes.webhook import run_webhook
from redline.workflow.engine.templates import TemplateTooLarge

log = logging.getLogger("redline.workflow.runners")


class NodeRunners:
    def __init__(
        self,
        client: WebhookClient,
        *,
        brands: Sequence[str],
        mail: Mail | None,
        slack: SlackSender,
        agents: AgentRunner | None,
    ) -> None:
        self._client = client
        self._brands = tuple(brands)
        self._mail = mail
        self._slack = slack
        self._agents = agents

    async def close(self) -> None:
        if self._mail is not None:
            await self._mail.close()

    async def run(self, node: dict[str, Any], run: StepRun) -> NodeOutcome:
        """One attempt at the node; a fault on this side is a retryable failure, not a crash."""
        try:
            typed = msgspec.convert(node, Node)
            return await self._run(typed, run)
        except Exception:
            log.exception("step %s of %s could not be run", run.stepId, run.executionId)
            return retry(
                "internal",
                "the step could not be run; it will be tried again",
                {"reason": "internal", "retryClass": "retryable"},
            )

    async def _run(self, node: Node, run: StepRun) -> NodeOutcome:
        if isinstance(node, NotificationNode):
            try:
                return await run_notification(node.config, run, self._mail, self._slack)
            except TemplateTooLarge as exc:
                # The same template and context render the same again: no retry.
                return misconfigured(
                    "template-too-large",
                    f"the notification's message is not sent: {exc}",
                    channel=node.config.channel,
                )
        if isinstance(node, WebhookNode):
            return await run_webhook(
                node.config,
                run,
                self._client,
                self._brands,
                require_non_empty_output=node.requireNonEmptyOutput is True,
            )
        if isinstance(node, AgentNode):
            return await run_agent(node.config, run, self._agents, self._client)
        raise ValueError(f"{type(node).__name__} nodes are not run by workers")
