"""What ``index_documents`` returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class IndexResult:
    """Counts of one ``index_documents`` call. A file is ``indexed`` when it was new or
    changed, ``unchanged`` when its hash matched (nothing was read past it), ``removed`` when
    it disappeared from an indexed folder (its memories were forgotten). Sections are
    ``added``, ``kept`` (unchanged in a changed file) or ``removed``; ``propositions`` and
    ``edges`` are what was stored; ``entities`` the distinct entity ids of the new
    propositions; ``llm_calls`` the provider's requests."""

    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    sections_added: int = 0
    sections_kept: int = 0
    sections_removed: int = 0
    propositions: int = 0
    edges: int = 0
    entities: int = 0
    llm_calls: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexResult:
        return cls(**{key: int(value) for key, value in data.items()})
