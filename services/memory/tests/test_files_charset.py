import codecs

import pytest

from redline.memory.knowledge.files import FileRejected, decode_text
from redline.memory.knowledge.files.charset import read_text

POLICY = "Réclamations: répondre sous 24 h — toujours.\nZweite Zeile: Größe ü\n"


@pytest.mark.parametrize(
    "data",
    [
        POLICY.encode("utf-8"),
        codecs.BOM_UTF8 + POLICY.encode("utf-8"),
        codecs.BOM_UTF16_LE + POLICY.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + POLICY.encode("utf-16-be"),
        codecs.BOM_UTF32_LE + POLICY.encode("utf-32-le"),
        codecs.BOM_UTF32_BE + POLICY.encode("utf-32-be"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"],
)
def test_unicode_text_decodes_by_its_bom_or_as_utf8(data: bytes) -> None:
    assert decode_text(data) == POLICY


def test_latin1_text_that_is_not_utf8_decodes_as_latin1() -> None:
    assert decode_text("Café crème, naïve façade\n".encode("latin-1")) == (
        "Café crème, naïve façade\n"
    )


def test_windows_1252_punctuation_comes_out_as_quotes_and_dashes() -> None:
    rule = "\u201cNever\u201d \u2013 the agent\u2019s rule"
    assert decode_text(rule.encode("cp1252")) == rule


def test_binary_bytes_are_not_decodable() -> None:
    binary = bytes(range(256)) * 8
    with pytest.raises(FileRejected) as rejected:
        decode_text(binary)
    assert rejected.value.code == "text-not-decodable"


def test_a_bom_over_invalid_bytes_is_not_decodable() -> None:
    with pytest.raises(FileRejected) as rejected:
        decode_text(codecs.BOM_UTF16_LE + b"\x00\xd8")  # a lone surrogate
    assert rejected.value.code == "text-not-decodable"


def test_text_with_a_nul_byte_is_not_text() -> None:
    with pytest.raises(FileRejected) as rejected:
        read_text(b"name,value\nalpha,\x00\x01\n")
    assert rejected.value.code == "unsupported-mime-detected-post-validation"
    assert "U+0000" in rejected.value.detail


def test_tabs_form_feeds_and_carriage_returns_are_text() -> None:
    assert read_text(b"a\tb\r\n\x0cpage two\n") == "a\tb\r\n\x0cpage two\n"
