"""Noun phrases of a sentence, offline: the entities of indexing that are not proper names
("the billing database", "enterprise customers").

Tagging is textblob's English part-of-speech tagger (a Brill tagger from the Pattern project:
its lexicon and context rules ship inside the textblob wheel, so nothing is downloaded; textblob
depends on NLTK, whose data is never used here). On the tags, a rule-based chunker:

- a phrase is a maximal run of adjectives and nouns that ends in a noun (``JJ* NN+``; an
  adjective after a noun ends the run; a gerund after a determiner and before a noun counts
  as a modifier: "the hiring plan"), so determiners, possessives, numbers, pronouns, verbs,
  prepositions and punctuation split phrases and never belong to one;
- leading generic modifiers (``GENERIC_MODIFIERS``: "new", "several", "last", ...) and stop words
  are stripped, and so are leading proper nouns ("the CloudVault backup job" is the name
  "CloudVault" and the phrase "backup job"); a phrase whose words are all stop words or generic
  nouns (``GENERIC_NOUNS``: "weeks", "thing", "result", ...) is rejected, and so is a run of
  proper nouns only, which the name extractor owns;
- the head (last word) of a plural phrase is singularised with textblob's inflection rules
  ("enterprise customers" meets "enterprise customer"); the entity id is then normalised like a
  name (:func:`hebbs.ingest.extract.normalise_entity`).

The phrase that opens the sentence before its first verb, outside a prepositional phrase, is its
**subject**: the main entity of a sentence that mentions no proper name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from hebbs.reflect.extractive import STOP_WORDS

#: Adjectives that say nothing about what a phrase names; stripped from its start.
GENERIC_MODIFIERS: Final = frozenset(
    [
        "new",
        "old",
        "other",
        "same",
        "several",
        "many",
        "few",
        "more",
        "most",
        "much",
        "last",
        "next",
        "first",
        "second",
        "third",
        "final",
        "such",
        "own",
        "certain",
        "various",
        "whole",
        "entire",
        "main",
        "big",
        "small",
        "large",
        "great",
        "good",
        "bad",
        "high",
        "low",
        "long",
        "short",
        "early",
        "late",
        "recent",
        "previous",
        "current",
        "further",
        "additional",
        "each",
        "every",
    ]
)
#: Nouns that are not entities on their own (time units, quantities, placeholders).
GENERIC_NOUNS: Final = frozenset(
    [
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "year",
        "quarter",
        "time",
        "times",
        "today",
        "tomorrow",
        "yesterday",
        "morning",
        "noon",
        "midnight",
        "evening",
        "night",
        "thing",
        "things",
        "way",
        "ways",
        "lot",
        "lots",
        "kind",
        "sort",
        "part",
        "number",
        "percent",
        "result",
        "results",
        "fact",
        "case",
        "cases",
        "example",
        "examples",
        "something",
        "anything",
        "everything",
        "nothing",
        "someone",
        "anyone",
        "everyone",
        "nobody",
        "somebody",
        "anybody",
        "everybody",
        "one",
        "ones",
        "point",
        "bit",
        "amount",
        "total",
        "rest",
        "side",
        "end",
        "start",
    ]
)
#: Tags that may sit inside a phrase: adjectives and nouns (Penn Treebank tags).
_MODIFIER_TAGS: Final = frozenset(["JJ", "JJR", "JJS"])
_NOUN_TAGS: Final = frozenset(["NN", "NNS", "NNP", "NNPS"])
_PROPER_TAGS: Final = frozenset(["NNP", "NNPS"])
_PRONOUN_TAGS: Final = frozenset(["PRP", "WP"])
_PREPOSITION_TAGS: Final = frozenset(["IN", "TO"])
_CLAUSE_BREAKS: Final = frozenset([",", ":", ";"])
_DETERMINER_TAGS: Final = frozenset(["DT", "PRP$", "POS", "CD"])
#: Auxiliary verbs, which are not a sentence's action.
AUXILIARIES: Final = frozenset(
    [
        "be",
        "is",
        "are",
        "was",
        "were",
        "been",
        "being",
        "am",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "get",
        "got",
    ]
)


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: its words as written (head singularised), the index of its first token,
    and whether it is the sentence's subject."""

    text: str
    start: int
    subject: bool


def _singular(word: str) -> str:
    from textblob.en.inflect import singularize

    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return str(singularize(word))
    return word


def _is_word(token: str) -> bool:
    return any(c.isalpha() for c in token) and all(c.isalnum() or c in "-'&." for c in token)


def _name_like(word: str, pos: str, first: bool) -> bool:
    """Whether a token is (part of) a name: a proper noun or a capitalised word, unless it is
    an ordinary word capitalised because it opens the sentence."""
    if first and common_word(word):
        return False
    return pos in _PROPER_TAGS or any(c.isupper() for c in word)


def _generic(word: str) -> bool:
    lowered = _singular(word.lower())
    return lowered in STOP_WORDS or lowered in GENERIC_NOUNS or len(lowered) < 2


def _close(run: list[tuple[str, str]], start: int, subject: bool) -> Phrase | None:
    """The phrase of ``run`` (``(word, tag)`` tokens from index ``start``), if it names
    something."""
    while run and run[-1][1] not in _NOUN_TAGS:
        run = run[:-1]
    while run and (
        run[0][0].lower() in GENERIC_MODIFIERS
        or run[0][0].lower() in STOP_WORDS
        or not _is_word(run[0][0])
    ):
        run, start = run[1:], start + 1
    if not run or all(_generic(word) for word, _ in run):
        return None
    named = 0
    while named < len(run) and _name_like(*run[named], first=start + named == 0):
        named += 1
    if named == len(run):
        return None
    if named and run[-1][1] in _NOUN_TAGS:
        run, start = run[named:], start + named
        if all(_generic(word) for word, _ in run):
            return None
    words = [word for word, _ in run]
    if run[-1][1] in ("NNS", "NNPS"):
        words[-1] = _singular(words[-1])
    return Phrase(" ".join(words), start, subject)


def _gerund_modifier(
    tokens: tuple[tuple[str, str], ...], index: int, run: list[tuple[str, str]]
) -> bool:
    """Whether token ``index``, a gerund, modifies the noun after it inside a phrase ("the
    hiring plan"): it follows a determiner, a possessive or a phrase's start, and precedes a
    noun."""
    if tokens[index][1] != "VBG" or index + 1 >= len(tokens):
        return False
    before = tokens[index - 1][1] if index > 0 else ""
    return tokens[index + 1][1] in _NOUN_TAGS and (bool(run) or before in _DETERMINER_TAGS)


def common_word(word: str) -> bool:
    """Whether ``word``, capitalised at the start of a sentence, is an ordinary word rather
    than a name: the tagger's lexicon knows its lower-case form and does not list the
    capitalised form as a singular proper noun ("Engineers", "Revenue" are ordinary; "Apple",
    "Frank" and unknown words such as "Globex" may be names)."""
    from textblob.en import lexicon

    return lexicon.get(word.lower()) is not None and lexicon.get(word) != "NNP"


@lru_cache(maxsize=4096)
def tags(sentence: str) -> tuple[tuple[str, str], ...]:
    """The ``(word, Penn Treebank tag)`` tokens of ``sentence`` (remembered, as extraction asks
    twice). An ordinary word opening the sentence (:func:`common_word`) that the tagger took
    for a proper noun because of its capital is a common noun."""
    from textblob.en import tag

    tokens = [(str(word), str(pos)) for word, pos in tag(sentence)]
    if tokens and tokens[0][1] in _PROPER_TAGS and common_word(tokens[0][0]):
        tokens[0] = (tokens[0][0], "NN" if tokens[0][1] == "NNP" else "NNS")
    return tuple(tokens)


def first_verb(sentence: str, after: str) -> str | None:
    """The first verb of ``sentence`` that follows a token starting with word ``after`` and is
    not an auxiliary, lower case; None when ``after`` is not there or no verb follows."""
    tokens = tags(sentence)
    starts = [i for i, (word, _) in enumerate(tokens) if word.lower().startswith(after)]
    if not starts:
        return None
    for word, pos in tokens[starts[0] + 1 :]:
        if pos.startswith("VB") and word.lower() not in AUXILIARIES:
            return word.lower()
    return None


def noun_phrases(sentence: str) -> list[Phrase]:
    """The noun phrases of ``sentence`` in order (see the module docs)."""
    tokens = tags(sentence)
    phrases: list[Phrase] = []
    run: list[tuple[str, str]] = []
    start = 0
    before_verb, in_preposition, subject_taken = True, False, False

    def flush() -> None:
        nonlocal run, subject_taken
        subject = before_verb and not in_preposition and not subject_taken
        phrase = _close(run, start, subject)
        if phrase is not None:
            phrases.append(phrase)
            subject_taken = subject_taken or subject
        run = []

    for index, (word, pos) in enumerate(tokens):
        inside = _is_word(word) and (
            pos in _NOUN_TAGS or pos in _MODIFIER_TAGS or _gerund_modifier(tokens, index, run)
        )
        if inside and pos in _MODIFIER_TAGS and run and run[-1][1] in _NOUN_TAGS:
            flush()
        if inside:
            if not run:
                start = index
            run.append((word, pos))
            continue
        if run:
            flush()
        if pos in _PRONOUN_TAGS and before_verb and not in_preposition:
            subject_taken = True
        if pos.startswith("VB") or pos == "MD":
            before_verb = False
        if pos in _PREPOSITION_TAGS:
            in_preposition = True
        elif pos in _CLAUSE_BREAKS:
            in_preposition = False
    if run:
        flush()
    return phrases
