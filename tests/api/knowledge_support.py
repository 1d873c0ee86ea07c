"""Files written by other tools, and the calls a knowledge test makes on the way to a result."""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

from fpdf import FPDF

from redline.testing.api import ApiClient, Workspace

PDF = "application/pdf"
CSV = "text/csv"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEXT = "text/plain"


def policy_pdf(pages: list[tuple[str, str]]) -> bytes:
    """A PDF with one page per (heading, body)."""
    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=15)
    for heading, body in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, body)
    return bytes(pdf.output())


def inline(data: bytes, mime_type: str, file_name: str, **scope: Any) -> dict[str, Any]:
    return {
        "source": "inline",
        "file": {
            "base64": base64.b64encode(data).decode(),
            "mimeType": mime_type,
            "fileName": file_name,
            "fileSize": len(data),
        },
        **scope,
    }


async def ingest(api: ApiClient, ws: Workspace, body: dict[str, Any]) -> str:
    response = await api.post("/v2/memory/knowledge/ingest", body, headers=ws.key_headers)
    assert response.status == 200, response.body
    assert response.result["status"] == "processing"
    source_id: str = response.result["sourceId"]
    return source_id


async def settled(api: ApiClient, ws: Workspace, source_id: str, timeout_s: float = 90) -> Any:
    """The ingest status once it is completed or failed."""
    async with asyncio.timeout(timeout_s):
        while True:
            status = await api.post(
                "/v2/memory/knowledge/ingest-status",
                {"sourceId": source_id},
                headers=ws.key_headers,
            )
            assert status.status == 200, status.body
            if status.result["status"] != "processing":
                return status.result
            await asyncio.sleep(0.1)


async def search(api: ApiClient, ws: Workspace, query: str, **extra: Any) -> Any:
    response = await api.post(
        "/v2/memory/knowledge/search", {"query": query, **extra}, headers=ws.key_headers
    )
    assert response.status == 200, response.body
    return response.result


def xlsx_of(sheets: dict[str, list[list[Any]]]) -> bytes:
    import xlsxwriter

    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r, c, value)
    book.close()
    return out.getvalue()
