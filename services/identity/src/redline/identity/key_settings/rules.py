"""The pure rules of per-API-key configuration: trigger defaults, deep merge and seeding,
validation of webhook targets and keys, and domain normalisation. No I/O, so they are tested
without a database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from redline.envelope.errors import FailedPrecondition, InvalidArgument, Issue
from redline.identity.key_settings.storage import JsonObject, Section
from redline.webhooks import AddressGuard, BlockedTarget, load_public_key

# triggers --------------------------------------------------------------------------------------

# Comment events every consumer knows (the webhook triggers the API documents), without the
# suggestion pair.
STANDARD_COMMENT_TRIGGERS = (
    "comment_annotation.add",
    "comment.add",
    "comment.update",
    "comment.delete",
    "comment_annotation.status_change",
    "comment_annotation.assign",
    "comment_annotation.priority_change",
    "comment.reaction_add",
    "comment.reaction_delete",
)
SUGGESTION_TRIGGERS = (
    "comment_annotation.suggestion_accept",
    "comment_annotation.suggestion_reject",
)
# Names follow the action types those features report (a huddle is created or joined).
HUDDLE_TRIGGERS = ("huddle.created", "huddle.joined")
CRDT_TRIGGERS = ("crdt.update_data",)
RECORDER_TRIGGERS = ("recorder.recording_done", "recorder.transcription_done")

# Triggers a key may hold after merging (each request adds at most 100).
MAX_TRIGGERS = 200
# Allowed domains per API key: `domains/get` returns them all in one response.
MAX_DOMAINS = 1000


def default_webhook_triggers() -> dict[str, bool]:
    """Seeded on first enable of basic webhooks: suggestion, crdt and recorder triggers stay off
    (the suggestion pair until the caller turns them on explicitly)."""
    triggers = dict.fromkeys(STANDARD_COMMENT_TRIGGERS, True)
    triggers.update(dict.fromkeys(SUGGESTION_TRIGGERS, False))
    triggers.update(dict.fromkeys(HUDDLE_TRIGGERS, True))
    triggers.update(dict.fromkeys(CRDT_TRIGGERS + RECORDER_TRIGGERS, False))
    return triggers


def default_email_triggers() -> dict[str, bool]:
    """Seeded on first enable of the email service: the comment triggers and the huddle ones."""
    return dict.fromkeys(STANDARD_COMMENT_TRIGGERS + HUDDLE_TRIGGERS, True)


def default_activity_triggers() -> dict[str, bool]:
    """Seeded on first enable of activity logs: every comment trigger, suggestions included."""
    return dict.fromkeys(STANDARD_COMMENT_TRIGGERS + SUGGESTION_TRIGGERS, True)


def default_notification_triggers() -> dict[str, dict[str, bool]]:
    """Seeded on first enable of in-app notifications: the standard comment triggers and every
    huddle trigger on."""
    return {
        "comment": dict.fromkeys(STANDARD_COMMENT_TRIGGERS, True),
        "huddle": dict.fromkeys(HUDDLE_TRIGGERS, True),
    }


# merging and seeding ---------------------------------------------------------------------------


def deep_merge(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """`patch` over `base`: nested objects merge key by key, anything else is replaced."""
    merged = dict(base)
    for key, value in patch.items():
        current = merged.get(key)
        if isinstance(value, Mapping) and isinstance(current, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = value
    return merged


def merge_webhook(stored: JsonObject | None, patch: JsonObject) -> JsonObject:
    """The basic webhook document after `patch`.

    When the merged document has the service on and no triggers were stored yet, the defaults are
    seeded first and the stored fields, then the request, go over them.
    """
    current = stored or {}
    merged = deep_merge(current, patch)
    if merged.get("useWebhookService") is True:
        stored_settings = current.get("webhookServiceConfig")
        if not isinstance(stored_settings, Mapping):
            stored_settings = {}
        seed: dict[str, Any] = {}
        if "triggers" not in stored_settings:
            seed["triggers"] = default_webhook_triggers()
        if "enableDataProtection" not in stored_settings:
            seed["enableDataProtection"] = False
        if seed:
            merged = deep_merge({"webhookServiceConfig": seed}, merged)
    return merged


def _switches_of(triggers: Any, prefix: str) -> dict[str, bool]:
    """A trigger map's switches, each named `<prefix>.<trigger>`."""
    if not isinstance(triggers, Mapping):
        return {}
    return {f"{prefix}.{name}": on is True for name, on in triggers.items()}


def _triggers(settings: Any) -> Any:
    return settings.get("triggers") if isinstance(settings, Mapping) else None


def section_switches(section: Section, document: JsonObject | None) -> dict[str, bool]:
    """The on/off switches of one section's document, by the names `ApiKeyConfig.switchedAt`
    gives them (`webhook.useWebhookService`, `webhook.triggers.comment.add`, …). Sections
    without switches (app, permission provider) have none."""
    current = document or {}
    match section:
        case Section.WEBHOOK:
            settings = current.get("webhookServiceConfig")
            return {
                "webhook.useWebhookService": current.get("useWebhookService") is True
            } | _switches_of(_triggers(settings), "webhook.triggers")
        case Section.ADVANCED_WEBHOOK:
            return {"advancedWebhook.isEnabled": current.get("isEnabled") is True}
        case Section.ACTIVITY:
            return {"activity.isEnabled": current.get("isEnabled") is True} | _switches_of(
                _triggers(current), "activity.triggers"
            )
        case Section.EMAIL:
            settings = current.get("emailServiceConfig")
            return {"email.useEmailService": current.get("useEmailService") is True} | (
                _switches_of(_triggers(settings), "email.triggers")
            )
        case Section.NOTIFICATION:
            switches = {
                "notification.useNotificationService": current.get("useNotificationService") is True
            }
            groups = _triggers(current.get("notificationServiceConfig"))
            for group, triggers in (groups if isinstance(groups, Mapping) else {}).items():
                switches |= _switches_of(triggers, f"notification.triggers.{group}")
            return switches
        case Section.APP | Section.PERMISSION_PROVIDER:
            return {}


def switch_times(
    section: Section,
    before: JsonObject | None,
    after: JsonObject | None,
    switched: Mapping[str, int],
    now: int,
) -> dict[str, int]:
    """`switched` (when each switch last changed position) with the switches of `section` this
    change moved set to `now`. A switch never set counts as off.

    Activity logs say themselves since when they are on (`enabledTime`): while they are on, that
    is when their switch moved, so a time the caller gives counts as the switch's."""
    old, new = section_switches(section, before), section_switches(section, after)
    moved = {
        name for name in old.keys() | new.keys() if old.get(name, False) != new.get(name, False)
    }
    times = {**switched, **dict.fromkeys(sorted(moved), now)}
    enabled_time = (after or {}).get("enabledTime")
    if (
        section is Section.ACTIVITY
        and new["activity.isEnabled"]
        and isinstance(enabled_time, int)
        and enabled_time != (before or {}).get("enabledTime")
    ):
        times["activity.isEnabled"] = enabled_time
    return times


def merge_activity(stored: JsonObject | None, patch: JsonObject, now: int) -> JsonObject:
    """The activity document after `patch`.

    Enabling fills in what was never set: the comment triggers (suggestions on), `immutable`
    true and `enabledTime` now. A value stored earlier or sent now wins over the default, so
    `enabledTime` keeps the moment of the first enable across later updates.
    """
    current = stored or {}
    merged = deep_merge(current, patch)
    if merged.get("isEnabled") is True:
        seed: dict[str, Any] = {}
        if "triggers" not in current:
            seed["triggers"] = default_activity_triggers()
        if "immutable" not in current:
            seed["immutable"] = True
        if "enabledTime" not in current:
            seed["enabledTime"] = now
        merged = deep_merge(seed, merged)
    return merged


def merge_notification(stored: JsonObject | None, patch: JsonObject) -> JsonObject:
    """The in-app notification document after `patch`. Enabling the service when no triggers
    were stored seeds the default triggers; the stored fields, then the request, go over them.
    Delay and batching are never seeded."""
    current = stored or {}
    merged = deep_merge(current, patch)
    if merged.get("useNotificationService") is True:
        settings = current.get("notificationServiceConfig")
        if not isinstance(settings, Mapping) or "triggers" not in settings:
            seed = {"notificationServiceConfig": {"triggers": default_notification_triggers()}}
            merged = deep_merge(seed, merged)
    return merged


def check_notification(merged: JsonObject) -> None:
    """Raise INVALID_ARGUMENT when a trigger group holds more triggers than a key may."""
    settings = merged.get("notificationServiceConfig") or {}
    groups = settings.get("triggers") or {}
    issues: list[Issue] = []
    for group, triggers in groups.items():
        path = f"data.notificationServiceConfig.triggers.{group}"
        if isinstance(triggers, Mapping) and len(triggers) > MAX_TRIGGERS:
            message = f"a key holds at most {MAX_TRIGGERS} triggers per group"
            issues.append(Issue(code="invalid_length", path=path, message=message))
    if issues:
        raise InvalidArgument.from_issues(issues)


def merge_advanced_webhook(stored: JsonObject | None, patch: JsonObject) -> JsonObject:
    if stored is None and patch.get("isEnabled") is not True:
        # Turning the feature on is what creates its configuration.
        raise FailedPrecondition(
            "Advanced webhooks are not enabled for this API key: "
            "the first update must set isEnabled to true."
        )
    return deep_merge(stored or {}, patch)


# validation ------------------------------------------------------------------------------------


def url_problem(url: str, guard: AddressGuard) -> str | None:
    """Why `url` cannot receive webhooks, or None. The empty string clears a URL. The address
    guard's check needs no network; notify checks again, resolving the name, at each delivery."""
    if url == "":
        return None
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (parsing the port is the check)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "must be an http or https URL"
    if not parts.hostname:
        return "must name a host"
    if parts.username is not None or parts.password is not None:
        return "must not carry credentials (send them as authToken)"
    try:
        guard.check_url(url)
    except BlockedTarget as blocked:
        return f"is not a webhook target this deployment sends to: {blocked.reason}"
    return None


def _encryption_issues(
    settings: Mapping[str, Any], sent: Mapping[str, Any], path: str
) -> list[Issue]:
    """`settings` (after the merge) can encrypt: a usable key whenever encryption is on, and any
    key sent is one (a key stored now must work the day encryption is turned on)."""
    key = settings.get("publicKey") or ""
    encrypt = settings.get("encryptData") is True
    if encrypt and not key:
        return [
            Issue(
                code="missing_field",
                path=f"{path}.publicKey",
                message="publicKey is required when encryptData is true",
            )
        ]
    if key and (encrypt or sent.get("publicKey")):
        try:
            load_public_key(key)
        except ValueError as exc:
            return [Issue(code="invalid_value", path=f"{path}.publicKey", message=str(exc))]
    return []


def _trigger_issues(settings: Mapping[str, Any], path: str) -> list[Issue]:
    triggers = settings.get("triggers")
    if isinstance(triggers, Mapping) and len(triggers) > MAX_TRIGGERS:
        return [
            Issue(
                code="invalid_length",
                path=f"{path}.triggers",
                message=f"a key holds at most {MAX_TRIGGERS} triggers",
            )
        ]
    return []


def check_webhook(merged: JsonObject, patch: JsonObject, root: str, guard: AddressGuard) -> None:
    """Raise INVALID_ARGUMENT naming every problem of the basic webhook document."""
    path = f"{root}.webhookServiceConfig"
    sent = patch.get("webhookServiceConfig") or {}
    settings = merged.get("webhookServiceConfig") or {}
    issues: list[Issue] = []
    for field in ("rawNotificationUrl", "processedNotificationUrl"):
        if field in sent:
            problem = url_problem(sent[field], guard)
            if problem:
                issues.append(Issue(code="invalid_value", path=f"{path}.{field}", message=problem))
    issues += _encryption_issues(settings, sent, path)
    issues += _trigger_issues(settings, path)
    if issues:
        raise InvalidArgument.from_issues(issues)


def check_advanced_webhook(merged: JsonObject, patch: JsonObject) -> None:
    issues = _encryption_issues(merged, patch, "data")
    if issues:
        raise InvalidArgument.from_issues(issues)


def check_activity(merged: JsonObject) -> None:
    issues = _trigger_issues(merged, "data.activityServiceConfig")
    if issues:
        raise InvalidArgument.from_issues(issues)


def merge_email(stored: JsonObject | None, patch: JsonObject) -> JsonObject:
    """The email document after `patch`.

    Enabling (`useEmailService: true`, or `emailServiceConfig.type: "custom"`) while no triggers
    are stored seeds the defaults: the provider becomes `custom`, the default triggers go on and
    `useEmailService` true; the other stored fields stay, and the request goes over all of it.
    """
    current = stored or {}
    settings = current.get("emailServiceConfig")
    sent = patch.get("emailServiceConfig") or {}
    enabling = patch.get("useEmailService") is True or sent.get("type") == "custom"
    if enabling and not (isinstance(settings, Mapping) and "triggers" in settings):
        seed = {
            "useEmailService": True,
            "emailServiceConfig": {"type": "custom", "triggers": default_email_triggers()},
        }
        current = deep_merge(current, seed)
    return deep_merge(current, patch)


def check_email(merged: JsonObject) -> None:
    issues = _trigger_issues(merged.get("emailServiceConfig") or {}, "data.emailServiceConfig")
    if issues:
        raise InvalidArgument.from_issues(issues)
