from redline.memory.knowledge.files.text import TextReader, text_passages

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
