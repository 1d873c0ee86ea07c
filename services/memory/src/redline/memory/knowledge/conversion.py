"""Converting one file in a child process, bounded in time and memory.

Parsers of customer files are where hostile input bites: a PDF that loops, a spreadsheet that
inflates, a line of ten megabytes. Each file is converted by a fresh `python -m` of this module,
with its address space capped (RLIMIT_AS) and a wall-clock timeout; whatever it does, the
service loses at most that child, and the file fails with a reason. Bytes go in on stdin, a
msgpack `Converted` comes out on stdout. The child's environment holds none of the service's
settings or credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import sys
from collections.abc import Mapping

import msgspec

from redline.memory.background import lower_this_processs_priority
from redline.memory.knowledge.files import (
    FileRejected,
    Limits,
    chunk,
    extract,
    extract_rules,
    sniff,
)
from redline.memory.knowledge.files.markdown import render_markdown


class ChunkSizes(msgspec.Struct, frozen=True):
    target_tokens: int = 400
    max_tokens: int = 500
    overlap_tokens: int = 60


class ConvertedChunk(msgspec.Struct, frozen=True):
    index: int
    text: str
    page: int | None
    sheet: str | None
    heading: str | None


class ConvertedRule(msgspec.Struct, frozen=True):
    index: int
    content: str
    category: str | None


class Converted(msgspec.Struct, frozen=True, tag=True):
    chunks: list[ConvertedChunk]
    rules: list[ConvertedRule]
    markdown: str


class Rejected(msgspec.Struct, frozen=True, tag=True):
    code: str
    detail: str


class Job(msgspec.Struct, frozen=True):
    mime_type: str
    sizes: ChunkSizes
    limits: Limits
    data: bytes


_answer: msgspec.msgpack.Decoder[Converted | Rejected] = msgspec.msgpack.Decoder(
    Converted | Rejected
)


def convert(job: Job) -> Converted:
    """The conversion itself (what the child runs); raises FileRejected."""
    sniff(job.data, job.mime_type)
    extracted = extract(job.data, job.mime_type, job.limits)
    sizes = job.sizes
    chunks = chunk(
        extracted,
        target_tokens=sizes.target_tokens,
        max_tokens=sizes.max_tokens,
        overlap_tokens=sizes.overlap_tokens,
    )
    if len(chunks) > job.limits.max_chunks:
        raise FileRejected(
            "too-many-chunks",
            f"the file makes {len(chunks)} chunks; at most {job.limits.max_chunks} are indexed"
            " per file",
        )
    rules = extract_rules(extracted, job.limits)
    return Converted(
        chunks=[ConvertedChunk(c.index, c.text, c.page, c.sheet, c.heading) for c in chunks],
        rules=[ConvertedRule(r.index, r.content, r.category) for r in rules],
        markdown=render_markdown(extracted.passages),
    )


# What the child keeps of the service's environment: what Python needs to start and to decode
# text as the service does. Never the settings (REDLINE_*: the secret key, the database and
# NATS URLs with their passwords) nor any other credential: a parser of hostile files has no
# use for them, and one that is taken over must not find them.
CHILD_ENVIRONMENT = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


def child_environment(parent: Mapping[str, str]) -> dict[str, str]:
    """The environment a conversion child gets, given the service's."""
    return {name: parent[name] for name in CHILD_ENVIRONMENT if name in parent}


async def start_child(*, memory_mb: int) -> asyncio.subprocess.Process:
    """A fresh converter, its address space capped at `memory_mb` and its CPU priority that of
    background work, waiting for its job on stdin."""

    def confine() -> None:  # runs in the child, before Python starts
        cap = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        lower_this_processs_priority()

    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=confine,
        env=child_environment(os.environ),
    )


async def convert_in_child(job: Job, *, timeout_s: float, memory_mb: int) -> Converted:
    """Run `convert` in a child process; FileRejected when the file fails or breaks a bound."""
    child = await start_child(memory_mb=memory_mb)
    try:
        async with asyncio.timeout(timeout_s):
            out, err = await child.communicate(msgspec.msgpack.encode(job))
    except TimeoutError:
        raise FileRejected(
            "conversion-timeout", f"the file took longer than {timeout_s:g} s to convert"
        ) from None
    finally:
        if child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
    if child.returncode != 0:
        raise _crashed(child.returncode, err, memory_mb)
    answer = _answer.decode(out)
    if isinstance(answer, Rejected):
        raise FileRejected(answer.code, answer.detail)
    converted: Converted = answer
    return converted


def _crashed(returncode: int | None, stderr: bytes, memory_mb: int) -> FileRejected:
    text = stderr.decode(errors="replace")
    if "MemoryError" in text or returncode in (-9, 137):
        return FileRejected(
            "file-too-large", f"converting the file needed more than {memory_mb} MB of memory"
        )
    last = text.strip().splitlines()[-1:] or [f"exit status {returncode}"]
    return FileRejected("conversion-failed", f"the converter stopped: {last[0][:300]}")


def main() -> None:
    job = msgspec.msgpack.decode(sys.stdin.buffer.read(), type=Job)
    try:
        answer: Converted | Rejected = convert(job)
    except FileRejected as rejected:
        answer = Rejected(rejected.code, rejected.detail)
    sys.stdout.buffer.write(msgspec.msgpack.encode(answer))


if __name__ == "__main__":
    main()
