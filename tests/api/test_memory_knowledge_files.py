"""Knowledge from every kind of file, uploaded by URL or inline, and what a tenant may see."""

from __future__ import annotations

import csv
import io
import zipfile

from redline.testing.api import ApiClient, Workspace, assert_failure
from tests.api.knowledge_support import (
    CSV,
    PDF,
    TEXT,
    XLSX,
    ingest,
    inline,
    policy_pdf,
    search,
    settled,
    xlsx_of,
)


async def _upload(api: ApiClient, ws: Workspace, data: bytes, mime_type: str) -> str:
    asked = await api.post(
        "/v2/memory/knowledge/upload-url",
        {"mimeType": mime_type, "fileSize": len(data), "fileName": "upload"},
        headers=ws.key_headers,
    )
    assert asked.status == 200, asked.body
    url = asked.result["uploadUrl"]
    headers = {"Content-Type": mime_type}
    async with api.session.put(url, data=io.BytesIO(data), headers=headers) as put:
        assert put.status == 200, await put.text()
    async with api.session.put(url, data=io.BytesIO(data), headers=headers) as again:
        assert again.status == 400  # one shot
    file_ref: str = asked.result["fileRef"]
    assert file_ref.startswith("gs://")
    return file_ref


async def test_an_uploaded_xlsx_of_two_sheets_is_searchable_by_its_rows(api: ApiClient) -> None:
    ws = await api.create_workspace()
    book = xlsx_of(
        {
            "Suppliers": [
                ["Supplier", "Country", "Payment terms"],
                ["Nordlicht GmbH", "Germany", "Invoices settled 30 days after receipt"],
                ["Sol y Mar SL", "Spain", "Half paid upfront, half on delivery"],
            ],
            "Warehouses": [
                ["Site", "Capacity", "Notes"],
                ["Rotterdam", 12000, "Refrigerated storage for perishable goods"],
                ["Lyon", 4000, "Hazardous materials are not accepted"],
            ],
        }
    )
    file_ref = await _upload(api, ws, book, XLSX)
    response = await api.post(
        "/v2/memory/knowledge/ingest",
        {"source": "fileRef", "fileRef": file_ref, "mimeType": XLSX},
        headers=ws.key_headers,
    )
    assert response.status == 200, response.body
    status = await settled(api, ws, response.result["sourceId"])
    assert status["status"] == "completed", status

    found = await search(api, ws, "which depot can keep food cold?")
    assert "Rotterdam" in found["results"][0]["text"]
    assert "Site" in found["results"][0]["text"]  # the header row comes with every chunk
    found = await search(api, ws, "which vendor do we pay in two instalments?")
    assert "Sol y Mar" in found["results"][0]["text"]

    reused = await api.post(
        "/v2/memory/knowledge/ingest",
        {"source": "fileRef", "fileRef": file_ref, "mimeType": XLSX},
        headers=ws.key_headers,
    )
    assert_failure(reused, 400, "FAILED_PRECONDITION")


async def test_a_csv_and_a_utf16_text_file_are_found_by_paraphrase(api: ApiClient) -> None:
    ws = await api.create_workspace()
    rows = io.StringIO()
    writer = csv.writer(rows, delimiter=";")
    writer.writerow(["Product", "Warranty"])
    writer.writerow(["Kettle K2", "Two years against manufacturing defects"])
    writer.writerow(["Toaster T9", "Heating elements are covered for five years"])
    csv_id = await ingest(api, ws, inline(rows.getvalue().encode(), CSV, "warranty.csv"))
    notes = "Meeting notes\n\nThe café on the ground floor closes at 3 pm on Fridays.\n"
    text_id = await ingest(api, ws, inline(notes.encode("utf-16"), TEXT, "notes.txt"))
    assert (await settled(api, ws, csv_id))["status"] == "completed"
    assert (await settled(api, ws, text_id))["status"] == "completed"

    found = await search(api, ws, "how long is the guarantee on the toaster's heater?")
    assert "Toaster T9" in found["results"][0]["text"]
    found = await search(api, ws, "when does the coffee shop shut at the end of the week?")
    assert "café" in found["results"][0]["text"]
    only_csv = await search(api, ws, "coffee shop", sourceId=csv_id)
    assert {r["sourceId"] for r in only_csv["results"]} == {csv_id}


async def test_hostile_files_fail_with_a_reason(api: ApiClient) -> None:
    ws = await api.create_workspace()
    mismatch = await api.post(
        "/v2/memory/knowledge/ingest",
        inline(b"\x89PNG\r\n\x1a\n" + bytes(200), TEXT, "picture.txt"),
        headers=ws.key_headers,
    )
    error = assert_failure(mismatch, 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "data.file.mimeType"

    huge_line = ("a" * (10 << 20)).encode()
    file_ref = await _upload(api, ws, b"h1,h2\n" + huge_line + b"\n", CSV)
    response = await api.post(
        "/v2/memory/knowledge/ingest",
        {"source": "fileRef", "fileRef": file_ref, "mimeType": CSV},
        headers=ws.key_headers,
    )
    status = await settled(api, ws, response.result["sourceId"])
    assert status["status"] == "failed"
    assert status["failureReason"] == "line-too-long"
    assert status["failureDetail"]

    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(policy_pdf([("Secret", "Nothing to see.")])))
    writer.encrypt(user_password="", owner_password="owner")
    locked = io.BytesIO()
    writer.write(locked)
    source_id = await ingest(api, ws, inline(locked.getvalue(), PDF, "locked.pdf"))
    status = await settled(api, ws, source_id)
    assert (status["status"], status["failureReason"]) == ("failed", "pdf-encrypted")

    # A workbook carrying 200 MB of zeros that deflate to a few hundred kilobytes.
    bomb = io.BytesIO(xlsx_of({"Sheet": [["a"], ["b"]]}))
    with (
        zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as out,
        out.open("xl/media/zeros.bin", "w") as member,
    ):
        for _ in range(200):
            member.write(bytes(1 << 20))
    source_id = await ingest(api, ws, inline(bomb.getvalue(), XLSX, "bomb.xlsx"))
    status = await settled(api, ws, source_id)
    assert (status["status"], status["failureReason"]) == ("failed", "archive-too-large")


async def test_two_workspaces_ingesting_one_file_see_only_their_own(api: ApiClient) -> None:
    first, second = await api.create_workspace(), await api.create_workspace("b@example.com")
    pdf = policy_pdf([("Leave", "Employees get twenty-five days of paid holiday a year.")])
    first_id = await ingest(api, first, inline(pdf, PDF, "leave.pdf"))
    second_id = await ingest(api, second, inline(pdf, PDF, "leave.pdf"))
    await settled(api, first, first_id)
    await settled(api, second, second_id)

    for ws, own in ((first, first_id), (second, second_id)):
        found = await search(api, ws, "how much vacation do staff receive?")
        assert {r["sourceId"] for r in found["results"]} == {own}
    other = await search(api, first, "vacation", sourceId=second_id)
    assert other == {"results": [], "recordsSearched": 0}
    status = await api.post(
        "/v2/memory/knowledge/ingest-status", {"sourceId": second_id}, headers=first.key_headers
    )
    assert_failure(status, 404, "NOT_FOUND")
    deleted = await api.post(
        "/v2/memory/knowledge/delete", {"sourceId": second_id}, headers=first.key_headers
    )
    assert_failure(deleted, 404, "NOT_FOUND")


async def test_list_rules_and_delete(api: ApiClient) -> None:
    ws = await api.create_workspace()
    pdf = policy_pdf(
        [("Style", "Headlines must use sentence case.\nNever use exclamation marks in titles.")]
    )
    source_id = await ingest(api, ws, inline(pdf, PDF, "style.pdf"))
    await settled(api, ws, source_id)

    listed = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
    assert [s["id"] for s in listed.result] == [source_id]
    assert listed.result[0]["embeddingStatus"] == "completed"
    async with api.session.get(listed.result[0]["originalDownloadUrl"]) as original:
        assert original.status == 200
        assert await original.read() == pdf

    rules = await api.post(
        "/v2/memory/knowledge/rules", {"sourceId": source_id}, headers=ws.key_headers
    )
    contents = [r["content"] for r in rules.result]
    assert any("sentence case" in c for c in contents)
    assert any("exclamation" in c for c in contents)
    with_rules = await search(api, ws, "may titles end with '!'?", includeRules=True)
    assert any(r.get("kind") == "rule" and r.get("ruleId") for r in with_rules["results"])

    deleted = await api.post(
        "/v2/memory/knowledge/delete", {"sourceId": source_id}, headers=ws.key_headers
    )
    assert deleted.result["status"] == "deleted"
    assert deleted.result["deletedRules"] == len(rules.result)
    assert (await search(api, ws, "headline case"))["results"] == []
    listed = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
    assert listed.result == []
