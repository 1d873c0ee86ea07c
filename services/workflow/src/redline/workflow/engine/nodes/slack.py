"""Posting a notification to Slack: to an incoming-webhook URL, or to a channel id with a bot
token (`chat.postMessage`). Both go through the guarded webhook client.

The bot token is the one the execution's API key set for itself (`/v2/workflow/slack/config`):
one tenant's nodes never post with another's token. The operator's token stands in only for keys
that set none, and only when the operator chose to share it (a deployment with one tenant).

What is posted is the message's content and nothing else: the channel is always the node's, so
no field of a rendered message can send it elsewhere, thread it under another message or change
who it appears to come from.

Slack names its errors (`channel_not_found`, `invalid_auth`, `no_service`...); they become the
step's error code (`slack-channel-not-found`). Configuration errors are terminal; rate limits,
Slack's own outages and network trouble are retryable. Messages never quote the webhook URL or
the token: the URL is itself a credential.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

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
# The fields of a message that are its content; any other (`channel`, `thread_ts`, `username`,
# `icon_url`, `as_user`...) says where or as whom to post, which is the node's to say.
CONTENT_FIELDS = frozenset(
    {"text", "blocks", "attachments", "mrkdwn", "unfurl_links", "unfurl_media"}
)


class BotTokens(Protocol):
    async def bot_token(self, api_key: str) -> str | None:
        """The API key's own Slack bot token, or None when it set none."""
        ...


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

    Channel-id targets need a bot token (`xoxb-...`): the API key's own, from `tokens`, else
    `bot_token`, the one every key without its own shares (None: none is shared). `api_url` is
    Slack's Web API base URL (another one for a proxy, or a local stand-in).
    """

    def __init__(
        self,
        client: WebhookClient,
        *,
        tokens: BotTokens | None = None,
        bot_token: str | None = None,
        api_url: str = SLACK_API_URL,
    ) -> None:
        if bot_token is not None and (not bot_token or not is_header_value(bot_token)):
            raise ValueError("the Slack bot token must be printable ASCII")
        self._client = client
        self._tokens = tokens
        self._bot_token = bot_token
        self._api_url = api_url.rstrip("/")

    def __repr__(self) -> str:  # without the token
        return f"SlackSender(shared_bot_token={'set' if self._bot_token else 'unset'})"

    async def post(self, target: str, message: dict[str, Any], *, api_key: str) -> SlackPosted:
        """Post the content of `message` (`{"text": ...}` or `{"blocks": [...]}`) to `target`,
        an https incoming-webhook URL or a channel id, for the execution of `api_key`; raise
        DeliveryFailed when Slack did not take it."""
        content = {name: value for name, value in message.items() if name in CONTENT_FIELDS}
        if target.startswith("https://"):
            return await self._post_to_webhook(target, content)
        if "://" in target:
            raise DeliveryFailed(
                "slack-target-invalid",
                "a Slack webhook URL must start with https://",
                retryable=False,
                unsendable=True,
            )
        return await self._post_to_channel(target, content, await self._token_for(api_key))

    async def _token_for(self, api_key: str) -> str | None:
        own = None if self._tokens is None else await self._tokens.bot_token(api_key)
        return own if own is not None else self._bot_token

    async def _post_to_webhook(self, url: str, message: dict[str, Any]) -> SlackPosted:
        reply = await self._client.request("POST", url, msgspec.json.encode(message), _JSON)
        if reply.outcome.ok:
            return SlackPosted()
        # Webhooks answer an error with its name as plain text (404 `no_service`).
        name = reply.body.decode("utf-8", "replace").strip()
        raise _http_failure(reply, name if _ERROR_NAME.fullmatch(name) else None)

    async def _post_to_channel(
        self, channel: str, message: dict[str, Any], token: str | None
    ) -> SlackPosted:
        if token is None:
            raise DeliveryFailed(
                "slack-bot-token-not-configured",
                "posting to a Slack channel id needs a Slack bot token, and this API key has "
                "none; use an incoming-webhook URL as slackTarget or set the key's bot token "
                "with /v2/workflow/slack/config/update",
                retryable=False,
                unsendable=True,
            )
        headers = {**_JSON, "Authorization": f"Bearer {token}"}
        # The node's channel last: it is the one Slack reads, whatever the message held.
        body = msgspec.json.encode({**message, "channel": channel})
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
