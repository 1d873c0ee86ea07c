"""Text decoding without a detection library: byte-order marks, then UTF-8, then a single-byte
Western fallback for files that look like text."""

from __future__ import annotations

import codecs
import re

from redline.memory.knowledge.files.rejection import FileRejected

# Control characters that never occur in text: C0 except tab, line feed, form feed and carriage
# return, DEL, and the C1 range a Latin-1 decode produces from binary bytes.
_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")

# A legacy file may hold a stray control character or two; binary data holds many.
_LEGACY_CONTROL_SHARE = 0.001

# Longest BOMs first: the UTF-32 LE mark begins with the UTF-16 LE mark.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(data: bytes) -> str:
    """`data` as text: by its BOM (UTF-8, UTF-16, UTF-32), else as UTF-8, else as a legacy
    single-byte file if it looks like text; `text-not-decodable` otherwise."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decoded(data[len(bom) :], encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    text = _legacy_decoded(data)
    if _has_many_controls(text):
        raise FileRejected(
            "text-not-decodable",
            "the file is neither UTF-8 nor UTF-16/32 with a byte-order mark, "
            "and too many of its bytes are control characters for Latin-1 text",
        )
    return text


def read_text(data: bytes) -> str:
    """`data` decoded as text that holds no binary control characters (NUL and the like)."""
    text = decode_text(data)
    found = _BINARY_CONTROL.search(text)
    if found is not None:
        raise FileRejected(
            "unsupported-mime-detected-post-validation",
            f"the file declared as text holds a binary control character "
            f"(U+{ord(found.group()):04X}) at character {found.start()}",
        )
    return text


def _decoded(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise FileRejected(
            "text-not-decodable",
            f"the file starts with a {encoding} byte-order mark but is not valid {encoding} "
            f"at byte {error.start}",
        ) from None


def _has_many_controls(text: str) -> bool:
    allowed = len(text) * _LEGACY_CONTROL_SHARE
    # Stops at the first control over the allowance: binary data gets there within a few KB.
    found = enumerate(_BINARY_CONTROL.finditer(text), start=1)
    return any(count > allowed for count, _ in found)


def _legacy_decoded(data: bytes) -> str:
    # Files called Latin-1 are nearly always Windows-1252: its curly quotes and dashes sit where
    # Latin-1 has C1 control codes. Five bytes are undefined in 1252; then Latin-1 it is.
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")
