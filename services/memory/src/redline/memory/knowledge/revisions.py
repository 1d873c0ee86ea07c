"""Replacing a source's content (/knowledge/update) and reading its current Markdown
(/knowledge/download).

An update converts `newContent` as a text file, as an ingest would, embeds it, and writes the
next revision beside the current one: points tagged with the revision, a Markdown blob under a
key naming it. Only then does the source row switch to it (its chunks and rules replaced in
the same transaction), and the previous revision's points and blob go. A failure before the
switch removes what it wrote and leaves the current revision searchable; between the write and
the removal a search may meet both revisions' passages for a moment.
"""

from __future__ import annotations

import logging

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
)
from redline.memory.blobs import BlobMissing, BlobStore
from redline.memory.embedding import EmbeddingFailed, EmbeddingRunner
from redline.memory.knowledge import models, revision_storage, storage
from redline.memory.knowledge.content import markdown_key, points_of, rows_of, texts_of
from redline.memory.knowledge.conversion import ChunkSizes, Converted, Job, convert_in_child
from redline.memory.knowledge.files import FileRejected, Limits
from redline.memory.vectors import KNOWLEDGE, Tenant, VectorFilter, VectorStore, tenant_of
from redline.pg import Pool
from redline.proto.events import now_ms

log = logging.getLogger("redline.memory.knowledge")

NOT_RULE_BASED = "Version diff is only supported for rule-based knowledge sources."
UPSERT_BATCH = 256
RULES_LIMIT = 5_000


class Conversion:
    """How content is converted: chunk sizes, parser limits and the child's bounds."""

    def __init__(
        self, sizes: ChunkSizes, limits: Limits, *, timeout_s: float, memory_mb: int
    ) -> None:
        self.sizes = sizes
        self.limits = limits
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb


def _normal(rule: str) -> str:
    return " ".join(rule.split()).casefold()


def rule_diff(old: list[str], new: list[str]) -> models.RuleDiff:
    """Rules added and removed between two revisions (compared without case or spacing), and
    how many stayed."""
    before = {_normal(r) for r in old}
    after = {_normal(r) for r in new}
    return models.RuleDiff(
        added=[r for r in new if _normal(r) not in before],
        removed=[r for r in old if _normal(r) not in after],
        unchanged=sum(1 for r in new if _normal(r) in before),
    )


class RevisionService:
    def __init__(
        self,
        pool: Pool,
        blobs: BlobStore,
        vectors: VectorStore,
        embedding: EmbeddingRunner,
        conversion: Conversion,
    ) -> None:
        self._pool = pool
        self._blobs = blobs
        self._vectors = vectors
        self._embedding = embedding
        self._conversion = conversion

    async def update(
        self, principal: ApiKeyPrincipal, request: models.UpdateKnowledge
    ) -> models.KnowledgeUpdated:
        # One update of a source at a time: the revisions it writes and removes are its own.
        async with self._pool.acquire() as held:
            if not await revision_storage.try_lock(held, principal.api_key, request.sourceId):
                raise Aborted("Another update of this source is in progress; try again.")
            try:
                return await self._update(principal, request)
            finally:
                await revision_storage.unlock(held, principal.api_key, request.sourceId)

    async def _update(
        self, principal: ApiKeyPrincipal, request: models.UpdateKnowledge
    ) -> models.KnowledgeUpdated:
        async with self._pool.acquire() as conn:
            row = await storage.source(conn, principal.api_key, request.sourceId)
            old_rules = await storage.rules(conn, principal.api_key, request.sourceId, RULES_LIMIT)
        if row is None:
            raise NotFound(f"No knowledge source {request.sourceId}.")
        if row.status == "processing":
            raise Aborted("The source is still being processed; update it once it has finished.")
        # Rule-based: a completed source in which the ingest found rules.
        if row.status != "completed" or not row.rule_count:
            raise FailedPrecondition(NOT_RULE_BASED)
        converted = await self._convert(request.newContent)
        revision = row.version + 1
        tenant = tenant_of(principal)
        await self._write(tenant, row, converted, revision)
        if not await self._switch(row, converted):
            await self._discard(tenant, row, revision)
            raise Aborted("The source was deleted meanwhile; nothing was updated.")
        await self._discard_all_but(tenant, row, revision)
        return models.KnowledgeUpdated(
            diff=rule_diff([r.content for r in old_rules], [r.content for r in converted.rules]),
            newVersion=revision,
        )

    async def _convert(self, content: str) -> Converted:
        data = content.encode()
        if len(data) > models.INLINE_MAX_BYTES:
            raise InvalidArgument.field(
                "data.newContent", f"longer than {models.INLINE_MAX_BYTES} bytes as UTF-8"
            )
        c = self._conversion
        job = Job(mime_type=models.TEXT, sizes=c.sizes, limits=c.limits, data=data)
        try:
            converted = await convert_in_child(job, timeout_s=c.timeout_s, memory_mb=c.memory_mb)
        except FileRejected as rejected:
            raise InvalidArgument.field("data.newContent", rejected.detail) from None
        if not converted.chunks:
            raise InvalidArgument.field("data.newContent", "holds no text to index")
        return converted

    async def _write(
        self, tenant: Tenant, row: storage.SourceRow, converted: Converted, revision: int
    ) -> None:
        """Write the new revision's points and Markdown beside the current ones."""
        try:
            vectors = await self._embedding.passages(texts_of(converted))
        except EmbeddingFailed as exc:
            raise Unavailable(f"The content could not be embedded ({exc}); try again.") from None
        points = points_of(tenant, row.source_id, row.uploaded_at, converted, vectors, revision)
        try:
            for start in range(0, len(points), UPSERT_BATCH):
                await self._vectors.upsert(KNOWLEDGE, points[start : start + UPSERT_BATCH])
            await self._blobs.put(markdown_key(row.blob_key, revision), converted.markdown.encode())
        except Exception:
            await self._discard(tenant, row, revision)
            raise

    async def _switch(self, row: storage.SourceRow, converted: Converted) -> bool:
        chunks, rules = rows_of(row.source_id, converted)
        async with self._pool.acquire() as conn, conn.transaction():
            return await revision_storage.switch_revision(
                conn, row.api_key, row.source_id, row.version, chunks, rules, now_ms()
            )

    async def _discard(self, tenant: Tenant, row: storage.SourceRow, revision: int) -> None:
        """Remove a revision that did not become current; a failure is logged (its points are
        removed by the next update's `_discard_all_but`)."""
        where = VectorFilter(
            tenant=tenant, equals={"sourceId": row.source_id, "revision": str(revision)}
        )
        await self._quietly(row, revision, where)

    async def _discard_all_but(self, tenant: Tenant, row: storage.SourceRow, revision: int) -> None:
        """Remove every point of the source but the current revision's (revision 1's carry no
        revision), and the previous revision's Markdown."""
        where = VectorFilter(
            tenant=tenant,
            equals={"sourceId": row.source_id},
            none_of={"revision": [str(revision)]},
        )
        await self._quietly(row, row.version, where)

    async def _quietly(self, row: storage.SourceRow, revision: int, where: VectorFilter) -> None:
        try:
            await self._vectors.delete(KNOWLEDGE, where)
            await self._blobs.delete(markdown_key(row.blob_key, revision))
        except Exception:
            log.exception("revision %s of %s was not removed", revision, row.source_id)

    async def markdown(self, principal: ApiKeyPrincipal, request: models.SourceRef) -> str | None:
        """The current revision's Markdown; None when the source is unknown to this key, not
        completed, or has none."""
        async with self._pool.acquire() as conn:
            row = await storage.source(conn, principal.api_key, request.sourceId)
        if row is None or row.status != "completed":
            return None
        try:
            data = await self._blobs.get(markdown_key(row.blob_key, row.version))
        except BlobMissing:
            return None
        return data.decode(errors="replace")
