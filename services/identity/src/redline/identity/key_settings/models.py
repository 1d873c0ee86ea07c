"""Per-API-key configuration: allowed domains, basic and advanced webhooks, activity logs.

Update requests are partial: a field left out (or sent as null) keeps its stored value.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.identity.fields import Name, Request, Url
from redline.webhooks import HEADER_VALUE_PATTERN

# Entries may carry a scheme, a port and a path; they are cut down to a host name afterwards.
DomainInput = Annotated[str, Meta(min_length=1, max_length=1024)]
DomainInputs = Annotated[list[DomainInput], Meta(min_length=1, max_length=100)]

TriggerName = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]
Triggers = Annotated[dict[TriggerName, bool], Meta(max_length=100)]
# Sent as `Authorization: Basic <authToken>`: a header value.
WebhookAuthToken = Annotated[str, Meta(max_length=1024, pattern=f"^{HEADER_VALUE_PATTERN}$")]
# A 4096-bit RSA key is about 800 characters in PEM; the bound leaves room for longer keys.
PublicKey = Annotated[str, Meta(max_length=16384)]
# Up to the year 9999, in ms.
EpochMs = Annotated[int, Meta(ge=0, le=253_402_300_799_999)]


# allowed domains -------------------------------------------------------------------------------


class DomainsChange(Request):
    domains: DomainInputs


class AllowedDomains(msgspec.Struct):
    # The reference's name for the list, and the same list under the name Redline first gave it.
    allowedDomains: list[str]
    domains: list[str]


class DomainsAdded(msgspec.Struct):
    domainsAdded: list[str]


class DomainsRemoved(msgspec.Struct):
    domainsRemoved: list[str]


# basic webhooks --------------------------------------------------------------------------------


class WebhookServiceConfig(Request):
    authToken: WebhookAuthToken | None = None
    # "" clears a URL.
    rawNotificationUrl: Url | None = None
    processedNotificationUrl: Url | None = None
    encodeData: bool | None = None
    encryptData: bool | None = None
    publicKey: PublicKey | None = None
    triggers: Triggers | None = None
    enableDataProtection: bool | None = None


class UpdateWebhookConfig(Request):
    __openapi_any_of__ = (("useWebhookService",), ("webhookServiceConfig",))

    useWebhookService: bool | None = None
    webhookServiceConfig: WebhookServiceConfig | None = None


class WebhookServiceSettings(msgspec.Struct):
    """Stored basic webhook settings, every field present ("" for a value never set)."""

    authToken: str = ""
    rawNotificationUrl: str = ""
    processedNotificationUrl: str = ""
    encodeData: bool = False
    encryptData: bool = False
    publicKey: str = ""
    triggers: dict[str, bool] = msgspec.field(default_factory=dict)
    enableDataProtection: bool = False


class WebhookConfig(msgspec.Struct):
    useWebhookService: bool = False
    webhookServiceConfig: WebhookServiceSettings = msgspec.field(
        default_factory=WebhookServiceSettings
    )


# advanced webhooks -----------------------------------------------------------------------------


class UpdateAdvancedWebhookConfig(Request):
    __openapi_any_of__ = tuple(
        (name,)
        for name in ("isEnabled", "encryptData", "encodeData", "publicKey", "enableDataProtection")
    )

    isEnabled: bool | None = None
    encryptData: bool | None = None
    encodeData: bool | None = None
    publicKey: PublicKey | None = None
    enableDataProtection: bool | None = None


class AdvancedWebhookConfig(msgspec.Struct):
    isEnabled: bool = False
    encryptData: bool = False
    encodeData: bool = False
    publicKey: str = ""
    enableDataProtection: bool = False


# email -----------------------------------------------------------------------------------------

EmailProvider = Literal["default", "sendgrid", "custom"]
# "" clears the address.
FromEmail = Annotated[str, Meta(max_length=320, pattern=r"^$|^[^@\s]+@[^@\s]+$")]
ProviderKey = Annotated[str, Meta(max_length=1024)]
TemplateId = Annotated[str, Meta(max_length=256)]


class EmailServiceConfig(Request):
    type: EmailProvider | None = None
    apiKey: ProviderKey | None = None
    fromEmail: FromEmail | None = None
    fromCompany: Name | None = None
    commentTemplateId: TemplateId | None = None
    tagTemplateId: TemplateId | None = None
    triggers: Triggers | None = None


class UpdateEmailConfig(Request):
    __openapi_any_of__ = (("useEmailService",), ("emailServiceConfig",))

    useEmailService: bool | None = None
    emailServiceConfig: EmailServiceConfig | None = None


class EmailServiceSettings(msgspec.Struct):
    """Stored email settings, every field present ("" for a value never set); `triggers` once
    set (on first enable at the latest)."""

    type: str = "default"
    apiKey: str = ""
    fromEmail: str = ""
    fromCompany: str = ""
    commentTemplateId: str = ""
    tagTemplateId: str = ""
    triggers: dict[str, bool] | UnsetType = UNSET


class EmailConfig(msgspec.Struct):
    useEmailService: bool = False
    emailServiceConfig: EmailServiceSettings = msgspec.field(default_factory=EmailServiceSettings)


# activity logs ---------------------------------------------------------------------------------


class ActivityServiceConfig(Request):
    __openapi_any_of__ = (("isEnabled",), ("enabledTime",), ("immutable",), ("triggers",))

    isEnabled: bool | None = None
    enabledTime: EpochMs | None = None
    immutable: bool | None = None
    triggers: Triggers | None = None


class UpdateActivityConfig(Request):
    activityServiceConfig: ActivityServiceConfig


class ActivityServiceSettings(msgspec.Struct):
    """`isEnabled` is always there; the rest only once set (on first enable at the latest)."""

    isEnabled: bool = False
    enabledTime: int | UnsetType = UNSET
    immutable: bool | UnsetType = UNSET
    triggers: dict[str, bool] | UnsetType = UNSET


class ActivityConfig(msgspec.Struct):
    activityServiceConfig: ActivityServiceSettings = msgspec.field(
        default_factory=ActivityServiceSettings
    )


# in-app notifications --------------------------------------------------------------------------

# The hosted reference's bounds on delay and batching (seconds, activities).
DelaySeconds = Annotated[int, Meta(ge=10, le=15_552_000)]
BatchWindowSeconds = Annotated[int, Meta(ge=10, le=604_800)]
MaxActivities = Annotated[int, Meta(ge=2, le=50)]


class NotificationTriggers(Request):
    """Trigger groups: each maps an event type to whether it notifies."""

    comment: Triggers | None = None
    huddle: Triggers | None = None


class DelayConfig(Request):
    isEnabled: bool | None = None
    delaySeconds: DelaySeconds | None = None


class BatchSettings(Request):
    isEnabled: bool | None = None
    batchWindowSeconds: BatchWindowSeconds | None = None
    maxActivities: MaxActivities | None = None


class BatchConfig(Request):
    document: BatchSettings | None = None
    user: BatchSettings | None = None


class NotificationServiceConfig(Request):
    triggers: NotificationTriggers | None = None
    delayConfig: DelayConfig | None = None
    batchConfig: BatchConfig | None = None


class UpdateNotificationConfig(Request):
    __openapi_any_of__ = (("useNotificationService",), ("notificationServiceConfig",))

    useNotificationService: bool | None = None
    notificationServiceConfig: NotificationServiceConfig | None = None


class DelaySettings(msgspec.Struct):
    isEnabled: bool = False
    delaySeconds: int = 10


class BatchWindow(msgspec.Struct):
    isEnabled: bool = False
    batchWindowSeconds: int = 10
    maxActivities: int = 2


class BatchWindows(msgspec.Struct):
    document: BatchWindow = msgspec.field(default_factory=BatchWindow)
    user: BatchWindow = msgspec.field(default_factory=BatchWindow)


class NotificationServiceSettings(msgspec.Struct):
    """Stored settings with the defaults filled in; trigger groups present even when empty."""

    triggers: dict[str, dict[str, bool]] = msgspec.field(
        default_factory=lambda: {"comment": {}, "huddle": {}}
    )
    delayConfig: DelaySettings = msgspec.field(default_factory=DelaySettings)
    batchConfig: BatchWindows = msgspec.field(default_factory=BatchWindows)


class NotificationConfig(msgspec.Struct):
    useNotificationService: bool = False
    notificationServiceConfig: NotificationServiceSettings = msgspec.field(
        default_factory=NotificationServiceSettings
    )
