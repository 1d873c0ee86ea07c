"""The pure rules of per-API-key configuration: domain normalisation, deep merge, seeding of
defaults on first enable, and validation of webhook targets and encryption keys."""

from __future__ import annotations

import pytest

from redline.envelope.errors import FailedPrecondition, InvalidArgument
from redline.identity.key_settings import domains
from redline.identity.key_settings import rules as config
from redline.identity.key_settings.storage import Section

STANDARD = {
    "comment_annotation.add",
    "comment.add",
    "comment.update",
    "comment.delete",
    "comment_annotation.status_change",
    "comment_annotation.assign",
    "comment_annotation.priority_change",
    "comment.reaction_add",
    "comment.reaction_delete",
}
SUGGESTIONS = {"comment_annotation.suggestion_accept", "comment_annotation.suggestion_reject"}


def issue_paths(error: InvalidArgument) -> list[str]:
    assert error.details is not None
    return [issue["path"] for issue in error.details["issues"]]


# domains ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("example.com", "example.com"),
        ("https://www.Example.COM", "www.example.com"),
        ("http://app.example.com/", "app.example.com"),
        ("https://app.example.com/path/page?x=1#top", "app.example.com"),
        ("https://*.firebase.com", "*.firebase.com"),
        ("*.Example.org/", "*.example.org"),
        ("localhost:3000", "localhost"),
        ("http://localhost:5173/app", "localhost"),
        ("https://example.com:8443", "example.com"),
        ("  example.com.  ", "example.com"),
        ("//cdn.example.com/lib.js", "cdn.example.com"),
        ("http://127.0.0.1:8080", "127.0.0.1"),
        ("http://[::1]:3000/", "[::1]"),
        ("[2001:DB8:0:0::1]", "[2001:db8::1]"),
        ("bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_domains_are_cut_to_their_lowercase_host(raw: str, expected: str) -> None:
    assert domains.normalise_domain(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "https://",
        "ftp://files.example.com",
        "javascript://x",
        "user:pass@example.com",
        "*",
        "*.com",
        "app.*.example.com",
        "**.example.com",
        "ex ample.com",
        "-bad.example.com",
        "bad-.example.com",
        "under_score.example.com",
        "a" * 64 + ".example.com",
        "example.com:0",
        "example.com:65536",
        "example.com:http",
        "example.com:",
        "[::1",
        "[not-an-address]",
        "::1",
        "example..com",
    ],
)
def test_invalid_domains_are_rejected(raw: str) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        domains.normalise_domain(raw)


def test_normalising_a_list_collapses_duplicates_and_names_every_bad_entry() -> None:
    assert domains.normalise_domains(
        ["https://a.example.com", "A.example.com/x", "b.example.com"], "data.domains"
    ) == ["a.example.com", "b.example.com"]

    with pytest.raises(InvalidArgument) as caught:
        domains.normalise_domains(["ok.example.com", "ftp://x", "ok2.example.com", "*"], "data.d")
    assert issue_paths(caught.value) == ["data.d[1]", "data.d[3]"]


# deep merge ------------------------------------------------------------------------------------


ALLOWED = ["app.example.com", "*.preview.example.com", "[::1]", "localhost"]


@pytest.mark.parametrize(
    "origin",
    [
        "https://app.example.com",
        "http://app.example.com:8080",
        "https://APP.Example.com",
        "https://pr-1.preview.example.com",
        "https://a.b.preview.example.com",
        "http://[::1]:3000",
        "http://localhost:5173",
    ],
)
def test_an_origin_on_an_allowed_domain_is_allowed(origin: str) -> None:
    assert domains.allows_origin(ALLOWED, origin)


@pytest.mark.parametrize(
    "origin",
    [
        "https://preview.example.com",
        "https://www.app.example.com",
        "https://app.example.com.evil.test",
        "https://evilapp.example.com",
        "https://xpreview.example.com",
        "https://*.preview.example.com",
        "app.example.com",
        "ftp://app.example.com",
        "null",
        "",
    ],
)
def test_any_other_origin_is_not(origin: str) -> None:
    assert not domains.allows_origin(ALLOWED, origin)


def test_no_allowed_domains_allow_no_origin() -> None:
    assert not domains.allows_origin([], "http://localhost")


def test_deep_merge_merges_objects_key_by_key_and_replaces_everything_else() -> None:
    base = {"a": 1, "nested": {"keep": True, "change": 1, "deeper": {"x": 1}}, "list": [1, 2]}
    patch = {"nested": {"change": 2, "deeper": {"y": 2}}, "list": [3], "new": "v"}

    merged = config.deep_merge(base, patch)

    assert merged == {
        "a": 1,
        "nested": {"keep": True, "change": 2, "deeper": {"x": 1, "y": 2}},
        "list": [3],
        "new": "v",
    }
    assert base["nested"] == {"keep": True, "change": 1, "deeper": {"x": 1}}, "base untouched"


# basic webhooks ----------------------------------------------------------------------------------


def test_first_enable_of_webhooks_seeds_the_default_triggers() -> None:
    merged = config.merge_webhook(
        None,
        {
            "useWebhookService": True,
            "webhookServiceConfig": {"rawNotificationUrl": "https://hooks.example.com/raw"},
        },
    )

    settings = merged["webhookServiceConfig"]
    assert settings["rawNotificationUrl"] == "https://hooks.example.com/raw"
    assert settings["enableDataProtection"] is False
    triggers = settings["triggers"]
    assert {name for name, on in triggers.items() if on} == STANDARD | {
        "huddle.created",
        "huddle.joined",
    }
    assert {name for name, on in triggers.items() if not on} == SUGGESTIONS | {
        "crdt.update_data",
        "recorder.recording_done",
        "recorder.transcription_done",
    }


def test_request_triggers_go_over_the_seeded_defaults() -> None:
    merged = config.merge_webhook(
        None,
        {
            "useWebhookService": True,
            "webhookServiceConfig": {
                "triggers": {"comment.add": False, "comment_annotation.suggestion_accept": True},
                "enableDataProtection": True,
            },
        },
    )

    settings = merged["webhookServiceConfig"]
    assert settings["triggers"]["comment.add"] is False
    assert settings["triggers"]["comment_annotation.suggestion_accept"] is True
    assert settings["triggers"]["comment_annotation.suggestion_reject"] is False
    assert settings["triggers"]["comment.update"] is True
    assert settings["enableDataProtection"] is True


def test_stored_webhook_fields_survive_seeding_and_stored_triggers_prevent_it() -> None:
    stored = {
        "useWebhookService": False,
        "webhookServiceConfig": {"authToken": "secret", "triggers": {"comment.add": True}},
    }

    merged = config.merge_webhook(stored, {"useWebhookService": True})

    assert merged == {
        "useWebhookService": True,
        "webhookServiceConfig": {
            "authToken": "secret",
            "triggers": {"comment.add": True},
            "enableDataProtection": False,
        },
    }


def test_webhook_settings_without_enabling_seed_nothing() -> None:
    merged = config.merge_webhook(None, {"webhookServiceConfig": {"authToken": "t"}})

    assert merged == {"webhookServiceConfig": {"authToken": "t"}}


def test_a_later_webhook_update_merges_into_the_seeded_triggers() -> None:
    first = config.merge_webhook(None, {"useWebhookService": True})

    second = config.merge_webhook(
        first,
        {"webhookServiceConfig": {"triggers": {"comment_annotation.suggestion_reject": True}}},
    )

    expected = dict(first["webhookServiceConfig"]["triggers"])
    expected["comment_annotation.suggestion_reject"] = True
    assert second["webhookServiceConfig"]["triggers"] == expected
    assert second["useWebhookService"] is True


# activity logs -----------------------------------------------------------------------------------


def test_switch_times_record_only_the_switches_a_change_moved() -> None:
    before = {
        "useWebhookService": True,
        "webhookServiceConfig": {"triggers": {"comment.add": True, "comment.delete": False}},
    }
    after = {
        "useWebhookService": True,
        "webhookServiceConfig": {
            "triggers": {"comment.add": False, "comment.delete": False, "comment.update": True}
        },
    }
    earlier = {"webhook.useWebhookService": 100, "webhook.triggers.comment.add": 100}

    assert config.switch_times(Section.WEBHOOK, before, after, earlier, 500) == {
        "webhook.useWebhookService": 100,
        "webhook.triggers.comment.add": 500,
        "webhook.triggers.comment.update": 500,  # a trigger never set counted as off
    }


def test_the_first_webhook_settings_move_every_switch_they_turn_on() -> None:
    after = config.merge_webhook(None, {"useWebhookService": True})

    switched = config.switch_times(Section.WEBHOOK, None, after, {}, 700)

    assert switched["webhook.useWebhookService"] == 700
    on = {name for name, value in after["webhookServiceConfig"]["triggers"].items() if value}
    assert {name.removeprefix("webhook.triggers.") for name in switched} - {
        "webhook.useWebhookService"
    } == on


def test_every_section_names_its_switches_apart() -> None:
    documents = {
        Section.WEBHOOK: {
            "useWebhookService": True,
            "webhookServiceConfig": {"triggers": {"a": True}},
        },
        Section.ADVANCED_WEBHOOK: {"isEnabled": True},
        Section.ACTIVITY: {"isEnabled": True, "triggers": {"a": True}},
        Section.EMAIL: {"useEmailService": True, "emailServiceConfig": {"triggers": {"a": True}}},
        Section.NOTIFICATION: {
            "useNotificationService": True,
            "notificationServiceConfig": {"triggers": {"comment": {"a": True}, "huddle": {}}},
        },
    }

    names = {
        section: sorted(config.section_switches(section, document))
        for section, document in documents.items()
    }

    assert names == {
        Section.WEBHOOK: ["webhook.triggers.a", "webhook.useWebhookService"],
        Section.ADVANCED_WEBHOOK: ["advancedWebhook.isEnabled"],
        Section.ACTIVITY: ["activity.isEnabled", "activity.triggers.a"],
        Section.EMAIL: ["email.triggers.a", "email.useEmailService"],
        Section.NOTIFICATION: [
            "notification.triggers.comment.a",
            "notification.useNotificationService",
        ],
    }
    assert config.section_switches(Section.APP, {"anything": True}) == {}


def test_activity_logs_are_on_since_their_enabled_time() -> None:
    first = config.merge_activity(None, {"isEnabled": True}, now=1_000)
    moved_back = config.merge_activity(first, {"enabledTime": 400}, now=2_000)
    off = config.merge_activity(moved_back, {"isEnabled": False}, now=3_000)
    on_again = config.merge_activity(off, {"isEnabled": True}, now=4_000)

    switched = config.switch_times(Section.ACTIVITY, None, first, {}, 1_000)
    assert switched["activity.isEnabled"] == 1_000
    switched = config.switch_times(Section.ACTIVITY, first, moved_back, switched, 2_000)
    assert switched["activity.isEnabled"] == 400
    switched = config.switch_times(Section.ACTIVITY, moved_back, off, switched, 3_000)
    assert switched["activity.isEnabled"] == 3_000
    # Turned on again: on since then, although `enabledTime` keeps the first enable.
    switched = config.switch_times(Section.ACTIVITY, off, on_again, switched, 4_000)
    assert switched["activity.isEnabled"] == 4_000
    assert on_again["enabledTime"] == 400


def test_first_enable_of_activity_logs_seeds_triggers_immutable_and_enabled_time() -> None:
    merged = config.merge_activity(None, {"isEnabled": True}, now=1_700_000_000_000)

    assert merged == {
        "isEnabled": True,
        "immutable": True,
        "enabledTime": 1_700_000_000_000,
        "triggers": dict.fromkeys(STANDARD | SUGGESTIONS, True),
    }


def test_values_sent_on_first_enable_win_over_the_activity_defaults() -> None:
    merged = config.merge_activity(
        None,
        {
            "isEnabled": True,
            "immutable": False,
            "enabledTime": 5,
            "triggers": {"comment.add": False},
        },
        now=99,
    )

    assert merged["immutable"] is False
    assert merged["enabledTime"] == 5
    assert merged["triggers"]["comment.add"] is False
    assert merged["triggers"]["comment_annotation.suggestion_accept"] is True


def test_later_activity_updates_keep_enabled_time() -> None:
    first = config.merge_activity(None, {"isEnabled": True}, now=100)
    disabled = config.merge_activity(first, {"isEnabled": False}, now=200)
    enabled_again = config.merge_activity(disabled, {"isEnabled": True}, now=300)
    retuned = config.merge_activity(enabled_again, {"triggers": {"comment.delete": False}}, now=400)

    assert disabled["enabledTime"] == 100
    assert enabled_again["enabledTime"] == 100
    assert retuned["enabledTime"] == 100
    assert retuned["immutable"] is True
    assert retuned["triggers"]["comment.delete"] is False
    assert retuned["triggers"]["comment.add"] is True


def test_activity_settings_stored_before_the_first_enable_are_kept_and_the_rest_seeded() -> None:
    stored = config.merge_activity(None, {"triggers": {"comment.add": True}}, now=1)
    assert stored == {"triggers": {"comment.add": True}}

    enabled = config.merge_activity(stored, {"isEnabled": True}, now=2)

    assert enabled == {
        "isEnabled": True,
        "triggers": {"comment.add": True},
        "immutable": True,
        "enabledTime": 2,
    }


# advanced webhooks -------------------------------------------------------------------------------


def test_the_first_advanced_webhook_update_must_enable_it() -> None:
    with pytest.raises(FailedPrecondition):
        config.merge_advanced_webhook(None, {"encodeData": True})
    with pytest.raises(FailedPrecondition):
        config.merge_advanced_webhook(None, {"isEnabled": False})

    first = config.merge_advanced_webhook(None, {"isEnabled": True})
    later = config.merge_advanced_webhook(first, {"encodeData": True})

    assert later == {"isEnabled": True, "encodeData": True}


# email -----------------------------------------------------------------------------------------


def test_enabling_email_seeds_a_custom_provider_and_the_default_triggers() -> None:
    stored = {"emailServiceConfig": {"type": "sendgrid", "fromCompany": "Acme"}}

    merged = config.merge_email(stored, {"useEmailService": True})

    assert merged == {
        "useEmailService": True,
        "emailServiceConfig": {
            "type": "custom",
            "fromCompany": "Acme",
            "triggers": config.default_email_triggers(),
        },
    }
    assert set(config.default_email_triggers()) == set(
        config.STANDARD_COMMENT_TRIGGERS + config.HUDDLE_TRIGGERS
    )


def test_values_sent_with_the_first_email_enable_win_and_stored_triggers_prevent_seeding() -> None:
    sent = {"useEmailService": True, "emailServiceConfig": {"type": "sendgrid"}}

    first = config.merge_email(None, sent)
    again = config.merge_email(
        {"useEmailService": False, "emailServiceConfig": {"triggers": {"comment.add": False}}},
        {"emailServiceConfig": {"type": "custom"}},
    )

    assert first["emailServiceConfig"]["type"] == "sendgrid"
    assert first["emailServiceConfig"]["triggers"] == config.default_email_triggers()
    assert again == {
        "useEmailService": False,
        "emailServiceConfig": {"type": "custom", "triggers": {"comment.add": False}},
    }


def test_email_settings_without_enabling_seed_nothing() -> None:
    merged = config.merge_email(None, {"emailServiceConfig": {"fromEmail": "a@acme.dev"}})

    assert merged == {"emailServiceConfig": {"fromEmail": "a@acme.dev"}}


def test_too_many_email_triggers_are_refused_by_path() -> None:
    triggers = {f"t{n}": True for n in range(config.MAX_TRIGGERS + 1)}

    with pytest.raises(InvalidArgument) as refused:
        config.check_email({"emailServiceConfig": {"triggers": triggers}})

    details = refused.value.details or {}
    assert [i["path"] for i in details["issues"]] == ["data.emailServiceConfig.triggers"]
