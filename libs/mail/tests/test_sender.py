"""The mail client against a real SMTP server on this machine: kept connections, the sender's
display name and reply address, and failures that never show the password."""

from __future__ import annotations

import pytest

from redline.local.processes import free_port
from redline.mail import MailFailed, MailSender, sender_for
from redline.testing.mail import HOST, smtp_server

FROM = "Redline <mail@redline.test>"


def sender(port: int) -> MailSender:
    return sender_for(f"smtp://{HOST}:{port}?security=none", from_address=FROM, timeout_s=5)


async def test_messages_share_a_kept_connection_and_a_closed_one_is_opened_again() -> None:
    with smtp_server() as (mailbox, port):
        client = sender(port)
        for n in range(3):
            sent = await client.send(["lead@acme.dev"], f"Run {n}", "body")
            assert sent.delivered == ["lead@acme.dev"]
        assert mailbox.greetings == 1
        await client.close()
        sent = await client.send(["lead@acme.dev"], "After close", "body")
        assert sent.delivered == ["lead@acme.dev"]
        assert mailbox.greetings == 2
        assert [m.message["Subject"] for m in mailbox.mail] == [
            "Run 0",
            "Run 1",
            "Run 2",
            "After close",
        ]
        await client.close()


async def test_mail_for_a_workspace_is_framed_as_the_workspaces_words() -> None:
    with smtp_server() as (mailbox, port):
        client = sender(port)
        await client.send(
            ["ada@acme.dev"], "Hello", "body", for_workspace="Acme Café", reply_to="help@acme.dev"
        )
        await client.send(["ada@acme.dev"], "Hi", "<p>body</p>", html=True, for_workspace="<Acme>")
        await client.close()

    plain, marked_up = mailbox.mail
    assert plain.sender == "mail@redline.test"
    assert plain.message["From"].addresses[0].display_name == "Acme Café via Redline"
    assert plain.message["From"].addresses[0].addr_spec == "mail@redline.test"
    assert plain.message["Reply-To"] == "help@acme.dev"
    text = plain.message.get_body(("plain",)).get_content()
    assert text.startswith("body\n")
    assert text.rstrip().endswith(
        "This message was written by Acme Café, a workspace on Redline, and sent on its behalf;"
        " Redline did not write it."
    )
    markup = marked_up.message.get_body(("html",)).get_content()
    assert "written by &lt;Acme&gt;, a workspace on Redline" in markup


async def test_a_long_workspace_name_is_cut_to_one_short_line() -> None:
    with smtp_server() as (mailbox, port):
        client = sender(port)
        await client.send(["ada@acme.dev"], "Hello", "body", for_workspace="Acme\n" + "x" * 200)
        await client.close()

    name = mailbox.mail[0].message["From"].addresses[0].display_name
    assert name.endswith("… via Redline")
    assert len(name) <= 64 + len(" via Redline")
    assert "\n" not in name


async def test_refused_recipients_are_reported_beside_those_delivered() -> None:
    with smtp_server(refused={"gone@acme.dev"}) as (mailbox, port):
        client = sender(port)
        sent = await client.send(["ada@acme.dev", "gone@acme.dev"], "Hello", "body")
        await client.close()

    assert sent.delivered == ["ada@acme.dev"]
    assert list(sent.refused) == ["gone@acme.dev"]
    assert sent.refused["gone@acme.dev"].startswith("550")
    assert mailbox.mail[0].recipients == ["ada@acme.dev"]


async def test_an_unreachable_server_is_a_retryable_failure_without_its_address() -> None:
    port = free_port(HOST)
    client = sender(port)

    with pytest.raises(MailFailed) as failure:
        await client.send(["ada@acme.dev"], "Hello", "body")

    assert failure.value.code == "smtp-unavailable"
    assert failure.value.retryable
    assert str(port) not in failure.value.message


async def test_a_refused_login_is_terminal_and_the_password_is_not_shown() -> None:
    with smtp_server(login=True) as (mailbox, port):
        client = sender_for(
            f"smtp://relay:hunter2-password@{HOST}:{port}?security=none",
            from_address=FROM,
            timeout_s=5,
        )
        with pytest.raises(MailFailed) as failure:
            await client.send(["ada@acme.dev"], "Hello", "body")

    assert failure.value.code == "smtp-auth-failed"
    assert not failure.value.retryable
    assert "hunter2" not in failure.value.message
    assert "hunter2" not in repr(client)
    assert mailbox.mail == []
