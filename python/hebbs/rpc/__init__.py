"""The gRPC interface of ``hebbs serve --grpc-port`` (package ``hebbs.v1``), wire-compatible
with the reference HEBBS protocol: ``hebbs.proto`` (written for hebbs from the reference
descriptors), the committed generated messages ``hebbs_pb2`` (``scripts/gen_proto.sh``), the
conversions to and from the engine (:mod:`~hebbs.rpc.convert`), the services
(:mod:`~hebbs.rpc.services`), the fed subscriptions (:mod:`~hebbs.rpc.subscriptions`) and the
server (:mod:`~hebbs.rpc.server`). See docs/integrations.md."""
