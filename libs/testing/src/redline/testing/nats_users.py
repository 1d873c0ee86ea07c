"""The deployment's NATS users on a test's NATS server, so that a missing permission fails tests.

The Kubernetes deployment gives each service a NATS user allowed only the subjects it uses
(k8s/base/infra/nats/users.conf). The split topology runs that very file: each service connects
as its own user, with a password made up for the run, and the test harness connects as a user of
its own with every right (it publishes events and calls RPCs as any service would). A subject the
code uses but the file does not allow is refused by the server, the refusal is logged as an error
by the service, and `violations` finds it in the services' logs.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

USERS_FILE = Path("k8s/base/infra/nats/users.conf")
HARNESS_USER = "redline-test"
_HARNESS_PASSWORD_VARIABLE = "REDLINE_TEST_NATS_PASSWORD"  # noqa: S105 (names the variable)
_USERS_LIST = "users = ["
_USER = re.compile(r"^\s*user:\s*(?P<user>[\w-]+)\s*\n\s*password:\s*\$(?P<variable>\w+)", re.M)
# How a service logs the server's refusal (see redline.bus.connect); nats-py lower-cases it.
_VIOLATION = re.compile(r"permissions violation for (?P<what>[^\"]*\"[^\"]*\")", re.I)


@dataclass(frozen=True)
class NatsUsers:
    config_file: Path
    # The server's environment: the passwords its configuration refers to.
    server_environ: dict[str, str]
    passwords: dict[str, str]

    def url(self, server_url: str, user: str) -> str:
        """`server_url` with `user`'s name and password in it."""
        parts = urlsplit(server_url)
        return urlunsplit(parts._replace(netloc=f"{user}:{self.passwords[user]}@{parts.netloc}"))


def nats_users(users_file: Path, directory: Path) -> NatsUsers:
    """A nats-server configuration in `directory`: `users_file`'s users with fresh passwords,
    and the harness's user. Raises if the file names no user or has no single users list."""
    text = users_file.read_text()
    found = {m["user"]: m["variable"] for m in _USER.finditer(text)}
    if not found or text.count(_USERS_LIST) != 1:
        raise RuntimeError(f"{users_file}: expected one `{_USERS_LIST}` of users with passwords")
    harness = f"    {{user: {HARNESS_USER}, password: ${_HARNESS_PASSWORD_VARIABLE}}}\n"
    text = text.replace(_USERS_LIST, _USERS_LIST + "\n" + harness, 1)
    directory.mkdir(parents=True, exist_ok=True)
    config_file = directory / "nats-users.conf"
    config_file.write_text(text)
    variables = {**found, HARNESS_USER: _HARNESS_PASSWORD_VARIABLE}
    passwords = {user: secrets.token_hex(16) for user in variables}
    environ = {**os.environ, **{variables[user]: pw for user, pw in passwords.items()}}
    return NatsUsers(config_file, environ, passwords)


def violations(log_dir: Path) -> list[str]:
    """What the server refused each service, from the services' logs in `log_dir`: one line
    per service and refused publish or subscription."""
    found: list[str] = []
    for log in sorted(log_dir.glob("*.log")):
        text = log.read_text(errors="replace").replace('\\"', '"')
        refused = dict.fromkeys(m["what"] for m in _VIOLATION.finditer(text))
        found += [f"{log.stem}: {what}" for what in refused]
    return found
