"""Ask: an answer grounded in the key's judgments and knowledge, with citations.

The passages closest to the question are gathered from both (judgments through the same scope
and filters as search). Those close enough to count as support ground the answer; without any,
the answer is "" with confidence 0. The answer itself comes from an `AnswerModel`: by default
the extractive one, which answers with the best supporting passages themselves, so nothing is
said that a citation does not show. An operator may plug in a generative model behind the same
interface.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from redline.envelope import ApiKeyPrincipal
from redline.memory.ask import models
from redline.memory.judgments.models import JudgmentSearchResults, SearchJudgments
from redline.memory.judgments.service import JudgmentService
from redline.memory.knowledge.service import KnowledgeService
from redline.memory.vectors import VectorHit

# Cosine similarity between a question and a passage at which the passage counts as support.
# The default model's similarities are compressed: paraphrased questions met their passages at
# 0.80 to 0.86 on the retrieval check, off-topic questions the best passage at 0.78 to 0.80.
GROUNDING = 0.81
CANDIDATES = 8
QUOTED = 2
SNIPPET_CHARS = 300


class Passage(msgspec.Struct, frozen=True):
    record_id: str
    text: str
    similarity: float
    source_id: str | None = None


class AnswerModel(Protocol):
    async def answer(self, question: str, passages: list[Passage]) -> str:
        """An answer to `question` from `passages` (the best first), all of which support it."""


class ExtractiveAnswer:
    async def answer(self, question: str, passages: list[Passage]) -> str:
        return " ".join(p.text.strip() for p in passages[:QUOTED])


class AskService:
    def __init__(
        self,
        judgments: JudgmentService,
        knowledge: KnowledgeService,
        model: AnswerModel | None = None,
    ) -> None:
        self._judgments = judgments
        self._knowledge = knowledge
        self._model = model or ExtractiveAnswer()

    async def ask(self, principal: ApiKeyPrincipal, request: models.AskMemory) -> models.Answer:
        found = await self._judgments.search(
            principal,
            SearchJudgments(
                query=request.question,
                organizationId=request.organizationId,
                documentId=request.documentId,
                orgId=request.orgId,
                docId=request.docId,
                filters=request.filters,
                recencyDays=request.recencyDays,
                limit=CANDIDATES,
            ),
        )
        chunks = await self._knowledge.nearest_chunks(principal, request.question, CANDIDATES)
        passages = _passages(found, chunks)
        support = sorted(
            (p for p in passages if p.similarity >= GROUNDING and p.text),
            key=lambda p: -p.similarity,
        )
        searched = len(passages)
        if not support:
            return models.Answer(answer="", citations=[], confidence=0.0, recordsSearched=searched)
        text = await self._model.answer(request.question, support)
        return _answer(text, support, searched)


def _passages(found: JudgmentSearchResults, chunks: list[VectorHit]) -> list[Passage]:
    """What an answer may draw on: the judgments found, then the knowledge chunks."""
    judgments = [
        Passage(r.recordId, f"{r.reasoning or r.decision}", r.similarity) for r in found.results
    ]
    return judgments + [
        Passage(
            "chunk_" + h.id,
            str(h.payload.get("text", "")),
            h.similarity,
            source_id=h.payload.get("sourceId"),
        )
        for h in chunks
    ]


def _answer(text: str, support: list[Passage], searched: int) -> models.Answer:
    """The answer with the passages that support it most cited, their best similarity its
    confidence."""
    cited = support[:QUOTED]
    return models.Answer(
        answer=text,
        citations=[
            models.Citation(
                recordId=p.record_id, snippet=p.text[:SNIPPET_CHARS], sourceId=p.source_id
            )
            for p in cited
        ],
        confidence=round(cited[0].similarity, 4),
        recordsSearched=searched,
    )
