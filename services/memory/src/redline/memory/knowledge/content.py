"""What a source's content is in the stores beside its rows: its points in the `knowledge`
collection and its Markdown rendering in the blob store, both per revision.

Revision 1 is the content as ingested; each update writes a new revision beside the current one
(points whose ids and `revision` payload name it, a Markdown blob whose key names it) and the
source row switches over, so a failed update leaves the current revision whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from redline.memory.knowledge import storage
from redline.memory.knowledge.conversion import Converted
from redline.memory.vectors import Tenant, VectorPoint, point_id
from redline.memory.vectors.store import tenant_payload

FIRST_REVISION = 1


def rule_id(source_id: str, index: int) -> str:
    return f"rule_{source_id.removeprefix('src_')}_{index}"


def markdown_key(blob_key: str, revision: int) -> str:
    """Where a revision's Markdown rendering is kept."""
    if revision == FIRST_REVISION:
        return blob_key + ".md"
    return f"{blob_key}.r{revision}.md"


def rows_of(
    source_id: str, converted: Converted
) -> tuple[list[storage.ChunkRow], list[storage.RuleRow]]:
    """The rows of a converted file's chunks and rules, as the source's tables keep them."""
    chunks = [
        storage.ChunkRow(
            chunk_index=c.index, text=c.text, page=c.page, sheet=c.sheet, heading=c.heading
        )
        for c in converted.chunks
    ]
    rules = [
        storage.RuleRow(
            source_id=source_id, rule_index=r.index, content=r.content, category=r.category
        )
        for r in converted.rules
    ]
    return chunks, rules


def texts_of(converted: Converted) -> list[str]:
    """The texts embedded for a converted file: its chunks, then its rules."""
    return [c.text for c in converted.chunks] + [r.content for r in converted.rules]


def points_of(
    tenant: Tenant,
    source_id: str,
    created_at: int,
    converted: Converted,
    vectors: npt.NDArray[np.float32],
    revision: int = FIRST_REVISION,
) -> list[VectorPoint]:
    """The points of a revision's chunks and rules, `vectors` in the order of `texts_of`."""
    base: dict[str, Any] = {
        **tenant_payload(tenant),
        "sourceId": source_id,
        "createdAt": created_at,
    }
    # Revision 1 keeps the ids and payload of sources ingested before revisions existed.
    tag: tuple[str, ...] = ()
    if revision != FIRST_REVISION:
        base["revision"] = str(revision)
        tag = (f"r{revision}",)
    points = [
        VectorPoint(
            point_id(tenant.api_key, source_id, "chunk", str(c.index), *tag),
            {"text": vectors[i]},
            {**base, "kind": "chunk", "text": c.text, "chunkIndex": c.index},
        )
        for i, c in enumerate(converted.chunks)
    ]
    offset = len(converted.chunks)
    points += [
        VectorPoint(
            point_id(tenant.api_key, source_id, "rule", str(r.index), *tag),
            {"text": vectors[offset + i]},
            {
                **base,
                "kind": "rule",
                "text": r.content,
                "ruleId": rule_id(source_id, r.index),
                "category": r.category,
            },
        )
        for i, r in enumerate(converted.rules)
    ]
    return points
