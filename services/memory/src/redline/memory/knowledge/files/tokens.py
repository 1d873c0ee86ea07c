"""The one approximation of a text's length in model tokens, and the last-resort split of a
text too long for a chunk."""

from __future__ import annotations

import re

# Subword tokenisers spend about one token per short word, more on long words and one per
# punctuation mark; pieces of up to six word characters land near 1.3 tokens per English word.
_PIECE = re.compile(r"\w{1,6}|[^\w\s]")


def count_tokens(text: str) -> int:
    """About how many tokens `text` is; additive over texts joined by whitespace."""
    return sum(1 for _ in _PIECE.finditer(text))


def split_on_words(text: str, max_tokens: int) -> list[str]:
    """`text` in parts of at most `max_tokens` each, cut between words; a single word longer
    than that (a pasted hash or URL) is cut inside."""
    parts: list[str] = []
    words: list[str] = []
    tokens = 0
    for word in _words_within(text, max_tokens):
        size = count_tokens(word)
        if words and tokens + size > max_tokens:
            parts.append(" ".join(words))
            words, tokens = [], 0
        words.append(word)
        tokens += size
    if words:
        parts.append(" ".join(words))
    return parts


def _words_within(text: str, max_tokens: int) -> list[str]:
    words: list[str] = []
    for word in text.split():
        if count_tokens(word) <= max_tokens:
            words.append(word)
        else:
            # Every token covers at least one character, so this many characters always fit.
            words.extend(word[i : i + max_tokens] for i in range(0, len(word), max_tokens))
    return words
