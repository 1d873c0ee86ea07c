"""Real files for the file-extraction tests, written by fpdf2, xlsxwriter and zipfile.

Each builder is cached: a file is built once per test run, whichever tests use it.
"""

from __future__ import annotations

import datetime
import io
import struct
import zipfile
from functools import cache

import xlsxwriter
from fpdf import FPDF

REFUND_PARAGRAPH = (
    "Customers may ask for a refund within 30 days of purchase. The agent checks the order "
    "number, e.g. A-1234, against the receipt before anything else. Refunds go back to the "
    "card that paid; store credit is offered only when the card has expired. "
)
ESCALATION_PARAGRAPH = (
    "Supervisors answer escalations within one business hour. A ticket that waits longer is "
    "flagged on the dashboard, and the duty manager takes it over. "
)


def _pdf() -> FPDF:
    pdf = FPDF()
    # Windows-1252 lets the core fonts draw the bullet character.
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_font("Helvetica", size=11)
    return pdf


def _write(pdf: FPDF, text: str, *, size: int = 11, style: str = "") -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.multi_cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


@cache
def handbook_pdf() -> bytes:
    """Three pages: a title, numbered headings, long paragraphs, a bulleted list of rules, a
    running page number at each page's foot, and a section that carries onto page 3."""
    pdf = _pdf()
    pdf.add_page()
    _write(pdf, "Support Handbook", size=18, style="B")
    _write(pdf, "1. Refunds", size=14, style="B")
    _write(pdf, REFUND_PARAGRAPH * 4)
    _write(pdf, "\u2022 Agents must verify the caller's identity before any refund.")
    _write(pdf, "\u2022 Never read a full card number aloud.")
    _write(pdf, "\u2022 Refunds over 500 EUR need to be approved by a supervisor.")
    _page_number(pdf)
    pdf.add_page()
    _write(pdf, "2. ESCALATION", size=14, style="B")
    _write(pdf, ESCALATION_PARAGRAPH * 3)
    _write(pdf, "- Do not promise a callback time you cannot keep.")
    _page_number(pdf)
    pdf.add_page()
    _write(pdf, ESCALATION_PARAGRAPH)
    _write(pdf, "Agents should log every escalation in the ticket.")
    _page_number(pdf)
    return bytes(pdf.output())


def _page_number(pdf: FPDF) -> None:
    pdf.set_font("Helvetica", size=9)
    pdf.text(100, 287, f"Page {pdf.page_no()} of 3")


@cache
def encrypted_pdf() -> bytes:
    """Encrypted with an owner password only: any reader opens it with the empty password."""
    pdf = _pdf()
    pdf.set_encryption(owner_password="owner-secret")
    pdf.add_page()
    _write(pdf, "Confidential pricing. Agents must not share it.")
    return bytes(pdf.output())


@cache
def drawing_pdf() -> bytes:
    """A page with a rectangle and no text at all, like a scan without OCR."""
    pdf = _pdf()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    return bytes(pdf.output())


@cache
def plans_xlsx() -> bytes:
    """Two sheets: "Plans" with a header in row 1, "Contacts" drawn from B3 with a blank row."""
    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True})
    plans = workbook.add_worksheet("Plans")
    plans.write_row(0, 0, ["Plan", "Monthly price", "Renews", "Notes"])
    plans.write_row(1, 0, ["Basic", 10, None, "Agents must not offer discounts on Basic."])
    plans.write_row(2, 0, ["Pro", 25.5])
    plans.write_datetime(
        2, 2, datetime.datetime(2025, 5, 1), workbook.add_format({"num_format": "yyyy-mm-dd"})
    )
    plans.write_row(3, 0, ["Team", 0.1 + 0.2, None, "Price per | seat"])
    contacts = workbook.add_worksheet("Contacts")
    contacts.write_row(2, 1, ["Name", "Email"])
    contacts.write_row(3, 1, ["Ann Lee", "ann@example.com"])
    contacts.write_row(5, 1, ["Bo Chen", "bo@example.com"])
    workbook.close()
    return buffer.getvalue()


def with_member(archive: bytes, name: str, data: bytes) -> bytes:
    """`archive` with one more member, deflated."""
    buffer = io.BytesIO(archive)
    with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        out.writestr(name, data)
    return buffer.getvalue()


def with_declared_size(archive: bytes, name: str, size: int) -> bytes:
    """`archive` with `name`'s uncompressed size rewritten to `size` in its local header and in
    the central directory: a bomb's claim without a bomb's bytes."""
    patched = bytearray(archive)
    encoded = name.encode()
    # (signature, offset of the uncompressed size, of the name's length, of the name)
    layouts = ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46))
    for signature, size_at, length_at, name_at in layouts:
        start = patched.find(signature)
        while start != -1:
            (length,) = struct.unpack_from("<H", patched, start + length_at)
            if patched[start + name_at : start + name_at + length] == encoded:
                struct.pack_into("<I", patched, start + size_at, size)
            start = patched.find(signature, start + 4)
    return bytes(patched)
