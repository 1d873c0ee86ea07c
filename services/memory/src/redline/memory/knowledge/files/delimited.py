"""CSV into row passages: decoded, line lengths checked, dialect sniffed from a sample."""

from __future__ import annotations

import csv
import io

from redline.memory.knowledge.files.charset import read_text
from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.passage import Passage
from redline.memory.knowledge.files.rejection import FileRejected
from redline.memory.knowledge.files.tables import table_passages

# The sniffer's quote search grows with the square of the sample on hostile input (0.5 s at
# 8 KiB, 3 s at 16 KiB); 8 KiB still holds dozens of rows of an ordinary file.
SNIFF_SAMPLE_CHARS = 8 * 1024
DELIMITERS = ",;\t|"
# UTF-8 spends at most four bytes on a character: a line this short cannot be over the limit.
_MAX_BYTES_PER_CHAR = 4


def csv_passages(data: bytes, limits: Limits) -> list[Passage]:
    text = read_text(data)
    check_line_lengths(text, limits.max_line_bytes)
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text))
    # The csv module's own field limit (128 KiB) still applies: it stops an unclosed quote from
    # swallowing the rest of the file as one field.
    try:
        return table_passages(reader, max_rows=limits.max_rows)
    except csv.Error as error:
        raise FileRejected("csv-unreadable", f"line {reader.line_num}: {error}") from None


def check_line_lengths(text: str, max_bytes: int) -> None:
    """Raise `line-too-long` if a line of `text` is over `max_bytes` in UTF-8, before any line
    is parsed or copied; only lines long enough to be suspects are encoded to measure them."""
    newline = "\n" if "\n" in text else "\r"
    suspect = max_bytes // _MAX_BYTES_PER_CHAR
    start = 0
    while start <= len(text):
        end = text.find(newline, start)
        if end == -1:
            end = len(text)
        if end - start > suspect and len(text[start:end].encode("utf-8")) > max_bytes:
            number = text.count(newline, 0, start) + 1
            raise FileRejected(
                "line-too-long", f"line {number} is over {max_bytes} bytes; rows must be shorter"
            )
        start = end + 1


def _dialect(text: str) -> type[csv.Dialect]:
    """Excel's dialect with the delimiter and quote character sniffed from a sample.

    The rest of what the sniffer guesses is less reliable than Excel's defaults: it reports
    doubled quotes as unused when the sample has none, or when a quoted field spans lines.
    """
    sample = text[:SNIFF_SAMPLE_CHARS]
    if len(text) > SNIFF_SAMPLE_CHARS and "\n" in sample:
        # A cut line would look like a row with too few fields.
        sample = sample[: sample.rindex("\n")]
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=DELIMITERS)
    except csv.Error:
        return csv.excel

    class Sniffed(csv.excel):
        delimiter = sniffed.delimiter
        quotechar = sniffed.quotechar or '"'

    return Sniffed
