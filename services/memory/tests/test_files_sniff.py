import codecs
import io
import zipfile

import pytest

from redline.memory.knowledge.files import CSV, PDF, TEXT, XLSX, FileRejected, sniff
from services.memory.tests.files_support import handbook_pdf, plans_xlsx

MISMATCH = "unsupported-mime-detected-post-validation"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def rejection(data: bytes, mime_type: str) -> str:
    with pytest.raises(FileRejected) as rejected:
        sniff(data, mime_type)
    return rejected.value.code


def test_real_files_match_their_types() -> None:
    sniff(handbook_pdf(), PDF)
    sniff(plans_xlsx(), XLSX)
    sniff(b'plan;price\n"Basic";10\n', CSV)
    sniff(codecs.BOM_UTF16_LE + "Agents must log calls.\n".encode("utf-16-le"), TEXT)


def test_a_pdf_after_up_to_a_kilobyte_of_junk_is_a_pdf() -> None:
    sniff(b"\r\n" * 512 + handbook_pdf(), PDF)
    assert rejection(b"x" * 1100 + handbook_pdf(), PDF) == MISMATCH


def test_not_a_pdf_declared_as_pdf_is_a_mismatch() -> None:
    assert rejection(b"Agents must log calls.\n", PDF) == MISMATCH
    assert rejection(plans_xlsx(), PDF) == MISMATCH


def test_a_zip_without_a_workbook_is_not_xlsx() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<document/>")
    assert rejection(buffer.getvalue(), XLSX) == MISMATCH
    assert rejection(handbook_pdf(), XLSX) == MISMATCH
    assert rejection(b"PK\x03\x04 truncated", XLSX) == MISMATCH


@pytest.mark.parametrize("mime_type", [CSV, TEXT])
def test_binaries_declared_as_text_are_mismatches(mime_type: str) -> None:
    assert rejection(handbook_pdf(), mime_type) == MISMATCH
    assert rejection(PNG, mime_type) == MISMATCH
    assert rejection(plans_xlsx(), mime_type) == MISMATCH
    assert rejection(b"plain start, then \x00\x00\x00 binary", mime_type) == MISMATCH


def test_an_unknown_type_is_unsupported() -> None:
    assert rejection(b"{}", "application/json") == "unsupported-mime-type"
