"""The blob store's disk full: memory runs in the split topology with its blob directory on a
small tmpfs of its own (mounted inside a user and mount namespace, so no privilege is needed).

What it proves: an ingest whose file does not fit is refused with UNAVAILABLE and a reason, and
leaves nothing behind: no source is listed, and no partial file holds the space (a file that fits
is ingested and searchable right after); the service stays ready all along."""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redline.cli.gateway import create_gateway
from redline.runtime.routing import SERVICES
from redline.testing.api import ApiClient, Workspace
from tests.api.knowledge_support import settled
from tests.e2e.conftest import StartApp
from tests.e2e.faults.fleet import Fleet, running_fleet

pytestmark = pytest.mark.timeout(300)

DISK = 256 * 1024


@pytest.fixture(scope="module")
def blob_dir() -> Iterator[Path]:
    parent = Path(tempfile.mkdtemp(prefix="redline-test-blobs-"))
    yield parent / "blobs"
    shutil.rmtree(parent, ignore_errors=True)


@pytest.fixture(scope="module")
def fleet(postgres_server_url: str, blob_dir: Path) -> Iterator[Fleet]:
    blob_dir.mkdir()
    # `unshare` gives the service a mount namespace of its own. Root may mount there as it is;
    # another user becomes root of a user namespace of its own first (and keeps reaching the
    # test servers, which run as that same user).
    mount = f'mount -t tmpfs -o size={DISK} tmpfs "$0" && exec "$@"'
    as_root = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    small_disk = ["unshare", *as_root, "--mount", "--", "sh", "-c", mount]
    settings = {"REDLINE_BLOB_DIR": str(blob_dir)}
    with running_fleet(
        postgres_server_url, settings, {"memory": [*small_disk, str(blob_dir)]}
    ) as started:
        yield started


@pytest.fixture
async def gateway(fleet: Fleet, start_app: StartApp) -> ApiClient:
    for service in SERVICES:
        await fleet.ready(service)
    return await start_app(create_gateway(fleet.upstreams))


def text_file(text: str, name: str) -> dict[str, Any]:
    data = text.encode()
    file = {
        "base64": base64.b64encode(data).decode(),
        "mimeType": "text/plain",
        "fileName": name,
        "fileSize": len(data),
    }
    return {"source": "inline", "file": file}


async def sources(api: ApiClient, ws: Workspace) -> list[str]:
    listed = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
    assert listed.status == 200, listed.body
    return [s["id"] for s in listed.result]


async def test_a_full_blob_disk_refuses_the_ingest_cleanly_and_the_service_goes_on(
    gateway: ApiClient, blob_dir: Path
) -> None:
    ws = await gateway.create_workspace("diskfull@example.com")
    too_big = "The retention policy keeps records for seven years. " * (2 * DISK // 52)

    refused = await gateway.post(
        "/v2/memory/knowledge/ingest", text_file(too_big, "big.txt"), headers=ws.key_headers
    )
    ready = await gateway.session.get(gateway.base_url + "/readyz")
    fits = await gateway.post(
        "/v2/memory/knowledge/ingest",
        text_file("Invoices over ten thousand need a second approver.", "small.txt"),
        headers=ws.key_headers,
    )

    assert refused.status == 503, refused.body
    assert refused.body["error"]["status"] == "UNAVAILABLE"
    assert "No space left on device" in refused.body["error"]["message"]
    assert ready.status == 200
    assert fits.status == 200, fits.body
    source_id = fits.result["sourceId"]
    assert (await settled(gateway, ws, source_id))["status"] == "completed"
    assert await sources(gateway, ws) == [source_id]
    found = await gateway.post(
        "/v2/memory/knowledge/search",
        {"query": "who approves large invoices"},
        headers=ws.key_headers,
    )
    assert found.status == 200, found.body
    assert found.result["results"][0]["sourceId"] == source_id
