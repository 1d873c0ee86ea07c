"""The reference's example requests for Memory (judgments, insights, alerts and the knowledge
base), in an order that lets later examples find what earlier ones made."""

from __future__ import annotations

import base64

from tests.api.knowledge_support import PDF, policy_pdf
from tests.api.replay_support import Sample

# The ingest page's inline file is a truncated placeholder ("JVBERi0xLjQK..."); the working
# sample sends a real PDF of brand guidelines in its place, with its own size.
BRAND_GUIDELINES = policy_pdf(
    [
        (
            "Brand Guidelines",
            "Medical claims must cite a peer-reviewed source. "
            "Copy should never promise a cure. "
            "Images must be WEBP, at most 1200 pixels wide.",
        )
    ]
)
# The bytes sent to the upload URL the upload-url example asks for (it declares 8,421,376 bytes;
# an upload may be smaller than declared).
UPLOADED_GUIDELINES = policy_pdf(
    [("Citation policy", "Every statistic must name its source and the year it was measured.")]
)

SOURCE_FIELDS = ("status", "sourceId")

# The judgments the pages' examples look for: Sarah Lee (u_sarah) rejected three ad copies making
# wrinkle claims in organization org_eu, the first of them on annotation_123. The test makes them
# the way users do, through the comments API, before the samples run; their pattern is new, so
# the alert check the test then runs raises the alert the alert pages act on.
SARAH = {"userId": "u_sarah", "name": "Sarah Lee", "email": "sarah@acme.com"}
REJECTED_COPY = {
    "annotation_123": "Our serum is clinically proven to reduce wrinkles in two weeks.",
    "annotation_124": "The new cream is clinically shown to erase fine lines and wrinkles.",
    "annotation_125": "Clinically proven: this night cream makes wrinkles disappear.",
}
REJECTION_REASON = "Claim 'clinically proven' lacks a citation."

JUDGMENT_FIELDS = tuple(
    f"results.0.{name}"
    for name in (
        "recordId",
        "reasoning",
        "decision",
        "confidence",
        "actionUser.name",
        "createdAt",
        "agent",
    )
)
SEARCH_FIELDS = ("totalInScope", "searchLatencyMs")

INSIGHTS = [
    Sample(
        page="memory/stats/get: get workspace stats",
        path="/v2/memory/stats/get",
        data={},
        fields=("totalActivities", "totalProfiles", "totalPatterns", "totalKnowledgeSources"),
    ),
    Sample(
        page="memory/ask: ask a policy question",
        path="/v2/memory/ask",
        data={"question": "How do we handle marketing copy that makes medical claims?"},
        fields=("answer", "citations", "confidence", "recordsSearched"),
    ),
    Sample(
        page="memory/search: search rejected decisions",
        path="/v2/memory/search",
        data={
            "query": "marketing copy with unsupported medical claims",
            "limit": 5,
            "filters": {"decision": "rejected"},
        },
        fields=(*JUDGMENT_FIELDS, "results.0.similarity", "results.0.scope", *SEARCH_FIELDS),
    ),
    Sample(
        page="memory/search: read one comment thread chronologically",
        path="/v2/memory/search",
        data={
            "query": "thread summary",
            "organizationId": "org_eu",
            "filters": {"annotationId": "annotation_123"},
        },
        fields=(*JUDGMENT_FIELDS, "results.0.similarity", "results.0.scope", *SEARCH_FIELDS),
    ),
    Sample(
        page="memory/search: last week's activity (recency-true mode)",
        path="/v2/memory/search",
        # Today's judgments are not in the last 7 complete days: the results may be empty.
        data={"query": "recent activity", "recencyDays": 7},
        fields=("results", *SEARCH_FIELDS),
    ),
    Sample(
        page="memory/judgments/query: list a reviewer's rejections",
        path="/v2/memory/judgments/query",
        data={"decision": "rejected", "reviewerId": "u_sarah", "limit": 20},
        fields=(
            *JUDGMENT_FIELDS,
            "results.0.judgeType",
            "results.0.contentType",
            "results.0.actionUser.userId",
            "results.0.actionUser.email",
            "results.0.organizationId",
            "results.0.documentId",
            "total",
        ),
    ),
    Sample(
        page="memory/patterns/get: list detected patterns",
        path="/v2/memory/patterns/get",
        data={},
        answer="list",
        fields=tuple(
            f"0.{name}"
            for name in (
                "scope",
                "organizationId",
                "description",
                "confidence",
                "sourceCount",
                "contentType",
                "category",
                "discoveredAt",
                "updatedAt",
                "enforcementRate",
                "uniqueReviewers",
                "topSourceRecordIds",
            )
        ),
    ),
    Sample(
        page="memory/profiles/get: get a specific reviewer's profile",
        path="/v2/memory/profiles/get",
        data={"targetUserId": "u_sarah"},
        fields=(
            "userId",
            "name",
            "email",
            "totalJudgments",
            "approvalRate",
            "avgReviewTimeSeconds",
            "topFlags.0.issue",
            "topFlags.0.count",
            "contentTypes",
            "peakHours",
            "orgBreakdown.org_eu.organizationId",
            "orgBreakdown.org_eu.clientOrganizationId",
            "orgBreakdown.org_eu.judgments",
            "orgBreakdown.org_eu.approvals",
            "orgBreakdown.org_eu.approvalRate",
            "lastActive",
            "twinEligible",
            "twinAccuracy",
        ),
    ),
    Sample(
        page="memory/suggest: suggest a decision for new ad copy",
        path="/v2/memory/suggest",
        data={"query": 'Ad copy: "clinically proven to reduce wrinkles"'},
        fields=(
            "primary.recommendation",
            "primary.confidence",
            "primary.basedOn",
            "primary.scope",
            "primary.scopeLabel",
            "primary.topReasons",
            "primary.uniqueReviewers",
            "primary.caveats",
            "conflict",
        ),
    ),
]

ALERTS = [
    Sample(
        page="memory/alerts/config/update: store alert settings",
        path="/v2/memory/alerts/config/update",
        data={"config": {"enabled": True, "maxAlertsPerWeek": 3, "severityThreshold": "medium"}},
        fields=("success",),
    ),
    Sample(
        page="memory/alerts/config/get: get the alert config",
        path="/v2/memory/alerts/config/get",
        data={},
        fields=("enabled", "maxAlertsPerWeek", "severityThreshold"),
    ),
    Sample(
        page="memory/alerts/list: list active alerts",
        path="/v2/memory/alerts/list",
        data={},
        answer="list",
        fields=tuple(
            f"0.{name}"
            for name in (
                "id",
                "apiKey",
                "alertType",
                "severity",
                "title",
                "description",
                "evidence.metric",
                "suggestedAction",
                "actionUrl",
                "status",
                "createdAt",
                "dismissedAt",
                "dismissedBy",
                "dedupKey",
            )
        ),
        save={"alertId": "0.id"},
    ),
    Sample(
        page="memory/alerts/dismiss: dismiss an alert",
        path="/v2/memory/alerts/dismiss",
        data={"alertId": "$alertId", "user": {"uid": "user_1"}},
        fields=("success",),
    ),
    Sample(
        page="memory/alerts/action: mark an alert actioned",
        path="/v2/memory/alerts/action",
        data={"alertId": "$alertId"},
        fields=("success",),
    ),
]

KNOWLEDGE_INGEST = [
    Sample(
        page="memory/knowledge/upload-url: request an upload URL for a PDF",
        path="/v2/memory/knowledge/upload-url",
        data={"mimeType": PDF, "fileSize": 8421376, "fileName": "brand-guidelines.pdf"},
        fields=("uploadUrl", "fileRef", "expiresAt"),
        save={"uploadUrl": "uploadUrl", "fileRef": "fileRef"},
    ),
    Sample(
        # The page's base64 is cut short ("..."). As in the hosted product, the characters
        # outside the alphabet are passed over: what is left starts like a PDF, so the file is
        # accepted, and its conversion fails in the background.
        page="memory/knowledge/ingest: inline, as the page shows it",
        path="/v2/memory/knowledge/ingest",
        data={
            "source": "inline",
            "file": {
                "base64": "JVBERi0xLjQK...",
                "mimeType": PDF,
                "fileName": "brand-guidelines.pdf",
                "fileSize": 184320,
            },
        },
        fields=SOURCE_FIELDS,
        save={"placeholderSourceId": "sourceId"},
    ),
    Sample(
        page="memory/knowledge/ingest: inline (file up to 5 MB)",
        path="/v2/memory/knowledge/ingest",
        data={
            "source": "inline",
            "file": {
                "base64": base64.b64encode(BRAND_GUIDELINES).decode(),
                "mimeType": PDF,
                "fileName": "brand-guidelines.pdf",
                "fileSize": len(BRAND_GUIDELINES),
            },
        },
        fields=(*SOURCE_FIELDS, "message"),
        save={"sourceId": "sourceId"},
    ),
    Sample(
        # A reference this service never issued.
        page="memory/knowledge/ingest: by reference, as the page shows it",
        path="/v2/memory/knowledge/ingest",
        data={"source": "fileRef", "fileRef": "gs://bucket/path/original.pdf", "mimeType": PDF},
        expect="FAILED_PRECONDITION",
    ),
]

# After the test has PUT UPLOADED_GUIDELINES to the saved upload URL.
KNOWLEDGE_BY_REFERENCE = [
    Sample(
        page="memory/knowledge/ingest: by reference (file up to 30 MB)",
        path="/v2/memory/knowledge/ingest",
        data={"source": "fileRef", "fileRef": "$fileRef", "mimeType": PDF},
        fields=(*SOURCE_FIELDS, "message"),
        save={"uploadedSourceId": "sourceId"},
    ),
]

# Once both sources have finished ingesting.
KNOWLEDGE_READS = [
    Sample(
        page="memory/knowledge/ingest-status: poll an ingestion",
        path="/v2/memory/knowledge/ingest-status",
        data={"sourceId": "$sourceId"},
        fields=(
            *SOURCE_FIELDS,
            "startedAt",
            "updatedAt",
            "mimeType",
            "extractedRulesCount",
            "chunkCount",
            "originalDownloadUrl",
            "canonicalMdDownloadUrl",
        ),
    ),
    Sample(
        page="memory/knowledge/list: list all sources",
        path="/v2/memory/knowledge/list",
        data={},
        answer="list",
        fields=(
            "0.id",
            "0.sourceType",
            "0.fileName",
            "0.uploadedAt",
            "0.mimeType",
            "0.embeddingStatus",
            "0.originalDownloadUrl",
            "0.canonicalMdDownloadUrl",
        ),
    ),
    Sample(
        page="memory/knowledge/rules: list a source's rules",
        path="/v2/memory/knowledge/rules",
        data={"sourceId": "$sourceId"},
        answer="list",
        fields=("0.id", "0.content", "0.category", "0.index"),
    ),
    Sample(
        page="memory/knowledge/search: search a single source",
        path="/v2/memory/knowledge/search",
        data={"query": "citation policy", "sourceId": "$sourceId", "limit": 10},
        fields=("results.0.sourceId", "results.0.text", "results.0.score", "recordsSearched"),
    ),
    Sample(
        page="memory/knowledge/search: search across multiple sources",
        path="/v2/memory/knowledge/search",
        data={
            "query": "citation policy",
            "sourceId": ["$sourceId", "$uploadedSourceId"],
            "limit": 10,
        },
        fields=("results.1.sourceId", "results.1.text", "results.1.score", "recordsSearched"),
    ),
    Sample(
        page="memory/knowledge/search: search the whole workspace knowledge base",
        path="/v2/memory/knowledge/search",
        data={"query": "citation policy", "limit": 10},
        fields=("results.0.sourceId", "results.0.text", "results.0.score", "recordsSearched"),
    ),
    Sample(
        page="memory/knowledge/search: search chunks and extracted rules together",
        path="/v2/memory/knowledge/search",
        data={"query": "image format requirements", "includeRules": True, "limit": 5},
        fields=("results.0.kind", "results.0.text", "results.0.score", "recordsSearched"),
    ),
    Sample(
        page="memory/knowledge/download: download a source's markdown",
        path="/v2/memory/knowledge/download",
        data={"sourceId": "$sourceId"},
        answer="string",
    ),
    Sample(
        page="memory/knowledge/update: replace a source's content",
        path="/v2/memory/knowledge/update",
        data={
            "sourceId": "$sourceId",
            "newContent": "# Brand Guidelines v2\n\n- Always cite medical claims...",
        },
        fields=("diff.added", "diff.removed", "diff.unchanged", "newVersion"),
    ),
    Sample(
        page="memory/knowledge/delete: delete a source",
        path="/v2/memory/knowledge/delete",
        data={"sourceId": "$sourceId"},
        fields=("status", "sourceId", "deletedChunks", "deletedRules"),
    ),
]
