#!/usr/bin/env bash
# Regenerates the committed Python modules of the gRPC interface from python/hebbs/rpc/hebbs.proto:
# hebbs_pb2.py (the messages) and hebbs_pb2.pyi (their types), with grpcio-tools from the test
# extra. Run it after editing the .proto and commit the result; tests/test_grpc.py fails while
# the committed modules and the .proto disagree. No service stubs are generated: the server
# registers its handlers from one table (python/hebbs/rpc/services.py).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
"$PY" -m grpc_tools.protoc -I python --python_out=python --pyi_out=python python/hebbs/rpc/hebbs.proto
