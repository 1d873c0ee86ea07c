"""The URL map of Slack credentials: /v2/workflow/slack/config/update|get."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.workflow.app_keys import SLACK
from redline.workflow.slack import models
from redline.workflow.slack.service import SlackCredentials

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workflow/slack/config/update",
        SLACK,
        SlackCredentials.update,
        style=Style.PLAIN,
        summary="Set (or, with null, remove) the Slack bot token this API key's nodes post with",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/slack/config/get",
        SLACK,
        SlackCredentials.get,
        request=models.GetSlackConfig,
        style=Style.PLAIN,
        summary="Whether this API key has a Slack bot token, with a hint (never the token)",
        tags=("workflow",),
    ),
]
