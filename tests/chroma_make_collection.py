"""Run by tests/test_chroma.py with an interpreter that has chromadb: creates the persistent
collection NAME at PATH from the records in RECORDS_JSON (``[{"id", "document", "metadata",
"embedding"}]``; the vectors are given, so Chroma loads no embedding model).

    python chroma_make_collection.py PATH NAME RECORDS_JSON
"""

from __future__ import annotations

import json
import sys

import chromadb

path, name, records_file = sys.argv[1:4]
with open(records_file, encoding="utf-8") as file:
    records = json.load(file)
collection = chromadb.PersistentClient(path=path).get_or_create_collection(
    name, embedding_function=None
)
collection.add(
    ids=[record["id"] for record in records],
    documents=[record["document"] for record in records],
    metadatas=[record["metadata"] or None for record in records],
    embeddings=[record["embedding"] for record in records],
)
print(collection.count())
