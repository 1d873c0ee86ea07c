"""The knowledge base's URL map: /v2/memory/knowledge/* endpoints, and the plain HTTP routes
that signed links point at (the upload PUT and the downloads)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal
from urllib.parse import quote

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

from redline.envelope import GATE, Call, Endpoint, Style, Tier
from redline.envelope.errors import InvalidArgument
from redline.envelope.raw_routes import Content, Parameter, RawRoute, add_raw_routes
from redline.memory.app_keys import INTAKE, KNOWLEDGE, REVISIONS, SETTINGS
from redline.memory.knowledge import models
from redline.memory.knowledge.intake import Declared, IntakeService
from redline.memory.knowledge.links import DOWNLOAD_PATH, UPLOAD_PATH, Purpose
from redline.memory.knowledge.revisions import RevisionService
from redline.memory.knowledge.service import KnowledgeService

# An inline ingest carries up to 5 MiB as base64 (about 6.7 MiB) in its JSON.
INGEST_MAX_BODY = 8 << 20


def base_url(request: web.Request) -> str:
    """Where clients reach this service, for the links handed out."""
    configured = request.app[SETTINGS].public_url
    return configured.rstrip("/") if configured else f"{request.scheme}://{request.host}"


async def upload_url(call: Call, request: models.GetUploadUrl) -> models.UploadUrl:
    return await call.app[INTAKE].upload_url(call.api_key, request, base_url(call.request))


async def ingest_status(call: Call, request: models.SourceRef) -> models.IngestStatus:
    return await call.app[KNOWLEDGE].status(call.api_key, request, base_url(call.request))


async def list_sources(call: Call, request: models.ListSources) -> list[models.SourceListItem]:
    return await call.app[KNOWLEDGE].list_sources(call.api_key, base_url(call.request))


def _signed(request: web.Request) -> tuple[int, str]:
    try:
        expires_at = int(request.query["expires"])
        signature = request.query["signature"]
    except (KeyError, ValueError):
        raise InvalidArgument("The link lacks its expires and signature parameters.") from None
    return expires_at, signature


async def put_upload(request: web.Request) -> web.Response:
    expires_at, signature = _signed(request)
    if request.content_length is not None and request.content_length > models.FILE_REF_MAX_BYTES:
        raise web.HTTPRequestEntityTooLarge(
            max_size=models.FILE_REF_MAX_BYTES, actual_size=request.content_length
        )
    declared = Declared(request.content_type, request.content_length)
    # An address that keeps presenting forged links waits out its window, as one that keeps
    # presenting bad credentials does; a link that verifies is served (it is checked before a
    # byte of the body is read, so a forged one costs no upload).
    # A refused upload is not read further: the envelope ends its connection with the answer.
    async with request.app[GATE].refusals_counted(request):
        await request.app[INTAKE].accept_upload(
            request.match_info["upload_id"], expires_at, signature, declared, _body(request)
        )
    return web.Response(status=200)


async def _body(request: web.Request) -> AsyncIterator[bytes]:
    """The body as it arrives, in parts: an upload may be larger than the app-wide body limit,
    and is never held whole."""
    try:
        async for part in request.content.iter_chunked(1 << 16):
            yield part
    except (RequestPayloadError, ConnectionError) as exc:
        # The stream is broken past this point: the answer ends the connection.
        raise InvalidArgument(f"The file could not be read: {exc}") from None


async def get_file(request: web.Request) -> web.Response:
    expires_at, signature = _signed(request)
    purpose: Purpose = "original" if request.match_info["purpose"] == "original" else "markdown"
    data, content_type, name = await request.app[KNOWLEDGE].download(
        request.match_info["source_id"], purpose, expires_at, signature
    )
    return web.Response(
        body=data,
        headers={
            "Content-Type": content_type,
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name, safe='')}",
        },
    )


_SIGNED = (
    Parameter("expires", "query", int, description="When the link stops working, in ms"),
    Parameter("signature", "query", description="The link's signature"),
)
LINK_ROUTES = [
    RawRoute(
        "PUT",
        UPLOAD_PATH,
        put_upload,
        "The file of an upload URL: its bytes, of the type and at most the size it was asked for",
        answers={200: Content("")},
        parameters=(Parameter("upload_id", "path"), *_SIGNED),
        body=(Content("application/octet-stream"),),
        tags=("memory",),
    ),
    RawRoute(
        "GET",
        DOWNLOAD_PATH,
        get_file,
        "A knowledge source's original file or its Markdown rendering, by a signed link",
        answers={200: Content("*/*")},  # the file's own type
        parameters=(
            Parameter("source_id", "path"),
            Parameter("purpose", "path", Literal["original", "markdown"]),
            *_SIGNED,
        ),
        tags=("memory",),
        route_path=DOWNLOAD_PATH.replace("{purpose}", "{purpose:original|markdown}"),
    ),
]


def add_link_routes(app: web.Application) -> None:
    add_raw_routes(app, LINK_ROUTES)


ENDPOINTS: list[Endpoint] = [
    Endpoint.handled(
        "/v2/memory/knowledge/upload-url",
        upload_url,
        style=Style.PLAIN,
        summary="A signed, one-shot PUT URL for a file of up to 30 MB, and its fileRef",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/ingest",
        INTAKE,
        IntakeService.ingest,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        max_body=INGEST_MAX_BODY,
        summary="Ingest a PDF, CSV, XLSX or text file (inline or a fileRef) in the background",
        tags=("memory",),
    ),
    Endpoint.handled(
        "/v2/memory/knowledge/ingest-status",
        ingest_status,
        style=Style.PLAIN,
        summary="Where an ingest stands: processing, completed (with counts) or failed (with why)",
        tags=("memory",),
    ),
    Endpoint.handled(
        "/v2/memory/knowledge/list",
        list_sources,
        style=Style.PLAIN,
        summary="The 100 newest knowledge sources, newest first",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/delete",
        KNOWLEDGE,
        KnowledgeService.delete,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        summary="Delete a source with its file, chunks, rules and vectors",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/rules",
        KNOWLEDGE,
        KnowledgeService.rules,
        style=Style.PLAIN,
        summary="The obligations and prohibitions found in a source (or in every source)",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/search",
        KNOWLEDGE,
        KnowledgeService.search,
        style=Style.PLAIN,
        tier=Tier.SEARCH,
        summary="Nearest passages to a query by cosine distance (lower is closer)",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/update",
        REVISIONS,
        RevisionService.update,
        style=Style.PLAIN,
        tier=Tier.INGEST,
        max_body=INGEST_MAX_BODY,
        summary="Replace a rule-based source's content (new chunks, rules, vectors, version)",
        tags=("memory",),
    ),
    Endpoint.of(
        "/v2/memory/knowledge/download",
        REVISIONS,
        RevisionService.markdown,
        style=Style.PLAIN,
        summary="A source's canonical Markdown (its current version), or null when there is none",
        tags=("memory",),
    ),
]
