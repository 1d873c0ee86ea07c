"""The URL map of Slack credentials: /v2/workflow/slack/config/update|get."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.workflow.app_keys import SLACK
from redline.workflow.slack import models


async def update(call: Call, request: models.UpdateSlackConfig) -> models.SlackConfigView:
    return await call.app[SLACK].update(call.api_key, request)


async def get(call: Call, request: models.GetSlackConfig) -> models.SlackConfigView:
    return await call.app[SLACK].get(call.api_key)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workflow/slack/config/update",
        update,
        models.UpdateSlackConfig,
        models.SlackConfigView,
        style=Style.PLAIN,
        summary="Set (or, with null, remove) the Slack bot token this API key's nodes post with",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/slack/config/get",
        get,
        models.GetSlackConfig,
        models.SlackConfigView,
        style=Style.PLAIN,
        summary="Whether this API key has a Slack bot token, with a hint (never the token)",
        tags=("workflow",),
    ),
]
