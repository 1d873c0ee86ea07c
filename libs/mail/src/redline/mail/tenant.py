"""Mail sent for a workspace: what the workspace wrote is framed as its words.

The operator's relay sends from the operator's address, but the text (an invitation's
organization and inviter names, a notification's headline, a workflow's whole message) is a
tenant's. As mail-sending products do ("Acme via Slack"), the From display name is the
workspace's name followed by "via Redline", and the text ends with a line saying the workspace
wrote it, so a recipient can tell who to trust and whom to report. The workspace's name goes
on one line, cut to a length a mail client shows.
"""

from __future__ import annotations

import html

PRODUCT = "Redline"
_NAME_CHARS = 64


def _one_line(name: str) -> str:
    text = " ".join(name.split())
    return text if len(text) <= _NAME_CHARS else text[: _NAME_CHARS - 1].rstrip() + "…"


def display_name(workspace: str) -> str:
    """The From display name of mail sent for `workspace`: `<workspace> via Redline`."""
    return f"{_one_line(workspace)} via {PRODUCT}"


def written_by(workspace: str) -> str:
    """The line that ends the text of mail sent for `workspace`."""
    return (
        f"This message was written by {_one_line(workspace)}, a workspace on {PRODUCT}, and sent"
        f" on its behalf; {PRODUCT} did not write it."
    )


def with_written_by(body: str, workspace: str, *, as_html: bool) -> str:
    """`body` with the `written_by` line after it."""
    line = written_by(workspace)
    if as_html:
        return f"{body}\n<hr>\n<p><small>{html.escape(line)}</small></p>\n"
    return f"{body.rstrip()}\n\n--\n{line}\n"
