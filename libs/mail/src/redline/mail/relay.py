"""The SMTP relay as one setting: `REDLINE_SMTP_URL`.

    smtp://[user[:password]@]host[:port]            STARTTLS required (port 587 by default)
    smtps://[user[:password]@]host[:port]           TLS from the start (port 465 by default)
    smtp://host[:port]?security=none                in clear, for a relay on a trusted network
                                                    (port 25 by default)

User and password are percent-decoded (a password with `@` or `/` is written `%40`, `%2F`).
Errors name the setting and never repeat the password.
"""

from __future__ import annotations

from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

from redline.mail.sender import MailSender, Security

SETTING = "REDLINE_SMTP_URL"

_DEFAULT_PORT: dict[Security, int] = {"starttls": 587, "tls": 465, "none": 25}


class SmtpRelay(msgspec.Struct, frozen=True, kw_only=True):
    host: str
    port: int
    security: Security
    username: str | None = None
    password: str | None = None

    def __repr__(self) -> str:  # without the password
        return f"SmtpRelay(host={self.host!r}, port={self.port}, security={self.security!r})"


def parse_smtp_url(url: str) -> SmtpRelay:
    """The relay `url` names; ValueError naming the setting when it is not one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError(f"{SETTING} is not a URL with a valid port") from None
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"{SETTING} must start with smtp:// or smtps://")
    if not parts.hostname:
        raise ValueError(f"{SETTING} names no host")
    security = _security(parts.scheme, parts.query)
    return SmtpRelay(
        host=parts.hostname,
        port=port or _DEFAULT_PORT[security],
        security=security,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
    )


def _security(scheme: str, query: str) -> Security:
    options = parse_qs(query, keep_blank_values=True)
    unknown = set(options) - {"security"}
    if unknown:
        raise ValueError(f"{SETTING} has unknown options: {', '.join(sorted(unknown))}")
    if scheme == "smtps":
        if "security" in options:
            raise ValueError(f"{SETTING}: smtps:// is always TLS; drop ?security=")
        return "tls"
    wanted = options.get("security", ["starttls"])[-1]
    if wanted == "starttls":
        return "starttls"
    if wanted == "none":
        return "none"
    raise ValueError(f"{SETTING}: security must be starttls or none, not {wanted!r}")


def sender_for(
    url: str,
    *,
    from_address: str,
    timeout_s: float = 30.0,
    ca_file: str | None = None,
    connections: int = 4,
) -> MailSender:
    """A sender through the relay `url` names (see the module's docstring)."""
    relay = parse_smtp_url(url)
    return MailSender(
        host=relay.host,
        port=relay.port,
        from_address=from_address,
        username=relay.username,
        password=relay.password,
        security=relay.security,
        timeout_s=timeout_s,
        ca_file=ca_file,
        connections=connections,
    )
