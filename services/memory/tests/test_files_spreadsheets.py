import datetime
import io
import time
import zipfile

import pytest

from redline.memory.knowledge.files import CSV, XLSX, FileRejected, Limits, extract
from redline.memory.knowledge.files.spreadsheets import (
    cell_text,
    check_archive,
    check_line_lengths,
    csv_passages,
    table_passages,
    xlsx_passages,
)
from services.memory.tests.files_support import plans_xlsx, with_declared_size, with_member


def test_blank_rows_and_an_empty_margin_are_dropped() -> None:
    rows = [["", "", ""], ["", "Name", "Role"], ["", "", ""], ["", "Ann", "Agent", ""]]
    passages = table_passages(rows, max_rows=10)
    assert [(p.header, p.cells, p.text) for p in passages] == [
        (("Name", "Role"), ("Ann", "Agent"), "Name: Ann; Role: Agent")
    ]


def test_unnamed_and_extra_columns_get_numbers() -> None:
    rows = [["Name", "", "Team"], ["Ann", "x", "Blue", "extra"]]
    (passage,) = table_passages(rows, max_rows=10, sheet="Staff")
    assert passage.header == ("Name", "Column 2", "Team", "Column 4")
    assert passage.text == "Name: Ann; Column 2: x; Team: Blue; Column 4: extra"
    assert passage.sheet == "Staff"


def test_cells_have_their_whitespace_normalised() -> None:
    (passage,) = table_passages([["A"], ["  two\n lines  "]], max_rows=10)
    assert passage.text == "A: two lines"


def test_more_rows_than_allowed_are_refused() -> None:
    with pytest.raises(FileRejected) as rejected:
        table_passages([["h"], ["1"], ["2"], ["3"]], max_rows=2)
    assert rejected.value.code == "file-too-large"


SEMICOLONS = (
    "Plan;Price;Notes\r\n"
    '"Basic";"10,00";"Agents must not offer discounts; ever."\r\n'
    "\r\n"
    '"Pro";"25,50";"Includes ""priority"" support\r\nand a phone line"\r\n'
    '"Team";;\r\n'
).encode("cp1252")


def csv_rejection(data: bytes, limits: Limits | None = None) -> FileRejected:
    with pytest.raises(FileRejected) as rejected:
        extract(data, CSV, limits or Limits())
    return rejected.value


def test_a_semicolon_csv_with_quoted_fields_becomes_rows_under_its_header() -> None:
    passages = csv_passages(SEMICOLONS, Limits())
    assert [p.text for p in passages] == [
        "Plan: Basic; Price: 10,00; Notes: Agents must not offer discounts; ever.",
        'Plan: Pro; Price: 25,50; Notes: Includes "priority" support and a phone line',
        "Plan: Team",
    ]
    assert all(p.kind == "row" and p.header == ("Plan", "Price", "Notes") for p in passages)


def test_a_single_column_file_falls_back_to_commas() -> None:
    passages = csv_passages(b"Rule\nAgents must log calls.\nNever skip the greeting.\n", Limits())
    assert [p.text for p in passages] == [
        "Rule: Agents must log calls.",
        "Rule: Never skip the greeting.",
    ]


def test_a_10_mb_line_is_refused_quickly() -> None:
    data = b"name,value\n" + b"a," + b"x" * (10 << 20) + b"\nb,1\n"
    started = time.perf_counter()
    refused = csv_rejection(data)
    assert refused.code == "line-too-long"
    assert "line 2" in refused.detail
    assert time.perf_counter() - started < 1


def test_line_lengths_count_utf8_bytes() -> None:
    check_line_lengths("é" * 50, 100)
    with pytest.raises(FileRejected):
        check_line_lengths("ok\n" + "é" * 51, 100)


def test_rows_past_the_limit_make_the_file_too_large() -> None:
    data = b"n\n" + b"".join(b"%d\n" % n for n in range(11))
    assert csv_rejection(data, Limits(max_rows=10)).code == "file-too-large"
    assert len(csv_passages(data[: data.rindex(b"10\n")], Limits(max_rows=10))) == 10


def test_an_unclosed_quote_is_unreadable_rather_than_one_huge_field() -> None:
    data = b'a,b\n"open,' + b"y" * 1000 + b"\n" + (b"z" * 1000 + b"\n") * 200
    assert csv_rejection(data).code == "csv-unreadable"


def test_a_header_without_rows_has_no_text() -> None:
    assert csv_rejection(b"only,a,header\n").code == "no-text-found"


def test_a_hostile_sample_does_not_stall_the_dialect_sniffer() -> None:
    data = b'x,"' * 200_000 + b"\nlast,row\n"
    started = time.perf_counter()
    passages = csv_passages(data, Limits())
    assert time.perf_counter() - started < 2
    assert len(passages) == 1


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


def xlsx_rejection(data: bytes, limits: Limits | None = None) -> FileRejected:
    with pytest.raises(FileRejected) as rejected:
        extract(data, XLSX, limits or Limits())
    return rejected.value


def test_a_member_declaring_300_mb_is_refused_before_inflating() -> None:
    bomb = with_declared_size(
        with_member(plans_xlsx(), "xl/media/image1.bin", bytes(4096)),
        "xl/media/image1.bin",
        300 << 20,
    )
    refused = xlsx_rejection(bomb)
    assert refused.code == "archive-too-large"
    assert "inflates to" in refused.detail


def test_a_member_inflating_over_100_times_past_10_mib_is_refused() -> None:
    bomb = with_member(plans_xlsx(), "xl/media/zeros.bin", bytes(12 << 20))
    refused = xlsx_rejection(bomb)
    assert refused.code == "archive-too-large"
    assert "xl/media/zeros.bin" in refused.detail


def test_the_total_is_measured_against_the_limit() -> None:
    assert (
        xlsx_rejection(plans_xlsx(), Limits(max_uncompressed_bytes=1000)).code
        == "archive-too-large"
    )


def test_more_than_10000_members_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(10_001):
            archive.writestr(f"xl/m{number}", b"")
    with zipfile.ZipFile(buffer) as archive, pytest.raises(FileRejected) as rejected:
        check_archive(archive, Limits())
    assert rejected.value.code == "archive-too-large"


def test_a_normal_workbook_passes() -> None:
    with zipfile.ZipFile(io.BytesIO(plans_xlsx())) as archive:
        check_archive(archive, Limits())
