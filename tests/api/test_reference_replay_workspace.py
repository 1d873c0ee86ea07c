"""The reference's example requests for the workspace and `/v2/auth`, replayed as a customer
pasting them would."""

from __future__ import annotations

from redline.testing.api import ApiClient, StartApi
from tests.api.mail_support import api_with_relay, link_in, open_link
from tests.api.replay_support import BRANDS, Replay, replay_client
from tests.api.replay_workspace_samples import OWNER_MAIL, SAMPLES


async def test_workspace_examples_answer_as_the_reference_shows(
    target_url: str | None, start_api: StartApi, api: ApiClient
) -> None:
    replay = await Replay.start(await replay_client(target_url, start_api, api))
    await replay.assert_answers(SAMPLES)


async def test_owner_mail_examples_answer_as_the_reference_shows(start_api: StartApi) -> None:
    # The mail pages need an SMTP relay, which the split topology runs without (there they would
    # all answer FAILED_PRECONDITION naming the relay setting and show nothing of the pages'
    # answers). So this part always runs on the app in this process, with a real SMTP server on
    # this machine as its relay, whatever the target.
    # The page's continueUrl is the hosted console; Redline redirects only to the hosts its
    # operator lists, here that console's beside the default localhost.
    async def start_with_brands(**changes: object) -> ApiClient:
        return await start_api(
            header_brands=BRANDS,
            login_continue_hosts=["console.velt.dev", "localhost"],
            **changes,
        )

    async with api_with_relay(start_with_brands) as (api, mailbox):
        replay = await Replay.start(api)
        await replay.assert_answers(OWNER_MAIL)
        [mail] = await mailbox.wait_for(1)
        assert mail.recipients == ["owner@example.com"]
        # The status page's first example answer: verified once the mailed link was used.
        used = await open_link(api, link_in(mail), method="POST")
        assert used.status == 303, used.text
        status = await replay.send(OWNER_MAIL[0])
        assert status.result["message"] == "Email verified and workspace reactivated"
        assert status.data == {"verified": True}
