"""Customer files into knowledge: bytes in; passages, chunks, rules and Markdown out.

Pure and synchronous: no I/O besides the bytes given. Call `sniff` on upload, then `extract`,
then `chunk` and `extract_rules` on what it returns; each failure is a `FileRejected` with a
stable code.
"""

from redline.memory.knowledge.files.charset import decode_text
from redline.memory.knowledge.files.chunking import Chunk, chunk
from redline.memory.knowledge.files.extract import extract
from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.passage import Extracted, Passage, PassageKind
from redline.memory.knowledge.files.rejection import FileRejected
from redline.memory.knowledge.files.rules import Rule, extract_rules
from redline.memory.knowledge.files.sniff import CSV, MIME_TYPES, PDF, TEXT, XLSX, sniff
from redline.memory.knowledge.files.tokens import count_tokens

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
