"""Named defaults of document indexing (``docs/indexing.md`` quotes them)."""

from __future__ import annotations

from typing import Final

#: File suffixes ``index_documents`` reads in a folder (a file named directly is read whatever
#: its suffix): Markdown and plain text.
INDEX_SUFFIXES: Final = (".md", ".markdown", ".txt")
MARKDOWN_SUFFIXES: Final = (".md", ".markdown")
#: Characters of a document kept as its ``document`` memory (its opening).
DOCUMENT_MEMORY_CHARS: Final = 2000
#: Characters of section text sent to the model in one extraction call.
EXTRACT_BATCH_CHARS: Final = 6000
#: Shortest proposition kept, in characters (headings' leftovers, list markers).
MIN_PROPOSITION_CHARS: Final = 12
#: ``related_to`` edges a new proposition gets at most (to the latest earlier proposition of
#: the same file sharing each of its entities).
MAX_RELATED_EDGES: Final = 4
#: Confidence of the edges indexing creates.
RELATED_CONFIDENCE: Final = 0.6
RELATION_CONFIDENCE: Final = 0.8
#: The language sentence segmentation assumes.
SEGMENT_LANGUAGE: Final = "en"
#: The prefix of the index manifest's state entries (one per file).
MANIFEST_PREFIX: Final = "index/file/"
