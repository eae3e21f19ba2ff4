"""The offline provider's answers to reflection: extractive insights with no model.

Proposal: the key terms a cluster shares (words, stop words left out, found in at least
``TERM_SHARE`` of its memories, most shared first) and its most central sentence (the sentence
of its members whose words those memories share most), as one insight citing every member shown,
with the cluster's cohesion (mean cosine of its members to their centroid) as confidence. No
shared term, no insight. Validation: merged with an existing insight whose similarity to the
cluster reaches ``INSIGHT_MERGE_SIMILARITY``, rejected below ``DEFAULT_MIN_CONFIDENCE``,
accepted otherwise.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from .constants import DEFAULT_MIN_CONFIDENCE, INSIGHT_MERGE_SIMILARITY, OFFLINE_TERMS

#: Share of a cluster's memories a word must appear in to be a key term.
TERM_SHARE = 0.4
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\-]{2,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

#: English function words and fillers that never make a key term.
STOP_WORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "among",
        "and",
        "any",
        "are",
        "around",
        "aren't",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "either",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i'm",
        "i've",
        "into",
        "isn't",
        "it's",
        "its",
        "itself",
        "just",
        "let's",
        "like",
        "made",
        "make",
        "many",
        "may",
        "might",
        "more",
        "most",
        "much",
        "must",
        "mustn't",
        "myself",
        "near",
        "need",
        "never",
        "next",
        "not",
        "now",
        "off",
        "once",
        "one",
        "only",
        "onto",
        "other",
        "others",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "quite",
        "rather",
        "really",
        "said",
        "same",
        "say",
        "says",
        "see",
        "seem",
        "seemed",
        "seems",
        "several",
        "shall",
        "she",
        "she's",
        "should",
        "shouldn't",
        "since",
        "some",
        "still",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they're",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "till",
        "too",
        "toward",
        "under",
        "until",
        "upon",
        "use",
        "used",
        "uses",
        "using",
        "very",
        "via",
        "was",
        "wasn't",
        "way",
        "we're",
        "we've",
        "well",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won't",
        "would",
        "wouldn't",
        "yet",
        "you",
        "you're",
        "your",
        "yours",
        "yourself",
        "today",
        "yesterday",
        "tomorrow",
        "again",
    ]
)


def words(text: str) -> list[str]:
    """The lower-case words of ``text`` that can be terms."""
    return [
        w
        for w in (m.group(0).lower().strip("'-") for m in _WORD.finditer(text))
        if w and w not in STOP_WORDS and len(w) > 2
    ]


def shared_terms(texts: list[str], limit: int = OFFLINE_TERMS) -> list[str]:
    """The words in at least ``TERM_SHARE`` of ``texts`` (and two of them), most shared first,
    then most frequent, then alphabetical; at most ``limit``."""
    document_frequency: Counter[str] = Counter()
    frequency: Counter[str] = Counter()
    for text in texts:
        found = words(text)
        frequency.update(found)
        document_frequency.update(set(found))
    floor = max(2, math.ceil(TERM_SHARE * len(texts)))
    ranked = sorted(
        (term for term, df in document_frequency.items() if df >= floor),
        key=lambda term: (-document_frequency[term], -frequency[term], term),
    )
    return ranked[:limit]


def central_sentence(texts: list[str]) -> str:
    """The sentence of ``texts`` whose words the texts share most (a sentence's score is the
    summed document frequency of its words over the square root of its length); ties go to
    the earlier, more central text."""
    document_frequency: Counter[str] = Counter()
    for text in texts:
        document_frequency.update(set(words(text)))
    best, best_score = texts[0].strip(), -1.0
    for text in texts:
        for sentence in _SENTENCE_END.split(text.strip()):
            found = words(sentence)
            if not found:
                continue
            score = sum(document_frequency[w] - 1 for w in set(found)) / math.sqrt(len(found))
            if score > best_score:
                best, best_score = sentence.strip(), score
    return best


def offline_propose(data: dict[str, Any]) -> dict[str, Any]:
    """``reflect.propose`` without a model (see the module docs)."""
    memories = data["memories"]
    texts = [memory["content"] for memory in memories]
    terms = shared_terms(texts)
    if not terms:
        return {"insights": []}
    sentence = central_sentence(texts)
    content = f"{sentence} (recurring across {data['size']} memories: {', '.join(terms)})"
    confidence = round(min(1.0, max(0.0, float(data["cohesion"]))), 3)
    return {
        "insights": [
            {
                "content": content,
                "sources": [memory["label"] for memory in memories],
                "confidence": confidence,
            }
        ]
    }


def offline_validate(data: dict[str, Any]) -> dict[str, Any]:
    """``reflect.validate`` without a model (see the module docs)."""
    verdicts = []
    nearest = max(data["existing"], key=lambda e: e["similarity"], default=None)
    for index, proposal in enumerate(data["proposals"]):
        if nearest is not None and nearest["similarity"] >= INSIGHT_MERGE_SIMILARITY:
            verdicts.append({"index": index, "verdict": "merged", "merge_with": nearest["label"]})
        elif proposal["confidence"] < DEFAULT_MIN_CONFIDENCE:
            verdicts.append({"index": index, "verdict": "rejected"})
        else:
            verdicts.append({"index": index, "verdict": "accepted"})
    return {"verdicts": verdicts}
