"""The exact prompts of reflection, built from a cluster: the proposal call (what patterns do
these memories show, citing their labels) and the validation call (is each proposal supported
by its sources; accept, reject, revise, or merge with an existing insight). The same text goes
to an HTTP provider and, through ``reflect_prepare``, to an agent host's own model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hebbs.llm import LLMTask

from .constants import MAX_PROMPT_MEMORY_CHARS

PROPOSE_SYSTEM = (
    "You consolidate an AI agent's memories into insights. An insight is a general, durable "
    "statement (a preference, a recurring cause, a rule, a trend) that several memories "
    "support; never a copy of one memory. Cite the labels of every memory that supports it "
    "and give a confidence between 0 and 1."
)
PROPOSE_FORMAT = (
    'Answer as {"insights": [{"content": str, "sources": [memory labels], '
    '"confidence": number}]}; an empty list when the memories share no pattern.'
)
VALIDATE_SYSTEM = (
    "You check proposed insights against the memories they cite. For each proposal answer "
    '"accepted" (the sources support it), "rejected" (they do not), "revised" (supported once '
    'reworded: give the new content) or "merged" (an existing insight already says it: give '
    "its label in merge_with). Adjust the confidence if needed."
)
VALIDATE_FORMAT = (
    'Answer as {"verdicts": [{"index": int, "verdict": str, "content": str or null, '
    '"confidence": number or null, "merge_with": str or null}]}, one per proposal.'
)


@dataclass(frozen=True)
class Member:
    """One memory of a cluster as the prompts show it."""

    label: str
    id: str
    content: str
    importance: float
    created_at: int


@dataclass(frozen=True)
class ExistingInsight:
    label: str
    id: str
    content: str
    similarity: float


@dataclass(frozen=True)
class ClusterView:
    """A cluster as the pipeline hands it to a provider: members most central first."""

    index: int
    members: list[Member]
    cohesion: float
    existing: list[ExistingInsight] = field(default_factory=list)

    def label_to_id(self) -> dict[str, str]:
        return {member.label: member.id for member in self.members}


def _clip(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_PROMPT_MEMORY_CHARS:
        return text
    return text[: MAX_PROMPT_MEMORY_CHARS - 1] + "…"


def _memory_lines(members: list[Member]) -> str:
    return "\n".join(f"[{member.label}] {_clip(member.content)}" for member in members)


def propose_task(view: ClusterView, shown: list[Member]) -> LLMTask:
    """The proposal call for ``view``; ``shown`` are the members the model reads."""
    prompt = f"Memories:\n{_memory_lines(shown)}\n\n{PROPOSE_FORMAT}"
    return LLMTask("reflect.propose", PROPOSE_SYSTEM, prompt, _data(view, shown))


def validate_task(
    view: ClusterView, shown: list[Member], proposals: list[dict[str, Any]]
) -> LLMTask:
    """The validation call of ``proposals`` (dicts of :class:`~.schemas.ProposedInsight`)."""
    listed = "\n".join(
        f"{i}. {p['content']} (sources: {', '.join(p['sources'])}; confidence "
        f"{p['confidence']:.2f})"
        for i, p in enumerate(proposals)
    )
    existing = (
        "\n".join(f"[{insight.label}] {_clip(insight.content)}" for insight in view.existing)
        or "(none)"
    )
    prompt = (
        f"Memories:\n{_memory_lines(shown)}\n\nExisting insights:\n{existing}\n\n"
        f"Proposals:\n{listed}\n\n{VALIDATE_FORMAT}"
    )
    data = _data(view, shown)
    data["proposals"] = proposals
    return LLMTask("reflect.validate", VALIDATE_SYSTEM, prompt, data)


def _data(view: ClusterView, shown: list[Member]) -> dict[str, Any]:
    return {
        "memories": [{"label": m.label, "content": m.content} for m in shown],
        "size": len(view.members),
        "cohesion": view.cohesion,
        "existing": [
            {"label": e.label, "content": e.content, "similarity": e.similarity}
            for e in view.existing
        ],
    }
