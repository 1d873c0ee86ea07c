"""What the ingest worker tests share: a tenant, a text file, a source row for it, and waiting
for a source to settle."""

from __future__ import annotations

import asyncio
import hashlib

from redline.memory.knowledge import storage
from redline.memory.vectors import Tenant
from redline.pg import Pool

TENANT = Tenant("ws-1", "key-1")
TEXT = (
    "Onboarding\n\n"
    + " ".join(
        f"New starters must finish safety module {i} in their first week." for i in range(60)
    )
    + "\n"
).encode()


def source_row(
    source_id: str, blob_key: str, data: bytes, tenant: Tenant = TENANT
) -> storage.SourceRow:
    return storage.SourceRow(
        api_key=tenant.api_key,
        source_id=source_id,
        workspace_id=tenant.workspace_id,
        organization_id=None,
        document_id=None,
        source_type="inline",
        file_name="onboarding.txt",
        mime_type="text/plain",
        file_size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        blob_key=blob_key,
        status="processing",
        uploaded_at=1,
        started_at=1,
        updated_at=1,
    )


async def until_settled(pool: Pool, source_id: str) -> storage.SourceRow:
    async with asyncio.timeout(60):
        while True:
            async with pool.acquire() as conn:
                row = await storage.source(conn, TENANT.api_key, source_id)
            assert row is not None
            if row.status != "processing":
                return row
            await asyncio.sleep(0.05)
