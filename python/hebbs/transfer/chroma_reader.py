"""Prints a Chroma collection as JSON Lines: ``{"id", "document", "metadata", "embedding"}``
per record, paged, in Chroma's order. Run as a script by :mod:`hebbs.transfer.chroma` with an
interpreter that has ``chromadb`` (it imports nothing of hebbs):

    python chroma_reader.py PATH COLLECTION
"""

from __future__ import annotations

import json
import sys

#: Records read from Chroma per request.
PAGE = 1000


def main(path: str, name: str) -> int:
    import chromadb

    collection = chromadb.PersistentClient(path=path).get_collection(name)
    offset = 0
    while True:
        page = collection.get(
            limit=PAGE, offset=offset, include=["documents", "metadatas", "embeddings"]
        )
        ids = page["ids"]
        if not ids:
            return 0
        documents = page.get("documents") or [None] * len(ids)
        metadatas = page.get("metadatas") or [None] * len(ids)
        embeddings = page.get("embeddings")
        if embeddings is None:
            embeddings = [None] * len(ids)
        for i, id in enumerate(ids):
            vector = embeddings[i]
            record = {
                "id": id,
                "document": documents[i],
                "metadata": metadatas[i] or {},
                "embedding": None if vector is None else [float(x) for x in vector],
            }
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        offset += len(ids)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
