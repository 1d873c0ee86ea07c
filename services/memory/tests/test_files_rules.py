from redline.memory.knowledge.files import (
    PDF,
    TEXT,
    XLSX,
    Extracted,
    Limits,
    Passage,
    extract,
    extract_rules,
)
from services.memory.tests.files_support import handbook_pdf, plans_xlsx


def test_rules_of_the_handbook_come_with_their_headings() -> None:
    rules = extract_rules(extract(handbook_pdf(), PDF, Limits()))
    assert [(r.index, r.category, r.content) for r in rules] == [
        (0, "1. Refunds", "Agents must verify the caller's identity before any refund."),
        (1, "1. Refunds", "Never read a full card number aloud."),
        (2, "1. Refunds", "Refunds over 500 EUR need to be approved by a supervisor."),
        (3, "2. ESCALATION", "Do not promise a callback time you cannot keep."),
        (4, "2. ESCALATION", "Agents should log every escalation in the ticket."),
    ]


def test_rules_in_a_workbook_are_filed_under_their_sheet() -> None:
    rules = extract_rules(extract(plans_xlsx(), XLSX, Limits()))
    assert [(r.category, r.content) for r in rules] == [
        ("Plans", "Agents must not offer discounts on Basic.")
    ]


def test_each_statement_once_with_markers_and_spacing_cleaned() -> None:
    text = (
        b"Returns\n\n"
        b"Items are checked on arrival. Staff   must inspect\n  every box.\n\n"
        b"1. Always  print the label.\n"
        b"2) always print the label.\n"
        b"* Don't open sealed items. They are resold.\n"
    )
    rules = extract_rules(extract(text, TEXT, Limits()))
    assert [(r.category, r.content) for r in rules] == [
        ("Returns", "Staff must inspect every box."),
        ("Returns", "Always print the label."),
        ("Returns", "Don't open sealed items."),
    ]


def test_rules_stop_at_the_limit() -> None:
    passages = [Passage(kind="text", text=f"- Rule {n} must hold.") for n in range(10)]
    rules = extract_rules(Extracted(passages), Limits(max_rules=3))
    assert [r.content for r in rules] == [
        "Rule 0 must hold.",
        "Rule 1 must hold.",
        "Rule 2 must hold.",
    ]


def test_a_document_without_obligations_has_no_rules() -> None:
    assert extract_rules(extract(b"Shop hours are nine to five.", TEXT, Limits())) == []
