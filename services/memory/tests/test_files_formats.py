import codecs
import io
import zipfile

import pytest

from redline.memory.knowledge.files import (
    CSV,
    PDF,
    TEXT,
    XLSX,
    FileRejected,
    Limits,
    extract,
    sniff,
)
from services.memory.tests.files_support import handbook_pdf, plans_xlsx


def test_each_type_goes_to_its_reader() -> None:
    assert extract(handbook_pdf(), PDF, Limits()).passages[0].page == 1
    assert extract(plans_xlsx(), XLSX, Limits()).passages[0].sheet == "Plans"
    assert extract(b"a,b\n1,2\n", CSV, Limits()).passages[0].text == "a: 1; b: 2"


def test_utf16_text_with_a_bom_is_read() -> None:
    data = codecs.BOM_UTF16_LE + "Retours\n\nLes agents doivent sourire.\n".encode("utf-16-le")
    passages = extract(data, TEXT, Limits()).passages
    assert [(p.heading, p.text) for p in passages] == [("Retours", "Les agents doivent sourire.")]


def test_latin1_text_is_read() -> None:
    data = "Garantie\n\nLa garantie couvre deux ans. Agents must say «deux».\n".encode("latin-1")
    (passage,) = extract(data, TEXT, Limits()).passages
    assert passage.text == "La garantie couvre deux ans. Agents must say «deux»."


@pytest.mark.parametrize(
    ("data", "mime_type", "code"),
    [
        (b"", TEXT, "no-text-found"),
        (b" \n\n\t\n", TEXT, "no-text-found"),
        (b"\x00\x01\x02binary", TEXT, "unsupported-mime-detected-post-validation"),
        (b"{}", "application/json", "unsupported-mime-type"),
    ],
)
def test_files_without_text_are_refused(data: bytes, mime_type: str, code: str) -> None:
    with pytest.raises(FileRejected) as rejected:
        extract(data, mime_type, Limits())
    assert rejected.value.code == code


MISMATCH = "unsupported-mime-detected-post-validation"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def sniffed_rejection(data: bytes, mime_type: str) -> str:
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
    assert sniffed_rejection(b"x" * 1100 + handbook_pdf(), PDF) == MISMATCH


def test_not_a_pdf_declared_as_pdf_is_a_mismatch() -> None:
    assert sniffed_rejection(b"Agents must log calls.\n", PDF) == MISMATCH
    assert sniffed_rejection(plans_xlsx(), PDF) == MISMATCH


def test_a_zip_without_a_workbook_is_not_xlsx() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<document/>")
    assert sniffed_rejection(buffer.getvalue(), XLSX) == MISMATCH
    assert sniffed_rejection(handbook_pdf(), XLSX) == MISMATCH
    assert sniffed_rejection(b"PK\x03\x04 truncated", XLSX) == MISMATCH


@pytest.mark.parametrize("mime_type", [CSV, TEXT])
def test_binaries_declared_as_text_are_mismatches(mime_type: str) -> None:
    assert sniffed_rejection(handbook_pdf(), mime_type) == MISMATCH
    assert sniffed_rejection(PNG, mime_type) == MISMATCH
    assert sniffed_rejection(plans_xlsx(), mime_type) == MISMATCH
    assert sniffed_rejection(b"plain start, then \x00\x00\x00 binary", mime_type) == MISMATCH


def test_an_unknown_type_is_unsupported() -> None:
    assert sniffed_rejection(b"{}", "application/json") == "unsupported-mime-type"
