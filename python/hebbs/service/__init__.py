"""What the surfaces of ``hebbs serve`` share (REST in :mod:`hebbs.server`, MCP in
:mod:`hebbs.mcp`, gRPC in :mod:`hebbs.rpc`, the cluster's shards and ingress): API keys and
their store, authentication, the tenants' stores, the error bodies, the limits, and a caller's
recall with its organization's memory. No surface imports another; each imports this."""
