"""The nodes of a definition and their configs, one tagged Struct per node `type`.

Optional fields default to UNSET, so an explicit null is refused and a read echoes exactly what
was authored. The defaults that matter at run time are not stored: each config says what it
means when a field was left out (the `effective_*` properties), and the engine asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from msgspec import UNSET, Meta, UnsetType

from redline.envelope import Request
from redline.workflow.engine.expressions import lookup

NodeId = Annotated[str, Meta(min_length=1, max_length=64)]
Name = Annotated[str, Meta(min_length=1, max_length=200)]
Description = Annotated[str, Meta(max_length=2000)]
# Caller-supplied ids (user ids, agent ids) are kept as given, 1 to 256 characters.
ExternalId = Annotated[str, Meta(min_length=1, max_length=256)]
Email = Annotated[str, Meta(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+\Z")]
# An HTTP token. Which names are reserved, and that values are printable ASCII, is the linter's
# to say, so that it can name the rule.
HeaderName = Annotated[
    str, Meta(min_length=1, max_length=256, pattern=r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")
]
HeaderValue = Annotated[str, Meta(max_length=4096)]
HttpsUrl = Annotated[str, Meta(min_length=1, max_length=2000)]

SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000
ONE_DAY_MS = 24 * 60 * 60 * 1000
SlaMs = Annotated[int, Meta(ge=1, le=SEVEN_DAYS_MS)]

NodeType = Literal["human", "agent", "webhook", "notification"]


class Reviewer(Request):
    userId: ExternalId
    mandatory: bool


# The linter's rule that a reviewers list names a mandatory reviewer, in the schema. An empty list,
# which the linter reads as left out, does not fit it: a client leaves the field out instead.
_A_MANDATORY_REVIEWER = {
    "contains": {
        "type": "object",
        "required": ["mandatory"],
        "properties": {"mandatory": {"const": True}},
    }
}


class HumanConfig(Request):
    """Exactly one of `reviewers` and the legacy `reviewerIds` (the linter says so)."""

    __openapi_any_of__ = (("reviewers",), ("reviewerIds",))
    __openapi_exclusive__ = (("reviewers", "reviewerIds"),)
    __openapi_rule__ = "Reviewers are named once each, and at least one of them is mandatory."

    reviewers: (
        Annotated[list[Reviewer], Meta(max_length=100, extra_json_schema=_A_MANDATORY_REVIEWER)]
        | UnsetType
    ) = UNSET
    reviewerIds: Annotated[list[ExternalId], Meta(max_length=100)] | UnsetType = UNSET
    reviewerEmails: Annotated[list[Email], Meta(max_length=50)] | UnsetType = UNSET
    commentBody: Annotated[str, Meta(max_length=8000)] | UnsetType = UNSET

    @property
    def effective_reviewers(self) -> list[Reviewer]:
        """The reviewers, legacy `reviewerIds` read as mandatory ones."""
        if self.reviewers:
            return list(self.reviewers)
        if self.reviewerIds:
            return [Reviewer(userId=user_id, mandatory=True) for user_id in self.reviewerIds]
        return []


class AgentConfig(Request):
    __openapi_any_of__ = (("url",), ("urlPath",))
    __openapi_rule__ = "url is an absolute http(s) URL; blocking true needs a resolutionPolicy."

    agentId: ExternalId
    # The page the agent runs against; `url` wins over `urlPath` when both are set.
    url: HttpsUrl | UnsetType = UNSET
    urlPath: Annotated[str, Meta(min_length=1, max_length=500)] | UnsetType = UNSET
    crossPageExecute: bool | UnsetType = UNSET
    maxUrlsToProcess: Annotated[int, Meta(ge=1, le=500)] | UnsetType = UNSET
    userContextMapping: (
        Annotated[
            dict[Annotated[str, Meta(max_length=256)], Annotated[str, Meta(max_length=500)]],
            Meta(max_length=100),
        ]
        | UnsetType
    ) = UNSET
    promptOverride: Annotated[str, Meta(max_length=8000)] | UnsetType = UNSET
    inputMapping: dict[str, Any] | UnsetType = UNSET
    pollIntervalMs: Annotated[int, Meta(ge=5000, le=60000)] | UnsetType = UNSET
    agentMaxRuntimeMs: Annotated[int, Meta(ge=1, le=ONE_DAY_MS)] | UnsetType = UNSET
    blocking: bool | UnsetType = UNSET
    # Accepted in whatever shape a caller sends: it only unlocks `blocking`, which never runs.
    resolutionPolicy: dict[str, Any] | str | UnsetType = UNSET
    requireNonEmptyOutput: bool | UnsetType = UNSET

    @property
    def effective_poll_interval_ms(self) -> int:
        return 15000 if isinstance(self.pollIntervalMs, UnsetType) else self.pollIntervalMs

    @property
    def effective_max_runtime_ms(self) -> int:
        return 600000 if isinstance(self.agentMaxRuntimeMs, UnsetType) else self.agentMaxRuntimeMs

    @property
    def effective_cross_page_execute(self) -> bool:
        return self.crossPageExecute is True

    def resolve_url(self, trigger_context: Mapping[str, Any]) -> str | None:
        """The page to run against: the static `url`, else the string `urlPath` names in the
        trigger context, given `https://` when it has no scheme; None when neither yields one."""
        if not isinstance(self.url, UnsetType):
            return self.url
        if isinstance(self.urlPath, UnsetType):
            return None
        value = lookup(trigger_context, self.urlPath.split("."))
        if not isinstance(value, str) or not value.strip():
            return None
        value = value.strip()
        if value.lower().startswith(("http://", "https://")):
            return value
        return "https://" + value


class WebhookNodeConfig(Request):
    __openapi_rule__ = (
        'authMode "token" needs authTokenHeader; bodyTemplate "none" needs method "GET". '
        "Headers the engine sets itself are reserved."
    )

    url: HttpsUrl
    mode: Literal["sync", "async"] | UnsetType = UNSET
    method: Literal["GET", "POST"] | UnsetType = UNSET
    authMode: Literal["hmac", "token", "none"] | UnsetType = UNSET
    authTokenHeader: HeaderName | UnsetType = UNSET
    timeoutMs: Annotated[int, Meta(ge=1000, le=60000)] | UnsetType = UNSET
    expectedStatusCodes: (
        Annotated[list[Annotated[int, Meta(ge=100, le=599)]], Meta(max_length=20)] | UnsetType
    ) = UNSET
    bodyTemplate: Literal["envelope", "pass-through", "none"] | UnsetType = UNSET
    requestHeaders: Annotated[dict[HeaderName, HeaderValue], Meta(max_length=50)] | UnsetType = (
        UNSET
    )

    @property
    def effective_mode(self) -> Literal["sync", "async"]:
        return "sync" if isinstance(self.mode, UnsetType) else self.mode

    @property
    def effective_method(self) -> Literal["GET", "POST"]:
        return "POST" if isinstance(self.method, UnsetType) else self.method

    @property
    def effective_auth_mode(self) -> Literal["hmac", "token", "none"]:
        return "hmac" if isinstance(self.authMode, UnsetType) else self.authMode

    @property
    def effective_timeout_ms(self) -> int:
        return 10000 if isinstance(self.timeoutMs, UnsetType) else self.timeoutMs

    @property
    def effective_body_template(self) -> Literal["envelope", "pass-through", "none"]:
        return "envelope" if isinstance(self.bodyTemplate, UnsetType) else self.bodyTemplate

    def accepts_status(self, status: int) -> bool:
        """Whether an HTTP status completes the step: a listed code, else any 2xx."""
        if isinstance(self.expectedStatusCodes, UnsetType) or not self.expectedStatusCodes:
            return 200 <= status <= 299
        return status in self.expectedStatusCodes


class NotificationConfig(Request):
    __openapi_rule__ = (
        'channel "email" needs recipients; channel "slack" needs slackTarget; format '
        '"slack-blocks" goes with channel "slack" only.'
    )

    channel: Literal["email", "slack"]
    bodyTemplate: Annotated[str, Meta(min_length=1, max_length=16000)]
    recipients: Annotated[list[Email], Meta(min_length=1, max_length=50)] | UnsetType = UNSET
    subjectTemplate: Annotated[str, Meta(max_length=2000)] | UnsetType = UNSET
    # A Slack channel id, or an https incoming-webhook URL.
    slackTarget: Annotated[str, Meta(min_length=1, max_length=2000)] | UnsetType = UNSET
    format: Literal["text", "html", "slack-blocks"] | UnsetType = UNSET

    @property
    def effective_format(self) -> Literal["text", "html", "slack-blocks"]:
        return "text" if isinstance(self.format, UnsetType) else self.format

    @property
    def slack_webhook_url(self) -> str | None:
        """The incoming-webhook URL `slackTarget` holds, or None when it is a channel id."""
        return slack_target_url(self.slackTarget)


def slack_target_url(target: str | UnsetType) -> str | None:
    if isinstance(target, str) and "://" in target:
        return target
    return None


class _Node(Request, tag_field="type"):
    """Fields every node type takes. `requireNonEmptyOutput` acts on sync webhook nodes only."""

    nodeId: NodeId
    name: Name | UnsetType = UNSET
    description: Description | UnsetType = UNSET
    slaMs: SlaMs | UnsetType = UNSET
    requireNonEmptyOutput: bool | UnsetType = UNSET


class HumanNode(_Node, tag="human", kw_only=True):
    type: ClassVar[NodeType] = "human"
    config: HumanConfig


class AgentNode(_Node, tag="agent", kw_only=True):
    type: ClassVar[NodeType] = "agent"
    config: AgentConfig


class WebhookNode(_Node, tag="webhook", kw_only=True):
    type: ClassVar[NodeType] = "webhook"
    config: WebhookNodeConfig


class NotificationNode(_Node, tag="notification", kw_only=True):
    type: ClassVar[NodeType] = "notification"
    config: NotificationConfig


Node = HumanNode | AgentNode | WebhookNode | NotificationNode
