"""What the model answers in indexing, as pydantic schemas: the propositions of a batch of
sections (each with its section index, entities, main entity and role) and the relations
between them (indexes into the answer's propositions)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

#: Longest proposition a model may return, in characters.
MAX_PROPOSITION_CHARS = 2000


class Schema(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ExtractedProposition(Schema):
    section: int = Field(ge=0)
    text: str = Field(min_length=1, max_length=MAX_PROPOSITION_CHARS)
    entities: list[str] = []
    main_entity: Optional[str] = None
    action: Optional[str] = None
    outcome: Optional[str] = None


class ExtractedRelation(Schema):
    """Proposition ``source`` is ``type`` proposition ``target`` (indexes into the answer's
    list): ``caused_by`` (target caused source) or ``followed_by`` (source came after)."""

    source: int = Field(ge=0)
    target: int = Field(ge=0)
    type: Literal["caused_by", "followed_by"]


class Extraction(Schema):
    propositions: list[ExtractedProposition]
    relations: list[ExtractedRelation] = []
