"""The cheap text heuristics of consolidation: the words of a text, whether one text adds a
word to another, and whether two similar texts oppose each other (one negated, an antonym
pair, or the same words with different numbers)."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")

#: Words that negate a statement.
NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "cannot",
        "can't",
        "won't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "hadn't",
        "shouldn't",
        "wouldn't",
        "couldn't",
        "stopped",
        "quit",
    ]
)
#: Pairs of words with opposite meanings.
ANTONYMS = (
    ("like", "dislike"),
    ("likes", "dislikes"),
    ("love", "hate"),
    ("loves", "hates"),
    ("prefers", "avoids"),
    ("always", "never"),
    ("true", "false"),
    ("yes", "no"),
    ("enabled", "disabled"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("success", "failure"),
    ("succeeded", "failed"),
    ("open", "closed"),
    ("on", "off"),
    ("allow", "deny"),
    ("allowed", "denied"),
    ("accept", "reject"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("up", "down"),
    ("won", "lost"),
    ("available", "unavailable"),
    ("agree", "disagree"),
    ("agreed", "disagreed"),
)
_OPPOSITE = {a: b for a, b in ANTONYMS} | {b: a for a, b in ANTONYMS}


def tokens(text: str) -> list[str]:
    """The lower-case words and numbers of ``text``."""
    return _TOKEN.findall(text.lower())


def adds_nothing(new: str, old: str) -> bool:
    """Whether every word and number of ``new`` is already in ``old``."""
    return set(tokens(new)) <= set(tokens(old))


def opposition(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` look opposed, or None: ``negation`` (exactly one of them negates),
    ``antonym:x/y`` (one says x where the other says y), or ``numbers`` (the same words with
    different numbers)."""
    ta, tb = tokens(a), tokens(b)
    sa, sb = set(ta), set(tb)
    if bool(sa & NEGATIONS) != bool(sb & NEGATIONS):
        return "negation"
    for word in sorted(sa - sb):
        other = _OPPOSITE.get(word)
        if other is not None and other in sb - sa:
            return f"antonym:{word}/{other}"
    words_a = {t for t in sa if not t[0].isdigit()}
    words_b = {t for t in sb if not t[0].isdigit()}
    numbers_a = {t for t in sa if t[0].isdigit()}
    numbers_b = {t for t in sb if t[0].isdigit()}
    if words_a == words_b and numbers_a and numbers_b and numbers_a != numbers_b:
        return "numbers"
    return None
