"""The regex dialect of `when` predicates: compiled when a definition is written, matched in
time linear in the subject when a step fans out.

Patterns are not run by `re`: a backtracking engine takes exponential (or high polynomial) time
on patterns like `(a+)+$` or `.*.*x`, even with a short pattern and subject, and a predicate must
not be able to stall a worker. Here a pattern becomes a small automaton whose threads all advance
together one character at a time, so matching costs at most subject length times program size,
and the program size is capped.

The dialect is the common subset of JavaScript and Python syntax: literals, `.`, classes
(`[a-z]`, `[^...]`, `\\d \\w \\s` and their negations, ASCII-only like JavaScript's), anchors
`^ $ \\b \\B` (`$` only at the very end), groups (capturing, `(?:...)`, named), alternation,
quantifiers `* + ? {n} {n,} {n,m}` (lazy forms match the same strings), and a leading `(?i)` for
case-insensitive matching. Backreferences and lookaround are refused.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Pattern", "PatternError", "compile_pattern"]

# Instructions: ("char", charset), ("split", a, b), ("jmp", a), ("assert", kind), ("match",).
Instruction = tuple[Any, ...]
_MAX_INSTRUCTIONS = 400
_MAX_CACHED_STATES = 4096
# The parser and the compiler recurse once per group level.
_MAX_GROUP_DEPTH = 32


class PatternError(ValueError):
    """A pattern outside the dialect, or one that expands too far; the message says why."""


def _is_word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


_CLASS_TESTS: dict[str, Callable[[str], bool]] = {
    "d": lambda c: "0" <= c <= "9",
    "w": _is_word,
    "s": str.isspace,
}


@dataclass(frozen=True)
class _CharSet:
    ranges: tuple[tuple[str, str], ...] = ()
    classes: tuple[str, ...] = ()  # d, w, s, or D, W, S for their complements
    negated: bool = False

    def matches(self, char: str) -> bool:
        found = any(low <= char <= high for low, high in self.ranges) or any(
            _CLASS_TESTS[name.lower()](char) != name.isupper() for name in self.classes
        )
        return found != self.negated


_DOT = _CharSet(ranges=(("\n", "\n"),), negated=True)
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern; `search` is total and linear in the subject."""

    instructions: tuple[Instruction, ...]
    ignore_case: bool

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text`: all threads advance together one
        character at a time, with a fresh thread started at every position."""
        matcher = _Simulation(self, text)
        state = matcher.closure((0,), 0)
        for position, char in enumerate(text):
            if matcher.matched(state):
                return True
            state = matcher.closure(matcher.step(state, char), position + 1)
        return matcher.matched(state)


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Pattern:
    """The compiled `pattern`; raises PatternError when it is outside the dialect."""
    parser = _PatternParser(pattern)
    tree = parser.parse()
    instructions: list[Instruction] = []
    _emit(tree, instructions)
    _push(instructions, ("match",))
    return Pattern(tuple(instructions), parser.ignore_case)


class _PatternParser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0
        self.ignore_case = False
        self.depth = 0

    def parse(self) -> Instruction:
        if self.text.startswith("(?i)"):
            self.ignore_case = True
            self.at = 4
        tree = self._alternation()
        if self.at < len(self.text):
            raise PatternError(f"unbalanced ) at position {self.at}")
        return tree

    def _peek(self, offset: int = 0) -> str:
        index = self.at + offset
        return self.text[index] if index < len(self.text) else ""

    def _take(self) -> str:
        char = self._peek()
        if not char:
            raise PatternError("the pattern ends too early")
        self.at += 1
        return char

    def _alternation(self) -> Instruction:
        options = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            options.append(self._sequence())
        return options[0] if len(options) == 1 else ("alt", options)

    def _sequence(self) -> Instruction:
        items: list[Instruction] = []
        while self._peek() not in ("", "|", ")"):
            items.append(self._repeated(self._atom()))
        return ("seq", items)

    def _atom(self) -> Instruction:
        start = self.at
        char = self._take()
        if char == "(":
            return self._group()
        if char == "[":
            return ("set", self._class())
        if char == ".":
            return ("set", _DOT)
        if char in "^$":
            return ("assert", char)
        if char == "\\":
            return self._escape()
        if char in "*+?" or (char == "{" and self._bounds(start) is not None):
            raise PatternError(f"nothing to repeat at position {start}")
        return ("set", _CharSet(ranges=((char, char),)))

    def _group(self) -> Instruction:
        self.depth += 1
        if self.depth > _MAX_GROUP_DEPTH:
            raise PatternError(f"groups may nest at most {_MAX_GROUP_DEPTH} deep")
        if self._peek() == "?":
            self._group_prefix()
        tree = self._alternation()
        self.depth -= 1
        if self._peek() != ")":
            raise PatternError("missing )")
        self.at += 1
        return tree

    def _group_prefix(self) -> None:
        rest = self.text[self.at :]
        if rest.startswith("?:"):
            self.at += 2
        elif rest.startswith(("?<=", "?<!", "?=", "?!")):
            raise PatternError("lookaround is not supported")
        elif rest.startswith(("?<", "?P<")):
            end = self.text.find(">", self.at)
            if end < 0:
                raise PatternError("unterminated group name")
            self.at = end + 1
        else:
            raise PatternError(f"unsupported group syntax at position {self.at - 1}")

    def _repeated(self, atom: Instruction) -> Instruction:
        bounds = self._quantifier()
        if bounds is None:
            return atom
        if atom[0] == "assert":
            raise PatternError("an anchor cannot be repeated")
        if self._peek() == "?":
            self.at += 1  # lazy: matches the same strings
        if self._peek() in ("*", "+", "?"):
            raise PatternError(f"multiple repeat at position {self.at}")
        return ("rep", atom, *bounds)

    def _quantifier(self) -> tuple[int, int | None] | None:
        char = self._peek()
        simple: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}
        if char in simple:
            self.at += 1
            return simple[char]
        if char == "{":
            bounds = self._bounds(self.at)
            if bounds is not None:
                self.at = self.text.index("}", self.at) + 1
                return bounds
        return None

    def _bounds(self, start: int) -> tuple[int, int | None] | None:
        """The `{n}`, `{n,}` or `{n,m}` opening at `start`; None when that `{` is a literal."""
        end = self.text.find("}", start)
        if end < 0:
            return None
        low, comma, high = self.text[start + 1 : end].partition(",")
        if not _is_decimal(low) or (high and not _is_decimal(high)):
            return None
        if len(low) > 4 or len(high) > 4:
            raise PatternError("a repeat count may be at most 9999")
        most = int(high) if high else (None if comma else int(low))
        if most is not None and most < int(low):
            raise PatternError("a repeat range must not run backwards")
        return int(low), most

    def _escape(self) -> Instruction:
        char = self._take()
        if char in "bB":
            return ("assert", char)
        return ("set", self._escaped_set(char))

    def _escaped_set(self, char: str) -> _CharSet:
        if char.lower() in _CLASS_TESTS:
            return _CharSet(classes=(char,))
        literal = self._escaped_char(char)
        return _CharSet(ranges=((literal, literal),))

    def _escaped_char(self, char: str) -> str:
        if char in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[char]
        if char in "xu":
            digits = self.text[self.at : self.at + (2 if char == "x" else 4)]
            if len(digits) < (2 if char == "x" else 4) or not _is_hex(digits):
                raise PatternError(f"invalid \\{char} escape")
            self.at += len(digits)
            return chr(int(digits, 16))
        if char.isdigit():
            raise PatternError("backreferences are not supported")
        if char.isalnum():
            raise PatternError(f"unsupported escape \\{char}")
        return char

    def _class(self) -> _CharSet:
        negated = self._peek() == "^"
        if negated:
            self.at += 1
        ranges: list[tuple[str, str]] = []
        classes: list[str] = []
        first = True
        while first or self._peek() != "]":
            first = False
            char = self._take()
            if char == "\\":
                escaped = self._take()
                if escaped.lower() in _CLASS_TESTS:
                    classes.append(escaped)
                    continue
                char = "\b" if escaped == "b" else self._escaped_char(escaped)
            if self._peek() == "-" and self._peek(1) not in ("]", ""):
                self.at += 1
                high = self._class_char()
                if high < char:
                    raise PatternError(f"bad character range {char}-{high}")
                ranges.append((char, high))
            else:
                ranges.append((char, char))
        self.at += 1
        return _CharSet(ranges=tuple(ranges), classes=tuple(classes), negated=negated)

    def _class_char(self) -> str:
        char = self._take()
        if char != "\\":
            return char
        escaped = self._take()
        if escaped.lower() in _CLASS_TESTS:
            raise PatternError("a class escape cannot end a range")
        return self._escaped_char(escaped)


def _is_decimal(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _is_hex(text: str) -> bool:
    return all(char in "0123456789abcdefABCDEF" for char in text)


def _push(instructions: list[Instruction], instruction: Instruction) -> int:
    if len(instructions) >= _MAX_INSTRUCTIONS:
        raise PatternError("the pattern is too complex (repeat counts expand it too far)")
    instructions.append(instruction)
    return len(instructions) - 1


def _emit(tree: Instruction, out: list[Instruction]) -> None:
    kind = tree[0]
    if kind == "set":
        _push(out, ("char", tree[1]))
    elif kind == "assert":
        _push(out, ("assert", tree[1]))
    elif kind == "seq":
        for item in tree[1]:
            _emit(item, out)
    elif kind == "alt":
        _emit_alternation(tree[1], out)
    else:
        _emit_repeat(tree[1], tree[2], tree[3], out)


def _emit_alternation(options: list[Instruction], out: list[Instruction]) -> None:
    jumps: list[int] = []
    for option in options[:-1]:
        split = _push(out, ("split", 0, 0))
        _emit(option, out)
        jumps.append(_push(out, ("jmp", 0)))
        out[split] = ("split", split + 1, len(out))
    _emit(options[-1], out)
    for jump in jumps:
        out[jump] = ("jmp", len(out))


def _emit_repeat(child: Instruction, fewest: int, most: int | None, out: list[Instruction]) -> None:
    for _ in range(fewest):
        _emit(child, out)
    if most is None:
        split = _push(out, ("split", 0, 0))
        _emit(child, out)
        _push(out, ("jmp", split))
        out[split] = ("split", split + 1, len(out))
        return
    optional: list[int] = []
    for _ in range(most - fewest):
        optional.append(_push(out, ("split", 0, 0)))
        _emit(child, out)
    for split in optional:
        out[split] = ("split", split + 1, len(out))


class _Simulation:
    def __init__(self, program: Pattern, text: str) -> None:
        self.code = program.instructions
        self.ignore_case = program.ignore_case
        self.text = text
        self.match_at = len(self.code) - 1
        self.has_assertions = any(instruction[0] == "assert" for instruction in self.code)
        # Sets of threads recur: remember where each goes on a character, and what each set of
        # seeds closes over, up to a bound (the simulation stays linear without them).
        self.steps: dict[tuple[frozenset[int], str], tuple[int, ...]] = {}
        self.closures: dict[tuple[tuple[int, ...], Any], frozenset[int]] = {}

    def matched(self, state: frozenset[int]) -> bool:
        return self.match_at in state

    def step(self, state: frozenset[int], char: str) -> tuple[int, ...]:
        key = (state, char)
        cached = self.steps.get(key)
        if cached is None:
            cached = (*(pc + 1 for pc in sorted(state) if self._accepts(pc, char)), 0)
            if len(self.steps) >= _MAX_CACHED_STATES:
                self.steps.clear()
            self.steps[key] = cached
        return cached

    def _accepts(self, pc: int, char: str) -> bool:
        instruction = self.code[pc]
        if instruction[0] != "char":
            return False
        charset: _CharSet = instruction[1]
        if charset.matches(char):
            return True
        return self.ignore_case and (charset.matches(char.lower()) or charset.matches(char.upper()))

    def closure(self, seeds: tuple[int, ...], position: int) -> frozenset[int]:
        """The threads waiting on a character (or matched) reachable from `seeds`."""
        key = (seeds, self._context(position) if self.has_assertions else None)
        cached = self.closures.get(key)
        if cached is None:
            cached = self._close(seeds, position)
            if len(self.closures) >= _MAX_CACHED_STATES:
                self.closures.clear()
            self.closures[key] = cached
        return cached

    def _context(self, position: int) -> tuple[bool, bool, bool, bool]:
        """All an assertion can see of a position."""
        return (
            position == 0,
            position == len(self.text),
            position > 0 and _is_word(self.text[position - 1]),
            position < len(self.text) and _is_word(self.text[position]),
        )

    def _close(self, seeds: Iterable[int], position: int) -> frozenset[int]:
        seen: set[int] = set()
        stack = list(seeds)
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            instruction = self.code[pc]
            if instruction[0] == "jmp":
                stack.append(instruction[1])
            elif instruction[0] == "split":
                stack.extend((instruction[2], instruction[1]))
            elif instruction[0] == "assert" and self._holds(instruction[1], position):
                stack.append(pc + 1)
        return frozenset(pc for pc in seen if self.code[pc][0] in ("char", "match"))

    def _holds(self, kind: str, position: int) -> bool:
        if kind == "^":
            return position == 0
        if kind == "$":
            return position == len(self.text)
        before = position > 0 and _is_word(self.text[position - 1])
        after = position < len(self.text) and _is_word(self.text[position])
        return (before != after) == (kind == "b")
