"""The Slack sender on the real HTTPS test receiver: what it posts is the message's content to
the node's channel only, with the bot token of the execution's API key (or the shared one)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from redline.webhooks import WebhookClient
from redline.workflow.engine.nodes.outcome import DeliveryFailed
from redline.workflow.engine.nodes.slack import SlackSender
from services.workflow.tests.nodes_support import ScriptedReceiver, json_answer, receiver_and_client

POSTED = {"ok": True, "channel": "C0123", "ts": "1700.000100"}
# Fields a rendered message could carry to post elsewhere, in a thread, or as someone else.
ROUTING = {
    "channel": "C0ELSEWHERE",
    "thread_ts": "1699.000001",
    "reply_broadcast": True,
    "username": "The CEO",
    "icon_url": "https://example.com/ceo.png",
    "icon_emoji": ":crown:",
    "as_user": True,
}


class KeyTokens:
    """Bot tokens by API key, as the Slack credentials service gives them."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self.tokens = tokens
        self.asked: list[str] = []

    async def bot_token(self, api_key: str) -> str | None:
        self.asked.append(api_key)
        return self.tokens.get(api_key)


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[tuple[ScriptedReceiver, WebhookClient]]:
    async with receiver_and_client(tmp_path / "tls") as pair:
        yield pair


def sender(client: WebhookClient, receiver: ScriptedReceiver, **options: Any) -> SlackSender:
    return SlackSender(client, api_url=receiver.url("/api"), **options)


async def test_a_message_cannot_choose_its_channel_thread_or_sender(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer(POSTED))
    slack = sender(client, receiver, bot_token="xoxb-test-token")

    await slack.post("C0123", {"text": "Shipped.", **ROUTING}, api_key="key_1")
    await slack.post(receiver.url("/hook"), {"blocks": [], **ROUTING}, api_key="key_1")

    to_channel, to_webhook = receiver.requests
    assert to_channel.json() == {"text": "Shipped.", "channel": "C0123"}
    assert to_webhook.json() == {"blocks": []}


async def test_each_key_posts_with_its_own_token_and_a_key_without_one_posts_nothing(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers.append(json_answer(POSTED))
    tokens = KeyTokens({"key_1": "xoxb-key-one"})
    slack = sender(client, receiver, tokens=tokens)

    await slack.post("C0123", {"text": "hi"}, api_key="key_1")
    with pytest.raises(DeliveryFailed) as refused:
        await slack.post("C0123", {"text": "hi"}, api_key="key_2")

    [request] = receiver.requests
    assert request.headers["authorization"] == "Bearer xoxb-key-one"
    assert refused.value.code == "slack-bot-token-not-configured"
    assert refused.value.unsendable
    assert tokens.asked == ["key_1", "key_2"]


async def test_a_shared_token_posts_only_for_keys_without_their_own(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    receiver.answers += [json_answer(POSTED), json_answer(POSTED)]
    tokens = KeyTokens({"key_1": "xoxb-key-one"})
    slack = sender(client, receiver, tokens=tokens, bot_token="xoxb-shared")

    await slack.post("C0123", {"text": "hi"}, api_key="key_1")
    await slack.post("C0123", {"text": "hi"}, api_key="key_2")

    own, shared = receiver.requests
    assert own.headers["authorization"] == "Bearer xoxb-key-one"
    assert shared.headers["authorization"] == "Bearer xoxb-shared"


async def test_a_webhook_url_needs_no_token_and_asks_for_none(
    http: tuple[ScriptedReceiver, WebhookClient],
) -> None:
    receiver, client = http
    tokens = KeyTokens({})

    await sender(client, receiver, tokens=tokens).post(
        receiver.url("/hook"), {"text": "hi"}, api_key="key_1"
    )

    assert [r.path for r in receiver.requests] == ["/hook"]
    assert tokens.asked == []
