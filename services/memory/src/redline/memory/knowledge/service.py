"""The knowledge base's rules: upload URLs, ingest, status, list, delete, rules and search.

A source belongs to one API key of one workspace; every read names both, in SQL and in the
vector filter, so no id a caller sends reaches another tenant's files.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
import time

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)
from redline.memory.blobs import BlobStore
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.knowledge import models, storage
from redline.memory.knowledge.files import FileRejected, sniff
from redline.memory.knowledge.links import DOWNLOAD_PATH, UPLOAD_PATH, LinkSigner, Purpose
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorFilter, VectorStore
from redline.pg import Pool

# The bucket named in the `gs://` file references handed out (document 3 calls them gs:// URIs).
FILE_REF_BUCKET = "redline-knowledge"
LIST_LIMIT = 100
RULES_LIMIT = 5_000
EXTENSIONS = {models.PDF: "pdf", models.CSV: "csv", models.XLSX: "xlsx", models.TEXT: "txt"}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def tenant_of(principal: ApiKeyPrincipal) -> Tenant:
    return Tenant(principal.workspace_id, principal.api_key)


def _key_dir(api_key: str) -> str:
    # Blob keys are made of hex only: the API key itself may hold any character.
    return hashlib.sha256(api_key.encode()).hexdigest()[:24]


def _check_scope(organization_id: str | None, document_id: str | None) -> None:
    if document_id is not None and organization_id is None:
        raise InvalidArgument.field("data.documentId", "documentId requires organizationId")


class KnowledgeService:
    def __init__(
        self,
        pool: Pool,
        blobs: BlobStore,
        vectors: VectorStore,
        embedding: EmbeddingRunner,
        signer: LinkSigner,
        *,
        upload_ttl_s: int,
        download_ttl_s: int,
        max_outstanding_uploads: int,
    ) -> None:
        self._pool = pool
        self._blobs = blobs
        self._vectors = vectors
        self._embedding = embedding
        self._signer = signer
        self._upload_ttl_ms = upload_ttl_s * 1000
        self._download_ttl_ms = download_ttl_s * 1000
        self._max_outstanding = max_outstanding_uploads

    # upload URLs -------------------------------------------------------------------------------

    async def upload_url(
        self, principal: ApiKeyPrincipal, request: models.GetUploadUrl, base_url: str
    ) -> models.UploadUrl:
        _check_scope(request.organizationId, request.documentId)
        upload_id = secrets.token_hex(16)
        created = now_ms()
        extension = EXTENSIONS[request.mimeType]
        row = storage.UploadRow(
            upload_id=upload_id,
            workspace_id=principal.workspace_id,
            api_key=principal.api_key,
            organization_id=request.organizationId,
            document_id=request.documentId,
            mime_type=request.mimeType,
            file_size=request.fileSize,
            file_name=request.fileName,
            file_ref=f"gs://{FILE_REF_BUCKET}/uploads/{upload_id}/original.{extension}",
            blob_key=f"{_key_dir(principal.api_key)}/{upload_id}",
            created_at=created,
            expires_at=created + self._upload_ttl_ms,
        )
        async with self._pool.acquire() as conn, conn.transaction():
            if not await storage.insert_upload(conn, row, self._max_outstanding):
                raise ResourceExhausted(
                    f"At most {self._max_outstanding} upload URLs may be outstanding per"
                    " workspace: ingest or let some expire first.",
                    retry_after_s=60,
                )
        path = UPLOAD_PATH.format(upload_id=upload_id)
        query = self._signer.query("upload", upload_id, row.expires_at)
        return models.UploadUrl(
            uploadUrl=f"{base_url}{path}?{query}", fileRef=row.file_ref, expiresAt=row.expires_at
        )

    async def accept_upload(
        self,
        upload_id: str,
        expires_at: int,
        signature: str,
        content_type: str,
        body: bytes,
    ) -> None:
        """The one PUT an upload URL takes: the bytes of the file, as declared."""
        if not self._signer.verify("upload", upload_id, expires_at, signature, 0):
            raise PermissionDenied("The upload URL's signature is not valid.")
        if expires_at < now_ms():
            raise FailedPrecondition("The upload URL has expired.")
        async with self._pool.acquire() as conn, conn.transaction():
            upload = await storage.upload(conn, upload_id, for_update=True)
            if upload is None:
                raise NotFound("No such upload URL.")
            if upload.uploaded_at is not None:
                raise FailedPrecondition("The upload URL has already been used.")
            if content_type != upload.mime_type:
                raise InvalidArgument(
                    f"Content-Type must be {upload.mime_type}, as the upload URL was asked for."
                )
            if len(body) > upload.file_size:
                raise InvalidArgument(
                    f"The file has {len(body)} bytes; the upload URL was asked for"
                    f" {upload.file_size}."
                )
            await self._store_blob(upload.blob_key, body)
            digest = hashlib.sha256(body).hexdigest()
            await storage.mark_uploaded(conn, upload_id, len(body), digest, now_ms())

    async def _store_blob(self, key: str, data: bytes) -> None:
        try:
            await self._blobs.put(key, data)
        except OSError as exc:
            raise Unavailable(f"The file could not be stored: {exc.strerror or exc}") from None

    # ingest ------------------------------------------------------------------------------------

    async def ingest(
        self, principal: ApiKeyPrincipal, request: models.Ingest
    ) -> models.IngestAccepted:
        _check_scope(request.organizationId, request.documentId)
        if isinstance(request, models.IngestInline):
            source_id = await self._ingest_inline(principal, request)
        else:
            source_id = await self._ingest_file_ref(principal, request)
        return models.IngestAccepted(
            status="processing", sourceId=source_id, message="Knowledge ingestion task enqueued."
        )

    def _new_source(
        self,
        principal: ApiKeyPrincipal,
        request: models.Ingest,
        *,
        source_type: str,
        file_name: str | None,
        mime_type: str,
        size: int,
        sha256: str,
        blob_key: str,
    ) -> storage.SourceRow:
        now = now_ms()
        return storage.SourceRow(
            api_key=principal.api_key,
            source_id="src_" + secrets.token_urlsafe(15),
            workspace_id=principal.workspace_id,
            organization_id=request.organizationId,
            document_id=request.documentId,
            source_type=source_type,
            file_name=file_name,
            mime_type=mime_type,
            file_size=size,
            sha256=sha256,
            blob_key=blob_key,
            status="processing",
            uploaded_at=now,
            started_at=now,
            updated_at=now,
        )

    async def _ingest_inline(self, principal: ApiKeyPrincipal, request: models.IngestInline) -> str:
        file = request.file
        try:
            data = base64.b64decode(file.base64, validate=False)
        except (binascii.Error, ValueError):
            raise InvalidArgument.field(
                "data.file.base64", "file.base64 is not valid base64"
            ) from None
        if len(data) > models.INLINE_MAX_BYTES:
            raise InvalidArgument.field(
                "data.file.base64", "the decoded file is over 5 MB; use upload-url and a fileRef"
            )
        try:
            sniff(data, file.mimeType)
        except FileRejected as rejected:
            raise InvalidArgument.field("data.file.mimeType", rejected.detail) from None
        row = self._new_source(
            principal,
            request,
            source_type="inline",
            file_name=file.fileName,
            mime_type=file.mimeType,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            blob_key="",
        )
        row.blob_key = f"{_key_dir(principal.api_key)}/{row.source_id.lower()}"
        await self._store_blob(row.blob_key, data)
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await storage.insert_source(conn, row)
        except BaseException:
            await self._blobs.delete(row.blob_key)
            raise
        return row.source_id

    async def _ingest_file_ref(
        self, principal: ApiKeyPrincipal, request: models.IngestFileRef
    ) -> str:
        async with self._pool.acquire() as conn, conn.transaction():
            upload = await storage.upload_by_ref(conn, request.fileRef)
            if upload is None:
                raise FailedPrecondition("The fileRef is unknown: ask upload-url for one.")
            if upload.api_key != principal.api_key:
                raise PermissionDenied("The fileRef belongs to another API key.")
            if (upload.organization_id, upload.document_id) != (
                request.organizationId,
                request.documentId,
            ):
                raise PermissionDenied(
                    "organizationId and documentId must be those the upload URL was asked for."
                )
            if upload.source_id is not None:
                raise FailedPrecondition("The fileRef has already been ingested.")
            if upload.uploaded_at is None or upload.sha256 is None:
                raise FailedPrecondition(
                    "No file was uploaded to the fileRef's URL"
                    + (" and it has expired." if upload.expires_at < now_ms() else ".")
                )
            if request.mimeType != upload.mime_type:
                raise InvalidArgument.field(
                    "data.mimeType", f"the file was uploaded as {upload.mime_type}"
                )
            row = self._new_source(
                principal,
                request,
                source_type="upload",
                file_name=upload.file_name,
                mime_type=upload.mime_type,
                size=upload.uploaded_size or 0,
                sha256=upload.sha256,
                blob_key=upload.blob_key,
            )
            await storage.insert_source(conn, row)
            await storage.mark_ingested(conn, upload.upload_id, row.source_id)
        return row.source_id

    # status, list, delete, rules ---------------------------------------------------------------

    def _download_url(self, base_url: str, source: storage.SourceRow, purpose: Purpose) -> str:
        resource = f"{source.api_key}/{source.source_id}"
        expires = now_ms() + self._download_ttl_ms
        path = DOWNLOAD_PATH.format(source_id=source.source_id, purpose=purpose)
        return f"{base_url}{path}?{self._signer.query(purpose, resource, expires)}"

    async def _source(self, principal: ApiKeyPrincipal, source_id: str) -> storage.SourceRow:
        async with self._pool.acquire() as conn:
            row = await storage.source(conn, principal.api_key, source_id)
        if row is None:
            raise NotFound(f"No knowledge source {source_id}.")
        return row

    async def status(
        self, principal: ApiKeyPrincipal, request: models.SourceRef, base_url: str
    ) -> models.IngestStatus:
        row = await self._source(principal, request.sourceId)
        done = row.status == "completed"
        return models.IngestStatus(
            sourceId=row.source_id,
            status=row.status,  # type: ignore[arg-type]
            startedAt=row.started_at,
            updatedAt=row.updated_at,
            mimeType=row.mime_type,
            fileName=row.file_name,
            chunkCount=row.chunk_count if done else None,
            extractedRulesCount=row.rule_count if done else None,
            failureReason=row.failure_reason,
            failureDetail=row.failure_detail,
            sha256=row.sha256 if done else None,
            originalDownloadUrl=self._download_url(base_url, row, "original") if done else None,
            canonicalMdDownloadUrl=self._download_url(base_url, row, "markdown") if done else None,
        )

    async def list_sources(
        self, principal: ApiKeyPrincipal, base_url: str
    ) -> list[models.SourceListItem]:
        async with self._pool.acquire() as conn:
            rows = await storage.recent_sources(conn, principal.api_key, LIST_LIMIT)
        items = []
        for row in rows:
            done = row.status == "completed"
            items.append(
                models.SourceListItem(
                    id=row.source_id,
                    sourceType=row.source_type,
                    fileName=row.file_name,
                    uploadedAt=row.uploaded_at,
                    mimeType=row.mime_type,
                    embeddingStatus=row.status,  # type: ignore[arg-type]
                    chunkCount=row.chunk_count or 0,
                    ruleCount=row.rule_count or 0,
                    sha256=row.sha256,
                    failureReason=row.failure_reason,
                    failureDetail=row.failure_detail,
                    originalDownloadUrl=(
                        self._download_url(base_url, row, "original") if done else None
                    ),
                    canonicalMdDownloadUrl=(
                        self._download_url(base_url, row, "markdown") if done else None
                    ),
                )
            )
        return items

    async def delete(self, principal: ApiKeyPrincipal, request: models.SourceRef) -> models.Deleted:
        row = await self._source(principal, request.sourceId)
        if row.status == "processing":
            raise Aborted("The source is still being processed; delete it once it has finished.")
        chunks, rules = await self._remove(tenant_of(principal), row)
        return models.Deleted(
            status="deleted", sourceId=row.source_id, deletedChunks=chunks, deletedRules=rules
        )

    async def forget_documents(
        self,
        tenant: Tenant,
        organization_id: str,
        document_ids: list[str] | None,
        deleted_at_ms: int,
    ) -> int:
        """Delete the sources scoped to documents identity deleted (every document of the
        organization, and the organization itself, when `document_ids` is None), uploaded by
        the time of the delete; how many went. A source still being ingested goes too: its
        worker finds it gone and drops what it wrote."""
        async with self._pool.acquire() as conn:
            sources = await storage.scoped_sources(
                conn, tenant.api_key, organization_id, document_ids, deleted_at_ms
            )
        for row in sources:
            await self._remove(tenant, row)
        return len(sources)

    async def _remove(self, tenant: Tenant, row: storage.SourceRow) -> tuple[int, int]:
        # Vectors first: a failure after them leaves a source that a second delete removes,
        # never vectors of a source that no longer exists.
        where = VectorFilter(tenant=tenant, equals={"sourceId": row.source_id})
        await self._vectors.delete(KNOWLEDGE, where)
        async with self._pool.acquire() as conn, conn.transaction():
            counts = await storage.delete_source(conn, tenant.api_key, row.source_id)
        await self._blobs.delete(row.blob_key)
        await self._blobs.delete(row.blob_key + ".md")
        return counts

    async def rules(
        self, principal: ApiKeyPrincipal, request: models.RulesQuery
    ) -> list[models.RuleItem]:
        if request.sourceId is not None:
            await self._source(principal, request.sourceId)
        async with self._pool.acquire() as conn:
            rows = await storage.rules(conn, principal.api_key, request.sourceId, RULES_LIMIT)
        return [
            models.RuleItem(
                id=rule_id(r.source_id, r.rule_index),
                content=r.content,
                category=r.category,
                index=r.rule_index,
            )
            for r in rows
        ]

    # downloads ---------------------------------------------------------------------------------

    async def download(
        self, source_id: str, purpose: Purpose, expires_at: int, signature: str
    ) -> tuple[bytes, str, str]:
        """The bytes, content type and file name a signed download link stands for."""
        async with self._pool.acquire() as conn:
            candidates = await storage.sources_by_id(conn, source_id)
        now = now_ms()
        # The signature covers the API key too: it says which tenant's source this is.
        signed = [
            row
            for row in candidates
            if row.status == "completed"
            and self._signer.verify(
                purpose, f"{row.api_key}/{row.source_id}", expires_at, signature, now
            )
        ]
        if not signed:
            raise PermissionDenied("The download link is not valid or has expired.")
        row = signed[0]
        if purpose == "original":
            name = row.file_name or f"original.{EXTENSIONS.get(row.mime_type, 'bin')}"
            return await self._blobs.get(row.blob_key), row.mime_type, name
        data = await self._blobs.get(row.blob_key + ".md")
        return data, "text/markdown; charset=utf-8", f"{row.source_id}.md"

    # search ------------------------------------------------------------------------------------

    async def search(
        self, principal: ApiKeyPrincipal, request: models.SearchKnowledge
    ) -> models.KnowledgeResults:
        tenant = tenant_of(principal)
        source_ids = (
            None
            if request.sourceId is None
            else [request.sourceId]
            if isinstance(request.sourceId, str)
            else list(dict.fromkeys(request.sourceId))
        )
        async with self._pool.acquire() as conn:
            searched = await storage.count_completed(conn, principal.api_key, source_ids)
        try:
            query = await self._embedding.query(request.query)
        except EmbeddingFailed:
            return await self._recent(principal, source_ids, request.limit, searched)
        where = VectorFilter(
            tenant=tenant,
            any_of={"sourceId": source_ids} if source_ids is not None else {},
            equals={} if request.includeRules else {"kind": "chunk"},
        )
        hits = await self._vectors.search(KNOWLEDGE, "text", query, where, request.limit)
        results = []
        for hit in hits:
            payload = hit.payload
            rules_shown = request.includeRules
            is_rule = payload.get("kind") == "rule"
            results.append(
                models.KnowledgeHit(
                    text=payload["text"],
                    sourceId=payload["sourceId"],
                    score=max(0.0, 1.0 - hit.similarity),
                    kind=payload.get("kind") if rules_shown else None,
                    ruleId=payload.get("ruleId") if rules_shown and is_rule else None,
                    category=payload.get("category") if rules_shown and is_rule else None,
                )
            )
        return models.KnowledgeResults(results=results, recordsSearched=searched)

    async def _recent(
        self,
        principal: ApiKeyPrincipal,
        source_ids: list[str] | None,
        limit: int,
        searched: int,
    ) -> models.KnowledgeResults:
        """What a search answers when its query cannot be embedded: the newest passages,
        without a score."""
        async with self._pool.acquire() as conn:
            recent = await storage.recent_chunks(conn, principal.api_key, source_ids, limit)
        return models.KnowledgeResults(
            results=[models.KnowledgeHit(text=c.text, sourceId=c.source_id) for c in recent],
            recordsSearched=searched,
        )


def rule_id(source_id: str, index: int) -> str:
    return f"rule_{source_id.removeprefix('src_')}_{index}"
