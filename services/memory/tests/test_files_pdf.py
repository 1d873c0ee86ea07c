import pytest

from redline.memory.knowledge.files import PDF, FileRejected, Limits, extract
from redline.memory.knowledge.files.pdf import pdf_passages
from services.memory.tests.files_support import (
    ESCALATION_PARAGRAPH,
    drawing_pdf,
    encrypted_pdf,
    handbook_pdf,
)


def rejection(data: bytes, limits: Limits | None = None) -> str:
    with pytest.raises(FileRejected) as rejected:
        extract(data, PDF, limits or Limits())
    return rejected.value.code


def test_passages_keep_their_page_numbers_and_headings() -> None:
    passages = pdf_passages(handbook_pdf(), Limits())
    found = [(p.page, p.heading, p.text[:40]) for p in passages]
    assert found == [
        (1, None, "Support Handbook"),
        (1, "1. Refunds", "Customers may ask for a refund within 30"),
        (1, "1. Refunds", "- Agents must verify the caller's identi"),
        (1, "1. Refunds", "- Never read a full card number aloud."),
        (1, "1. Refunds", "- Refunds over 500 EUR need to be approv"),
        (2, "2. ESCALATION", ESCALATION_PARAGRAPH[:40]),
        (2, "2. ESCALATION", "- Do not promise a callback time you can"),
        (3, "2. ESCALATION", ESCALATION_PARAGRAPH[:40]),
    ]


def test_running_page_numbers_are_left_out() -> None:
    passages = pdf_passages(handbook_pdf(), Limits())
    assert not any("of 3" in p.text for p in passages)


def test_wrapped_lines_are_joined_into_one_paragraph() -> None:
    refunds = pdf_passages(handbook_pdf(), Limits())[1]
    assert "\n" not in refunds.text
    assert "order number, e.g. A-1234, against the receipt" in refunds.text


def test_an_encrypted_pdf_is_refused_even_with_an_empty_password() -> None:
    assert rejection(encrypted_pdf()) == "pdf-encrypted"


def test_a_file_that_is_not_a_pdf_is_unreadable() -> None:
    assert rejection(b"%PDF-1.7\nthis is not really a PDF at all\n") == "pdf-unreadable"
    assert rejection(b"Plain words only.") == "pdf-unreadable"


def test_a_pdf_without_text_has_no_text() -> None:
    assert rejection(drawing_pdf()) == "no-text-found"


def test_pages_past_the_limit_make_the_file_too_large() -> None:
    assert rejection(handbook_pdf(), Limits(max_pages=2)) == "file-too-large"
