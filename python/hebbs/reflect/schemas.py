"""What the model answers in reflection, as pydantic schemas (the providers validate the JSON
against them): the proposal call's insights and the validation call's verdicts. Memories are
named in prompts by short labels (``m1``, ``m2``, ...) and existing insights by ``i1``, ...:
fewer tokens than 32-digit ids, and a label outside the cluster is caught by the pipeline."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

#: Longest insight a model may propose, in characters.
MAX_INSIGHT_CHARS = 2000


class Schema(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ProposedInsight(Schema):
    content: str = Field(min_length=1, max_length=MAX_INSIGHT_CHARS)
    sources: list[str] = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)


class Proposals(Schema):
    insights: list[ProposedInsight]


class Verdict(Schema):
    index: int = Field(ge=0)
    verdict: Literal["accepted", "rejected", "revised", "merged"]
    content: Optional[str] = Field(default=None, min_length=1, max_length=MAX_INSIGHT_CHARS)
    confidence: Optional[float] = Field(default=None, ge=0.0, le=1.0)
    merge_with: Optional[str] = None


class Verdicts(Schema):
    verdicts: list[Verdict]
