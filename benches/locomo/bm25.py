"""A plain Okapi BM25 over memory texts, in Python: the script-side keyword baseline until the
core's full-text index lands.

Tokens are lower-cased runs of letters and digits; a short list of English function words is
left out; no stemming. k1 = 1.2, b = 0.75 (the common defaults).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[a-z0-9]+")
# fmt: off
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "did", "do", "does", "for",
    "from", "had", "has", "have", "he", "her", "hers", "him", "his", "how", "i", "in", "is", "it",
    "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them",
    "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "why", "will", "with", "would", "you", "your",
))
# fmt: on


def tokenize(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


class Bm25:
    """BM25 scores of one query against every indexed document."""

    def __init__(self, documents: list[str]) -> None:
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = []
        for index, document in enumerate(documents):
            tokens = tokenize(document)
            lengths.append(len(tokens))
            for term, count in Counter(tokens).items():
                self._postings[term].append((index, count))
        self._lengths = lengths
        self._average = sum(lengths) / max(len(lengths), 1)
        self._count = len(documents)

    def idf(self, term: str) -> float:
        frequency = len(self._postings.get(term, ()))
        return math.log(1 + (self._count - frequency + 0.5) / (frequency + 0.5))

    def search(self, query: str, top_k: int) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for term in set(tokenize(query)):
            idf = self.idf(term)
            for index, count in self._postings.get(term, ()):
                norm = K1 * (1 - B + B * self._lengths[index] / self._average)
                scores[index] += idf * count * (K1 + 1) / (count + norm)
        ranked = sorted(scores, key=lambda i: (-scores[i], i))
        return ranked[:top_k]
