"""Reflection: episodes consolidated into insights.

``Hebbs.reflect`` (:mod:`.pipeline`) clusters a scope's new memories (:mod:`.cluster`), asks an
LLM provider for insights per cluster and validates them (:mod:`.prompts`, :mod:`.schemas`;
offline: :mod:`.extractive`), stores ``insight`` memories with ``insight_from`` edges and moves
the scope's cursor (:mod:`.state`). ``Hebbs.insights`` reads them back (:mod:`.insights`);
``reflect_prepare`` / ``reflect_commit`` (:mod:`.agent`) let an agent host do the thinking;
:mod:`.trigger` runs reflect in the background.
"""

from .results import CommitResult, Insight, PreparedCluster, ReflectResult, ReflectSession

__all__ = ["CommitResult", "Insight", "PreparedCluster", "ReflectResult", "ReflectSession"]
