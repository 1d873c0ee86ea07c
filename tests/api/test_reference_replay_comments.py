"""The reference's example requests for comments, activity logs and notifications, replayed as a
customer pasting them would, each group in a workspace of its own."""

from __future__ import annotations

from redline.testing.api import ApiClient, StartApi
from tests.api.replay_activity_samples import ACTIVITY_SAMPLES
from tests.api.replay_comments_samples import COMMENT_ANNOTATION_SAMPLES, COMMENT_SAMPLES
from tests.api.replay_notification_samples import NOTIFICATION_SAMPLES
from tests.api.replay_support import Replay, replay_client


async def test_comment_annotation_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(COMMENT_ANNOTATION_SAMPLES)


async def test_comment_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(COMMENT_SAMPLES)


async def test_activity_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(ACTIVITY_SAMPLES)


async def test_notification_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(NOTIFICATION_SAMPLES)
