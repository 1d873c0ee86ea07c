import time

import pytest

from redline.memory.knowledge.files import CSV, FileRejected, Limits, extract
from redline.memory.knowledge.files.delimited import check_line_lengths, csv_passages

SEMICOLONS = (
    "Plan;Price;Notes\r\n"
    '"Basic";"10,00";"Agents must not offer discounts; ever."\r\n'
    "\r\n"
    '"Pro";"25,50";"Includes ""priority"" support\r\nand a phone line"\r\n'
    '"Team";;\r\n'
).encode("cp1252")


def rejection(data: bytes, limits: Limits | None = None) -> FileRejected:
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
    refused = rejection(data)
    assert refused.code == "line-too-long"
    assert "line 2" in refused.detail
    assert time.perf_counter() - started < 1


def test_line_lengths_count_utf8_bytes() -> None:
    check_line_lengths("é" * 50, 100)
    with pytest.raises(FileRejected):
        check_line_lengths("ok\n" + "é" * 51, 100)


def test_rows_past_the_limit_make_the_file_too_large() -> None:
    data = b"n\n" + b"".join(b"%d\n" % n for n in range(11))
    assert rejection(data, Limits(max_rows=10)).code == "file-too-large"
    assert len(csv_passages(data[: data.rindex(b"10\n")], Limits(max_rows=10))) == 10


def test_an_unclosed_quote_is_unreadable_rather_than_one_huge_field() -> None:
    data = b'a,b\n"open,' + b"y" * 1000 + b"\n" + (b"z" * 1000 + b"\n") * 200
    assert rejection(data).code == "csv-unreadable"


def test_a_header_without_rows_has_no_text() -> None:
    assert rejection(b"only,a,header\n").code == "no-text-found"


def test_a_hostile_sample_does_not_stall_the_dialect_sniffer() -> None:
    data = b'x,"' * 200_000 + b"\nlast,row\n"
    started = time.perf_counter()
    passages = csv_passages(data, Limits())
    assert time.perf_counter() - started < 2
    assert len(passages) == 1
