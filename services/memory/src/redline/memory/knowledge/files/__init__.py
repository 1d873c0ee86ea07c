"""Customer files into knowledge: bytes in; passages, chunks, rules and Markdown out.

Pure and synchronous: no I/O besides the bytes given. Call `sniff` on upload, then `extract`,
then `chunk` and `extract_rules` on what it returns; each failure is a `FileRejected` with a
stable code.

`formats` takes a file by its declared mime type to its reader: `pdf`, `spreadsheets` (CSV and
XLSX) or `text`, each yielding the `passage`s of the file. `chunking` packs passages into chunks
for embedding, `rules` finds the sentences (`sentences`) that oblige or forbid, and `markdown`
renders passages for download. `limits` bounds what one file may cost and says how a file is
refused.
"""

from redline.memory.knowledge.files.chunking import Chunk, chunk, count_tokens
from redline.memory.knowledge.files.formats import CSV, MIME_TYPES, PDF, TEXT, XLSX, extract, sniff
from redline.memory.knowledge.files.limits import FileRejected, Limits
from redline.memory.knowledge.files.passage import Extracted, Passage, PassageKind
from redline.memory.knowledge.files.rules import Rule, extract_rules
from redline.memory.knowledge.files.text import decode_text

__all__ = [
    "CSV",
    "MIME_TYPES",
    "PDF",
    "TEXT",
    "XLSX",
    "Chunk",
    "Extracted",
    "FileRejected",
    "Limits",
    "Passage",
    "PassageKind",
    "Rule",
    "chunk",
    "count_tokens",
    "decode_text",
    "extract",
    "extract_rules",
    "sniff",
]
