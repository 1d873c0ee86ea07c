from redline.memory.knowledge.files import PDF, XLSX, Extracted, Limits, Passage, extract
from redline.memory.knowledge.files.markdown import render_markdown
from services.memory.tests.files_support import handbook_pdf, plans_xlsx


def test_a_pdf_renders_with_headings_lists_and_page_marks() -> None:
    markdown = render_markdown(extract(handbook_pdf(), PDF, Limits()).passages)
    assert markdown.startswith("<!-- page 1 -->\n\nSupport Handbook\n\n# 1. Refunds\n\n")
    assert (
        "- Agents must verify the caller's identity before any refund.\n"
        "- Never read a full card number aloud.\n"
    ) in markdown
    assert "\n\n---\n\n<!-- page 2 -->\n\n# 2. ESCALATION\n\n" in markdown
    # The section goes on over page 3 without its heading repeated.
    assert markdown.count("# 2. ESCALATION") == 1
    assert "<!-- page 3 -->" in markdown


def test_a_workbook_renders_each_sheet_as_a_pipe_table() -> None:
    markdown = render_markdown(extract(plans_xlsx(), XLSX, Limits()).passages)
    assert "# Plans\n\n| Plan | Monthly price | Renews | Notes |\n| --- | --- | --- | --- |\n" in (
        markdown
    )
    assert "| Team | 0.3 |  | Price per \\| seat |" in markdown
    assert markdown.endswith(
        "# Contacts\n\n| Name | Email |\n| --- | --- |\n"
        "| Ann Lee | ann@example.com |\n| Bo Chen | bo@example.com |\n"
    )


def test_rows_shorter_than_the_header_are_padded() -> None:
    rows = [
        Passage(kind="row", text="A: 1", header=("A", "B"), cells=("1",)),
        Passage(kind="row", text="A: 2; B: 3", header=("A", "B"), cells=("2", "3")),
    ]
    assert (
        render_markdown(Extracted(rows).passages)
        == "| A | B |\n| --- | --- |\n| 1 |  |\n| 2 | 3 |\n"
    )


def test_nothing_renders_as_nothing() -> None:
    assert render_markdown([]) == ""
