import codecs

import pytest

from redline.memory.knowledge.files import (
    CSV,
    PDF,
    TEXT,
    XLSX,
    FileRejected,
    Limits,
    extract,
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
