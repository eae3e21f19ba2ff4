"""Documents split into sections: a Markdown file by its headings and blocks (markdown-it-py's
token stream: each paragraph, list item, quote or table is a section, under the path of the
headings above it; code blocks are left out), a plain text file by blank lines. Each section
has a content hash (of its heading path and text), which is what re-indexing compares."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .constants import MARKDOWN_SUFFIXES

_BLANK_LINES = re.compile(r"\n\s*\n")
_INLINE_MARKUP = re.compile(r"(\*\*|__|`|\*|~~)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class Section:
    heading: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(f"{self.heading}\n{self.text}".encode()).hexdigest()


def clean(text: str) -> str:
    """``text`` with links reduced to their words, inline markup dropped and whitespace
    collapsed."""
    text = _LINK.sub(r"\1", text)
    text = _INLINE_MARKUP.sub("", text)
    return " ".join(text.split())


def title_of(path: Path, sections: list[Section], text: str) -> str:
    """The first heading, else the file name without suffix."""
    for section in sections:
        if section.heading:
            return section.heading.split(" / ")[0]
    return path.stem


def sections_of(path: Path, text: str) -> list[Section]:
    """The sections of file ``path`` holding ``text``."""
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        return _markdown_sections(text)
    return [Section("", clean(block)) for block in _BLANK_LINES.split(text) if clean(block)]


def _markdown_sections(text: str) -> list[Section]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings: list[tuple[int, str]] = []
    sections: list[Section] = []
    depth = 0
    pending: list[str] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            title = clean(tokens[index + 1].content)
            headings = [(lvl, name) for lvl, name in headings if lvl < level] + [(level, title)]
        elif token.type in ("paragraph_open", "list_item_open", "blockquote_open", "table_open"):
            depth += 1
        elif token.type in (
            "paragraph_close",
            "list_item_close",
            "blockquote_close",
            "table_close",
        ):
            depth -= 1
            if depth == 0 and pending:
                heading = " / ".join(name for _, name in headings)
                sections.append(Section(heading, clean(" ".join(pending))))
                pending = []
        elif token.type == "inline" and depth > 0:
            pending.append(token.content)
    return [section for section in sections if section.text]
