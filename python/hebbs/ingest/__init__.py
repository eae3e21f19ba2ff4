"""Document indexing: ``Hebbs.index_documents`` and ``hebbs index`` (:mod:`.pipeline`): files
split into sections (:mod:`.parse`), propositions, entities and relations extracted by the LLM
provider or offline (:mod:`.extract`, :mod:`.schemas`), stored incrementally by content hash.
"""

from .results import IndexResult

__all__ = ["IndexResult"]
