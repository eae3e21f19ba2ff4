"""LoCoMo conversations read from the shared data directory (never copied into the project).

Each turn becomes one memory text ``Speaker: text`` (plus ``[photo: caption]`` when the turn
shared a photo) written at its session's date; each question of categories 1-4 keeps its
evidence turn ids as the gold set.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

#: Where the evaluation data lives (CC BY-NC 4.0, evaluation only).
DEFAULT_DATA = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo_dev7.json"
)
#: Question categories evaluated, with their names (5, adversarial, has no answer).
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"D\d+:\d+")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    session: int
    created_at: datetime
    content: str


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    gold: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    questions: list[Question]
    dropped_evidence: int


def load(path: Path) -> list[Conversation]:
    with path.open(encoding="utf-8") as handle:
        raw = json.load(handle)
    return [_conversation(entry) for entry in raw]


def memory_text(speaker: str, text: str, caption: str | None) -> str:
    """The memory written for one turn."""
    base = f"{speaker}: {text.strip()}"
    return f"{base} [photo: {caption.strip()}]" if caption else base


def _conversation(entry: dict[str, object]) -> Conversation:
    conversation = entry["conversation"]
    assert isinstance(conversation, dict)
    sessions = sorted(
        int(match.group(1)) for key in conversation if (match := _SESSION_KEY.match(key))
    )
    turns: list[Turn] = []
    for number in sessions:
        when = datetime.strptime(conversation[f"session_{number}_date_time"], _DATE_FORMAT).replace(
            tzinfo=timezone.utc
        )
        for turn in conversation[f"session_{number}"]:
            content = memory_text(turn["speaker"], turn["text"], turn.get("blip_caption"))
            turns.append(Turn(turn["dia_id"], turn["speaker"], number, when, content))
    known = {turn.dia_id for turn in turns}
    questions: list[Question] = []
    dropped = 0
    qa = entry["qa"]
    assert isinstance(qa, list)
    for item in qa:
        if item["category"] not in CATEGORIES:
            continue
        cited = set(_EVIDENCE_ID.findall(" ".join(item["evidence"])))
        gold = frozenset(cited & known)
        dropped += len(cited - known)
        if gold:
            questions.append(Question(item["question"], item["category"], gold))
    speakers = (str(conversation["speaker_a"]), str(conversation["speaker_b"]))
    return Conversation(str(entry["sample_id"]), speakers, turns, questions, dropped)
