"""The knowledge base's rules once files are in: status, list, delete, rules, downloads and
search (files come in through `intake`).

A source belongs to one API key of one workspace; every read names both, in SQL and in the
vector filter, so no id a caller sends reaches another tenant's files.
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import Aborted, NotFound, PermissionDenied
from redline.memory.blobs import BlobStore
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.knowledge import models, storage
from redline.memory.knowledge.content import markdown_key, rule_id
from redline.memory.knowledge.links import DOWNLOAD_PATH, LinkSigner, Purpose
from redline.memory.vectors import (
    KNOWLEDGE,
    Tenant,
    VectorFilter,
    VectorHit,
    VectorStore,
    tenant_of,
)
from redline.pg import Pool
from redline.proto.events import now_ms

LIST_LIMIT = 100
RULES_LIMIT = 5_000
EXTENSIONS = {models.PDF: "pdf", models.CSV: "csv", models.XLSX: "xlsx", models.TEXT: "txt"}


class KnowledgeService:
    def __init__(
        self,
        pool: Pool,
        blobs: BlobStore,
        vectors: VectorStore,
        embedding: EmbeddingRunner,
        signer: LinkSigner,
        *,
        download_ttl_s: int,
    ) -> None:
        self._pool = pool
        self._blobs = blobs
        self._vectors = vectors
        self._embedding = embedding
        self._signer = signer
        self._download_ttl_ms = download_ttl_s * 1000

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
        await self._blobs.delete(markdown_key(row.blob_key, row.version))
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
        data = await self._blobs.get(markdown_key(row.blob_key, row.version))
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
            query = await self._embedding.query(request.query, tenant=principal.api_key)
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

    async def nearest_chunks(
        self, principal: ApiKeyPrincipal, question: str, limit: int
    ) -> list[VectorHit]:
        """The chunks of the key's knowledge closest to `question` (for ask); none when it
        cannot be embedded."""
        try:
            query = await self._embedding.query(question, tenant=principal.api_key)
        except EmbeddingFailed:
            return []
        where = VectorFilter(tenant=tenant_of(principal), equals={"kind": "chunk"})
        return await self._vectors.search(KNOWLEDGE, "text", query, where, limit)

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
