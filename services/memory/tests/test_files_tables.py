import pytest

from redline.memory.knowledge.files import FileRejected
from redline.memory.knowledge.files.tables import header_line, table_passages


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


def test_the_header_line_lists_the_columns() -> None:
    assert header_line(("Plan", "Price")) == "Columns: Plan | Price"
