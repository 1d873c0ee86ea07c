"""Files coming in: upload URLs, the one PUT each takes, and ingest (inline or by fileRef).

Ingest only checks, stores and queues; the worker converts and embeds in the background.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from collections.abc import AsyncIterable, AsyncIterator
from typing import NamedTuple

from redline.envelope import ApiKeyPrincipal
from redline.envelope.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)
from redline.memory.blobs import BlobStore
from redline.memory.knowledge import models, storage, upload_storage
from redline.memory.knowledge.files import FileRejected, sniff
from redline.memory.knowledge.links import UPLOAD_PATH, LinkSigner
from redline.memory.knowledge.service import EXTENSIONS
from redline.pg import Connection, Pool
from redline.proto.events import now_ms
from redline.runtime.access import AccessClient

# The bucket named in the `gs://` file references handed out (the API calls them gs:// URIs).
FILE_REF_BUCKET = "redline-knowledge"


class Declared(NamedTuple):
    """What an upload PUT says of its body in its headers, before any of the body is read."""

    content_type: str
    content_length: int | None


class _Received:
    """The size and digest of a body as it streams past, refused once over `max_bytes`."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._digest = hashlib.sha256()

    async def counted(self, body: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
        async for part in body:
            self.size += len(part)
            if self.size > self.max_bytes:
                raise InvalidArgument(
                    f"The file has more than {self.max_bytes} bytes, the size the upload URL"
                    " was asked for."
                )
            self._digest.update(part)
            yield part

    def sha256(self) -> str:
        return self._digest.hexdigest()


def _key_dir(api_key: str) -> str:
    # Blob keys are made of hex only: the API key itself may hold any character.
    return hashlib.sha256(api_key.encode()).hexdigest()[:24]


def _check_scope(organization_id: str | None, document_id: str | None) -> None:
    if document_id is not None and organization_id is None:
        raise InvalidArgument.field("data.documentId", "documentId requires organizationId")


class IntakeService:
    def __init__(
        self,
        pool: Pool,
        blobs: BlobStore,
        signer: LinkSigner,
        access: AccessClient,
        *,
        upload_ttl_s: int,
        max_outstanding_uploads: int,
        max_outstanding_ingests: int,
    ) -> None:
        self._pool = pool
        self._access = access
        self._blobs = blobs
        self._signer = signer
        self._upload_ttl_ms = upload_ttl_s * 1000
        self._max_outstanding = max_outstanding_uploads
        self._max_ingests = max_outstanding_ingests

    async def upload_url(
        self, principal: ApiKeyPrincipal, request: models.GetUploadUrl, base_url: str
    ) -> models.UploadUrl:
        _check_scope(request.organizationId, request.documentId)
        upload_id = secrets.token_hex(16)
        created = now_ms()
        extension = EXTENSIONS[request.mimeType]
        row = upload_storage.UploadRow(
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
            if not await upload_storage.insert_upload(conn, row, self._max_outstanding):
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
        declared: Declared,
        body: AsyncIterable[bytes],
    ) -> None:
        """The one PUT an upload URL takes: the bytes of the file, as declared. Everything the
        link and its row decide is checked before the first byte of `body` is read; the body
        then goes to the store a part at a time, refused the moment it passes the size the URL
        was asked for."""
        upload = await self._admit_upload(upload_id, expires_at, signature, declared)
        # A key of this attempt's own: two PUTs racing on one URL never write one file.
        blob_key = f"{upload.blob_key}-{secrets.token_hex(4)}"
        received = _Received(upload.file_size)
        try:
            await self._blobs.put_stream(blob_key, received.counted(body))
        except OSError as exc:
            raise Unavailable(f"The file could not be stored: {exc.strerror or exc}") from None
        try:
            async with self._pool.acquire() as conn:
                marked = await upload_storage.mark_uploaded(
                    conn, upload_id, blob_key, received.size, received.sha256(), now_ms()
                )
        except BaseException:
            await self._blobs.delete(blob_key)
            raise
        if not marked:
            await self._blobs.delete(blob_key)
            raise FailedPrecondition(
                "The upload URL was used or expired while the file was being sent."
            )

    async def _admit_upload(
        self, upload_id: str, expires_at: int, signature: str, declared: Declared
    ) -> upload_storage.UploadRow:
        if not self._signer.verify("upload", upload_id, expires_at, signature, 0):
            raise PermissionDenied("The upload URL's signature is not valid.")
        if expires_at < now_ms():
            raise FailedPrecondition("The upload URL has expired.")
        async with self._pool.acquire() as conn:
            upload = await upload_storage.upload(conn, upload_id)
        if upload is None:
            raise NotFound("No such upload URL.")
        if upload.uploaded_at is not None:
            raise FailedPrecondition("The upload URL has already been used.")
        if declared.content_type != upload.mime_type:
            raise InvalidArgument(
                f"Content-Type must be {upload.mime_type}, as the upload URL was asked for."
            )
        if declared.content_length is not None and declared.content_length > upload.file_size:
            raise InvalidArgument(
                f"The file has {declared.content_length} bytes; the upload URL was asked for"
                f" {upload.file_size}."
            )
        return upload

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
        if request.organizationId is not None:
            # Knowledge is not added to a disabled organization or document: it is read-only.
            await self._access.require_writable(
                principal.api_key, request.organizationId, request.documentId
            )
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
                await self._queue(conn, row)
        except BaseException:
            await self._blobs.delete(row.blob_key)
            raise
        return row.source_id

    async def _ingest_file_ref(
        self, principal: ApiKeyPrincipal, request: models.IngestFileRef
    ) -> str:
        async with self._pool.acquire() as conn, conn.transaction():
            upload = await upload_storage.upload_by_ref(conn, request.fileRef)
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
            await self._queue(conn, row)
            await upload_storage.mark_ingested(conn, upload.upload_id, row.source_id)
        return row.source_id

    async def _queue(self, conn: Connection, row: storage.SourceRow) -> None:
        """Queue `row` for the worker, within the workspace's cap on outstanding ingests."""
        if not await storage.has_room(conn, row.workspace_id, self._max_ingests):
            raise ResourceExhausted(
                f"At most {self._max_ingests} ingests may be queued or processing per"
                " workspace: wait for some to complete, then try again.",
                retry_after_s=30,
            )
        await storage.insert_source(conn, row)
