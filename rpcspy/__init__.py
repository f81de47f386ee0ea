"""rpcspy: a record/replay debugging proxy for the JSONL RPC stream of coding agents."""

__version__ = "0.1.0"
