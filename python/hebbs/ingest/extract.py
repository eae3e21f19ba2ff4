"""Propositions, entities and relations from sections: the extraction task a model answers
(:class:`Extraction`, one call per batch of sections of a file) and the offline provider's
rule-based answer to it (:func:`offline_extract`); the answer's schema is in :mod:`.schemas`.

Offline: each sentence (sentencex's rule-based segmentation) of a section is a proposition,
with whitespace and markup normalised (one longer than ``MAX_PROPOSITION_CHARS`` is cut
between words into several). Entities are proper names: runs of capitalised words,
CamelCase words and acronyms (a capitalised function word opening a sentence is not a name,
nor a single ordinary word there, :func:`.phrases.common_word`: "Engineers fixed it"),
then every mention of a name already found in the file, whatever its case ("CloudVault" and
"cloudvault" meet); and the sentence's noun phrases (:mod:`.phrases`: "billing database",
"enterprise customer"), in the order they are mentioned. The main entity is the first name
mentioned, else the sentence's subject noun phrase, else the previous proposition's in the
same section ("It was delayed" stays about its subject). The role triple
is the entities, the action (the first verb after the main entity) and the outcome
(the sentence's last content word). A sentence that opens with a causal connective ("As a
result", "Therefore", "Because of this", ...) is ``caused_by`` the previous one; one that opens
with a sequence connective ("Then", "After that", "Later", ...) ``followed_by`` it.
"""

from __future__ import annotations

import re
from typing import Any

from hebbs.llm import LLMTask
from hebbs.reflect.extractive import STOP_WORDS

from .constants import MIN_PROPOSITION_CHARS, SEGMENT_LANGUAGE
from .phrases import common_word, first_verb, noun_phrases
from .schemas import MAX_PROPOSITION_CHARS

_NAME = re.compile(
    r"\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[0-9]*|[A-Z][A-Za-z0-9&'\-]*)"
    r"(?:\s+(?:[A-Z][A-Za-z0-9&'\-]*))*"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
#: Capitalised words that open sentences without naming anything.
NOT_NAMES = STOP_WORDS | frozenset(
    [
        "a",
        "an",
        "the",
        "he",
        "she",
        "it",
        "they",
        "we",
        "i",
        "you",
        "this",
        "these",
        "those",
        "then",
        "there",
        "here",
        "our",
        "their",
        "his",
        "her",
        "its",
        "my",
        "your",
        "if",
        "when",
        "while",
        "after",
        "before",
        "as",
        "so",
        "but",
        "and",
        "or",
        "because",
        "therefore",
        "however",
        "later",
        "next",
        "finally",
        "first",
        "second",
        "also",
        "yes",
        "no",
        "in",
        "on",
        "at",
        "by",
        "for",
        "to",
        "of",
        "from",
        "with",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
CAUSAL_OPENERS = (
    "as a result",
    "therefore",
    "consequently",
    "because of this",
    "because of that",
    "this caused",
    "that caused",
    "so ",
    "hence",
    "thus",
    "due to this",
)
SEQUENCE_OPENERS = ("then", "after that", "afterwards", "later", "next", "finally", "subsequently")


EXTRACT_SYSTEM = (
    "You turn document sections into propositions: short, self-contained factual statements, "
    "one fact each, with pronouns replaced by what they stand for. For each give the section "
    "index, the named entities it mentions, its main entity, and its action and outcome when "
    "it has them. Also list relations between propositions: caused_by (the target caused the "
    "source) and followed_by (the source happened after the target)."
)
EXTRACT_FORMAT = (
    'Answer as {"propositions": [{"section": int, "text": str, "entities": [str], '
    '"main_entity": str or null, "action": str or null, "outcome": str or null}], '
    '"relations": [{"source": int, "target": int, "type": "caused_by" or "followed_by"}]}.'
)


def normalise_entity(name: str) -> str:
    """The entity id of ``name``: lower case, letters and digits, single spaces, no leading
    article ("CloudVault", "cloudvault" and "the CloudVault" meet)."""
    words = re.sub(r"[^0-9a-z]+", " ", name.lower()).split()
    if words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def extract_task(sections: list[dict[str, str]]) -> LLMTask:
    """The extraction call for ``sections`` (``heading``, ``text``) of one file."""
    listed = "\n\n".join(
        f"[section {i}] {s['heading'] or '(no heading)'}\n{s['text']}"
        for i, s in enumerate(sections)
    )
    return LLMTask(
        "index.extract",
        EXTRACT_SYSTEM,
        f"Sections:\n{listed}\n\n{EXTRACT_FORMAT}",
        {"sections": sections},
    )


def _names(sentence: str) -> list[tuple[int, str]]:
    """(position, name) of the proper names of ``sentence``."""
    found = []
    for match in _NAME.finditer(sentence):
        words = match.group(0).split()
        start = match.start()
        while words and words[0].lower() in NOT_NAMES:
            start += len(words[0]) + 1
            words = words[1:]
        opening = not sentence[:start].strip(" \"'([")
        if len(words) == 1 and opening and words[0].istitle() and common_word(words[0]):
            continue
        if words:
            found.append((start, " ".join(words)))
    return found


def _mentions(sentence: str, known: dict[str, str]) -> list[tuple[int, str]]:
    """(position, entity id) of every known entity in ``sentence``, first mention first."""
    lowered = sentence.lower()
    hits = []
    for entity in known:
        match = re.search(rf"\b{re.escape(entity)}\b", normalise_entity(lowered))
        if match is None:
            continue
        index = lowered.find(entity.split()[0])
        hits.append((index if index >= 0 else match.start(), entity))
    return sorted(hits)


def _entities(sentence: str, known: dict[str, str]) -> tuple[list[str], str | None]:
    """The entity ids of ``sentence`` (names and noun phrases, first mention first, each once)
    and its own main entity (the first name, else the subject noun phrase), if any."""
    names = _mentions(sentence, known)
    lowered = sentence.lower()
    hits = list(names)
    subject = None
    for phrase in noun_phrases(sentence):
        entity = normalise_entity(phrase.text)
        if not entity:
            continue
        hits.append((lowered.find(phrase.text.split()[0].lower()), entity))
        if phrase.subject:
            subject = entity
    ordered = [entity for _, entity in sorted(hits, key=lambda hit: hit[0])]
    main = names[0][1] if names else subject
    return list(dict.fromkeys(ordered)), main


def _role(sentence: str, main: str | None) -> tuple[str | None, str | None]:
    """The action (the first verb after the main entity, else the first lower-case word after
    it) and the outcome (the last content word)."""
    words = _WORD.findall(sentence)
    content = [w.lower() for w in words if w.lower() not in NOT_NAMES and len(w) > 2]
    outcome = content[-1] if content else None
    action = None
    if main is not None:
        verb = first_verb(sentence, main.split()[-1])
        if verb is not None:
            return verb, outcome
        tail = sentence.lower().split(main.split()[-1], 1)
        rest = _WORD.findall(tail[1]) if len(tail) == 2 else []
        action = next((w for w in rest if w.islower() and w not in NOT_NAMES), None)
    return action, outcome


def _pieces(sentence: str) -> list[str]:
    """``sentence`` (empty: none) in pieces of at most ``MAX_PROPOSITION_CHARS``, cut between
    words (a run-on "sentence" of a whole page is several propositions)."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        word = word[:MAX_PROPOSITION_CHARS]
        if current and len(current) + 1 + len(word) > MAX_PROPOSITION_CHARS:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*pieces, current] if current.strip() else pieces


def _opener(sentence: str) -> str | None:
    lowered = sentence.lower().lstrip()
    if any(lowered.startswith(opener) for opener in CAUSAL_OPENERS):
        return "caused_by"
    if any(re.match(rf"{opener}\b", lowered) for opener in SEQUENCE_OPENERS):
        return "followed_by"
    return None


def offline_extract(data: dict[str, Any]) -> dict[str, Any]:
    """``index.extract`` without a model (see the module docs)."""
    from sentencex import segment

    sections: list[dict[str, str]] = data["sections"]
    split = [
        [
            piece
            for s in segment(SEGMENT_LANGUAGE, section["text"])
            for piece in _pieces(" ".join(s.split()))
        ]
        for section in sections
    ]
    known: dict[str, str] = {}
    for sentences in split:
        for sentence in sentences:
            for _, name in _names(sentence):
                known.setdefault(normalise_entity(name), name)
    known.pop("", None)
    propositions: list[dict[str, Any]] = []
    relations: list[dict[str, Any]] = []
    for index, sentences in enumerate(split):
        previous_main: str | None = None
        previous: int | None = None
        for sentence in sentences:
            if len(sentence) < MIN_PROPOSITION_CHARS:
                continue
            entities, own = _entities(sentence, known)
            main = own or previous_main
            action, outcome = _role(sentence, main)
            position = len(propositions)
            propositions.append(
                {
                    "section": index,
                    "text": sentence,
                    "entities": entities,
                    "main_entity": main,
                    "action": action,
                    "outcome": outcome,
                }
            )
            kind = _opener(sentence)
            if kind is not None and previous is not None:
                relations.append({"source": position, "target": previous, "type": kind})
            previous_main, previous = main, position
    return {"propositions": propositions, "relations": relations}
