"""Posting a notification to Slack: to an incoming-webhook URL, or to a channel id with the bot
token the operator configured (`chat.postMessage`). Both go through the guarded webhook client.

Slack names its errors (`channel_not_found`, `invalid_auth`, `no_service`...); they become the
step's error code (`slack-channel-not-found`). Configuration errors are terminal; rate limits,
Slack's own outages and network trouble are retryable. Messages never quote the webhook URL or
the token: the URL is itself a credential.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from redline.webhooks import Reply, WebhookClient, is_header_value
from redline.workflow.engine.nodes.outcome import DeliveryFailed, retry_after

SLACK_API_URL = "https://slack.com/api"

# Slack errors that another attempt may get past; every other one needs a person.
_RETRYABLE_ERRORS = frozenset(
    {
        "ratelimited",
        "rate_limited",
        "internal_error",
        "fatal_error",
        "service_unavailable",
        "request_timeout",
    }
)
# What a Slack error name looks like; anything else in a body is not quoted.
_ERROR_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_JSON = {"Content-Type": "application/json; charset=utf-8"}


class SlackPosted(msgspec.Struct, frozen=True, kw_only=True):
    """Where the message went: for `chat.postMessage`, the channel id and message timestamp
    Slack answered with (enough to reply in a thread); nothing more for a webhook."""

    channel: str | None = None
    ts: str | None = None


class _ApiAnswer(msgspec.Struct):
    ok: bool
    error: str | None = None
    channel: str | None = None
    ts: str | None = None


class SlackSender:
    """Posts messages to Slack through `client`.

    `bot_token` (`xoxb-...`) is needed only for channel-id targets. `api_url` is Slack's Web API
    base URL (another one for a proxy, or a local stand-in).
    """

    def __init__(
        self, client: WebhookClient, *, bot_token: str | None = None, api_url: str = SLACK_API_URL
    ) -> None:
        if bot_token is not None and (not bot_token or not is_header_value(bot_token)):
            raise ValueError("the Slack bot token must be printable ASCII")
        self._client = client
        self._bot_token = bot_token
        self._api_url = api_url.rstrip("/")

    def __repr__(self) -> str:  # without the token
        return f"SlackSender(bot_token={'set' if self._bot_token else 'unset'})"

    async def post(self, target: str, message: dict[str, Any]) -> SlackPosted:
        """Post `message` (`{"text": ...}` or `{"blocks": [...]}`) to `target`, an https
        incoming-webhook URL or a channel id; raise DeliveryFailed when Slack did not take it."""
        if target.startswith("https://"):
            return await self._post_to_webhook(target, message)
        if "://" in target:
            raise DeliveryFailed(
                "slack-target-invalid",
                "a Slack webhook URL must start with https://",
                retryable=False,
                unsendable=True,
            )
        return await self._post_to_channel(target, message)

    async def _post_to_webhook(self, url: str, message: dict[str, Any]) -> SlackPosted:
        reply = await self._client.request("POST", url, msgspec.json.encode(message), _JSON)
        if reply.outcome.ok:
            return SlackPosted()
        # Webhooks answer an error with its name as plain text (404 `no_service`).
        name = reply.body.decode("utf-8", "replace").strip()
        raise _http_failure(reply, name if _ERROR_NAME.fullmatch(name) else None)

    async def _post_to_channel(self, channel: str, message: dict[str, Any]) -> SlackPosted:
        if self._bot_token is None:
            raise DeliveryFailed(
                "slack-bot-token-not-configured",
                "posting to a Slack channel id needs a Slack bot token, and none is configured; "
                "use an incoming-webhook URL as slackTarget or configure a bot token",
                retryable=False,
                unsendable=True,
            )
        headers = {**_JSON, "Authorization": f"Bearer {self._bot_token}"}
        body = msgspec.json.encode({"channel": channel, **message})
        reply = await self._client.request(
            "POST", f"{self._api_url}/chat.postMessage", body, headers
        )
        if not reply.outcome.ok:
            raise _http_failure(reply, None)
        try:
            answer = msgspec.json.decode(reply.body, type=_ApiAnswer)
        except msgspec.DecodeError as exc:
            raise DeliveryFailed(
                "slack-invalid-answer",
                "Slack answered with something other than JSON",
                retryable=True,
            ) from exc
        if not answer.ok:
            raise _api_failure(answer.error, reply)
        return SlackPosted(channel=answer.channel, ts=answer.ts)


def _api_failure(error: str | None, reply: Reply) -> DeliveryFailed:
    name = error if error is not None and _ERROR_NAME.fullmatch(error) else "unknown_error"
    return DeliveryFailed(
        "slack-" + name.replace("_", "-"),
        f"Slack refused the message: {name}",
        retryable=name in _RETRYABLE_ERRORS,
        retry_after_s=retry_after(reply.headers.get("retry-after")),
    )


def _http_failure(reply: Reply, name: str | None) -> DeliveryFailed:
    outcome = reply.outcome
    if outcome.blocked:
        return DeliveryFailed(
            "slack-target-blocked",
            f"the Slack target is not allowed: {outcome.error}",
            retryable=False,
        )
    status = outcome.status
    if status is None:
        return DeliveryFailed(
            "slack-unavailable", f"Slack could not be reached: {outcome.error}", retryable=True
        )
    retryable = status >= 500 or status in (408, 429)
    code = "slack-" + name.replace("_", "-") if name else f"slack-http-{status}"
    said = f"{name} (HTTP {status})" if name else f"HTTP {status}"
    return DeliveryFailed(
        code,
        f"Slack refused the message: {said}",
        retryable=retryable,
        retry_after_s=retry_after(reply.headers.get("retry-after")),
    )
