import codecs

import pytest

from redline.memory.knowledge.files import FileRejected, decode_text
from redline.memory.knowledge.files.text import TextReader, heading_of, read_text, text_passages

POLICY = """\
Support Handbook

1. Refunds
Customers may ask for a refund within 30 days.
The agent checks the receipt first.

- Agents must verify identity.
* Never read a card number aloud,
  not even the last digits.
\u2022 Refunds need to be approved.

## Escalation
Supervisors answer within one hour.\r
\r
A ticket that waits is flag-
ged on the dashboard.
"""


def test_paragraphs_list_items_and_headings_become_passages() -> None:
    passages = text_passages(POLICY)
    assert [(p.heading, p.text) for p in passages] == [
        (None, "Support Handbook"),
        (
            "1. Refunds",
            "Customers may ask for a refund within 30 days. The agent checks the receipt first.",
        ),
        ("1. Refunds", "- Agents must verify identity."),
        ("1. Refunds", "- Never read a card number aloud, not even the last digits."),
        ("1. Refunds", "- Refunds need to be approved."),
        ("Escalation", "Supervisors answer within one hour."),
        ("Escalation", "A ticket that waits is flag-ged on the dashboard."),
    ]
    assert all(p.kind == "text" and p.page is None for p in passages)


def test_a_heading_carries_onto_the_next_page() -> None:
    reader = TextReader()
    reader.read("Intro text here.\nDelivery Times", page=1)
    reader.read("Orders ship in two days.", page=2)
    passages = reader.finish()
    assert [(p.page, p.heading, p.text) for p in passages] == [
        (1, None, "Intro text here."),
        (2, "Delivery Times", "Orders ship in two days."),
    ]


def test_a_heading_at_the_very_end_is_kept_as_text() -> None:
    passages = text_passages("Body text.\n\nAppendix")
    assert [p.text for p in passages] == ["Body text.", "Appendix"]


MULTILINGUAL_POLICY = "Réclamations: répondre sous 24 h — toujours.\nZweite Zeile: Größe ü\n"


@pytest.mark.parametrize(
    "data",
    [
        MULTILINGUAL_POLICY.encode("utf-8"),
        codecs.BOM_UTF8 + MULTILINGUAL_POLICY.encode("utf-8"),
        codecs.BOM_UTF16_LE + MULTILINGUAL_POLICY.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + MULTILINGUAL_POLICY.encode("utf-16-be"),
        codecs.BOM_UTF32_LE + MULTILINGUAL_POLICY.encode("utf-32-le"),
        codecs.BOM_UTF32_BE + MULTILINGUAL_POLICY.encode("utf-32-be"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"],
)
def test_unicode_text_decodes_by_its_bom_or_as_utf8(data: bytes) -> None:
    assert decode_text(data) == MULTILINGUAL_POLICY


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


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("Refund Policy", "Refund Policy"),
        ("Terms of Service for the Web Shop", "Terms of Service for the Web Shop"),
        ("ESCALATION RULES", "ESCALATION RULES"),
        ("3. Refunds", "3. Refunds"),
        ("3.1 Scope of the policy", "3.1 Scope of the policy"),
        ("IV. Data Protection", "IV. Data Protection"),
        ("## Returns and exchanges", "Returns and exchanges"),
        ("# Shipping #", "Shipping"),
        ("What Is Covered?", "What Is Covered?"),
    ],
)
def test_headings_are_recognised(line: str, title: str) -> None:
    assert heading_of(line) == title


@pytest.mark.parametrize(
    "line",
    [
        "Refunds are issued within five days.",
        "The agent checks the order number",
        "1. Open the ticket",
        "2. Never Share Passwords.",
        "3.2 Agents must escalate",
        "- Never share passwords",
        "Refund Policy, Terms and Conditions,",
        "A Very Long Title That Goes On And On Past Any Reasonable Length For A Heading Line Here",
        "",
        "42",
    ],
)
def test_sentences_steps_and_list_items_are_not_headings(line: str) -> None:
    assert heading_of(line) is None
