import datetime

import pytest

from redline.memory.knowledge.files import XLSX, FileRejected, Limits, extract
from redline.memory.knowledge.files.workbook import cell_text, xlsx_passages
from services.memory.tests.files_support import plans_xlsx


def test_every_sheet_becomes_rows_with_the_sheet_name() -> None:
    passages = xlsx_passages(plans_xlsx(), Limits())
    assert [(p.sheet, p.text) for p in passages] == [
        (
            "Plans",
            "Plan: Basic; Monthly price: 10; Notes: Agents must not offer discounts on Basic.",
        ),
        ("Plans", "Plan: Pro; Monthly price: 25.5; Renews: 2025-05-01"),
        ("Plans", "Plan: Team; Monthly price: 0.3; Notes: Price per | seat"),
        ("Contacts", "Name: Ann Lee; Email: ann@example.com"),
        ("Contacts", "Name: Bo Chen; Email: bo@example.com"),
    ]
    assert passages[0].header == ("Plan", "Monthly price", "Renews", "Notes")
    assert passages[-1].header == ("Name", "Email")


def test_rows_over_all_sheets_count_against_the_limit() -> None:
    with pytest.raises(FileRejected) as rejected:
        extract(plans_xlsx(), XLSX, Limits(max_rows=4))
    assert rejected.value.code == "file-too-large"


@pytest.mark.parametrize(
    "data",
    [b"PK\x03\x04 not a zip", b"", b"%PDF-1.7"],
    ids=["broken-zip", "empty", "pdf"],
)
def test_a_broken_workbook_is_unreadable(data: bytes) -> None:
    with pytest.raises(FileRejected) as rejected:
        extract(data, XLSX, Limits())
    assert rejected.value.code == "xlsx-unreadable"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (True, "TRUE"),
        (12, "12"),
        (12.0, "12"),
        (0.1 + 0.2, "0.3"),
        (1234567.891, "1234567.891"),
        (datetime.datetime(2025, 5, 1), "2025-05-01"),
        (datetime.datetime(2025, 5, 1, 9, 30), "2025-05-01 09:30:00"),
        (datetime.time(9, 30), "09:30:00"),
        ("#DIV/0!", "#DIV/0!"),
    ],
)
def test_cells_read_as_excel_shows_them(value: object, text: str) -> None:
    assert cell_text(value) == text
