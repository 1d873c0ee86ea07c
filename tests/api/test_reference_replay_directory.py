"""The reference's example requests for the directory, replayed as a customer pasting them would."""

from __future__ import annotations

from redline.testing.api import ApiClient, StartApi
from tests.api.replay_directory_samples import SAMPLES
from tests.api.replay_support import Replay, replay_client


async def test_directory_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(SAMPLES)
