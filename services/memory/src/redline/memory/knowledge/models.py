"""Requests and answers of /v2/memory/knowledge/*.

Every request here is strict, as the hosted product's knowledge endpoints are: an unknown field
(`organizationId` on search among them) is an INVALID_ARGUMENT naming it.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from redline.envelope import Request

MIB = 1 << 20
INLINE_MAX_BYTES = 5 * MIB
FILE_REF_MAX_BYTES = 30 * MIB
# base64 of 5 MiB is 6,990,508 characters; a little room for line breaks some encoders add.
INLINE_MAX_BASE64 = 7_200_000

PDF = "application/pdf"
CSV = "text/csv"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEXT = "text/plain"
MimeType = Literal[
    "application/pdf",
    "text/csv",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "text/plain",
]

Id = Annotated[str, Meta(min_length=1, max_length=256)]
SourceId = Annotated[str, Meta(min_length=1, max_length=256)]
FileName = Annotated[str, Meta(min_length=1, max_length=255)]
FileRef = Annotated[str, Meta(min_length=1, max_length=2048)]
Query = Annotated[str, Meta(min_length=1, max_length=4000)]
Status = Literal["processing", "completed", "failed"]


# upload-url ------------------------------------------------------------------------------------


class GetUploadUrl(Request):
    # The intake refuses a document named without its organization.
    __openapi_requires__ = (("documentId", "organizationId"),)

    mimeType: MimeType
    fileSize: Annotated[int, Meta(ge=1, le=FILE_REF_MAX_BYTES)]
    fileName: FileName | None = None
    organizationId: Id | None = None
    documentId: Id | None = None


class UploadUrl(msgspec.Struct):
    uploadUrl: str
    fileRef: str
    expiresAt: int


# ingest ----------------------------------------------------------------------------------------


# What the intake decodes: standard base64 with its padding; characters outside the alphabet,
# such as the line breaks some encoders add, are skipped.
Base64 = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=INLINE_MAX_BASE64,
        description="The file's bytes in standard base64 (RFC 4648 section 4), padded with `=`.",
        extra_json_schema={"contentEncoding": "base64"},
    ),
]


class InlineFile(Request):
    base64: Base64
    mimeType: MimeType
    fileName: FileName
    fileSize: Annotated[int, Meta(ge=1, le=INLINE_MAX_BYTES)]


class IngestInline(Request, tag_field="source", tag="inline"):
    # The intake refuses a document named without its organization.
    __openapi_requires__ = (("documentId", "organizationId"),)

    file: InlineFile
    organizationId: Id | None = None
    documentId: Id | None = None


class IngestFileRef(Request, tag_field="source", tag="fileRef"):
    # The intake refuses a document named without its organization.
    __openapi_requires__ = (("documentId", "organizationId"),)

    fileRef: FileRef
    mimeType: MimeType
    organizationId: Id | None = None
    documentId: Id | None = None


Ingest = IngestInline | IngestFileRef


class IngestAccepted(msgspec.Struct):
    status: Literal["processing"]
    sourceId: str
    message: str


# ingest-status, list, delete, rules -------------------------------------------------------------


class SourceRef(Request):
    sourceId: SourceId


class RulesQuery(Request):
    # The hosted product requires it; without it the rules of every source come back.
    sourceId: SourceId | None = None


class IngestStatus(msgspec.Struct, omit_defaults=True):
    sourceId: str
    status: Status
    startedAt: int
    updatedAt: int
    mimeType: str
    fileName: str | None = None
    chunkCount: int | None = None
    extractedRulesCount: int | None = None
    failureReason: str | None = None
    failureDetail: str | None = None
    sha256: str | None = None
    originalDownloadUrl: str | None = None
    canonicalMdDownloadUrl: str | None = None


class SourceListItem(msgspec.Struct, omit_defaults=True):
    id: str
    sourceType: str
    fileName: str | None
    uploadedAt: int
    mimeType: str
    embeddingStatus: Status
    chunkCount: int
    ruleCount: int
    sha256: str
    failureReason: str | None = None
    failureDetail: str | None = None
    originalDownloadUrl: str | None = None
    canonicalMdDownloadUrl: str | None = None


class Deleted(msgspec.Struct):
    status: Literal["deleted"]
    sourceId: str
    deletedChunks: int
    deletedRules: int


class RuleItem(msgspec.Struct):
    id: str
    content: str
    category: str | None
    index: int


# search ----------------------------------------------------------------------------------------

SourceIds = Annotated[list[SourceId], Meta(min_length=2, max_length=30)]


class SearchKnowledge(Request):
    query: Query
    sourceId: SourceId | SourceIds | None = None
    limit: Annotated[int, Meta(ge=1, le=50)] = 10
    includeRules: bool = False


class KnowledgeHit(msgspec.Struct, omit_defaults=True):
    text: str
    sourceId: str | None = None
    # Cosine distance (1 - cosine similarity): lower is closer. Absent on recency fallback items.
    score: float | None = None
    # Only with includeRules.
    kind: Literal["chunk", "rule"] | None = None
    ruleId: str | None = None
    category: str | None = None


class KnowledgeResults(msgspec.Struct):
    results: list[KnowledgeHit]
    recordsSearched: int


class ListSources(Request):
    pass


# update, download ------------------------------------------------------------------------------


class UpdateKnowledge(Request):
    sourceId: SourceId
    # Text or Markdown, converted as a text file is; at most 5 MiB as UTF-8.
    newContent: Annotated[str, Meta(min_length=1, max_length=INLINE_MAX_BYTES)]


class RuleDiff(msgspec.Struct):
    added: list[str]
    removed: list[str]
    unchanged: int


class KnowledgeUpdated(msgspec.Struct):
    diff: RuleDiff
    newVersion: int
