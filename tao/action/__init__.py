"""The action layer: tool registry, executor and its guards (permissions, argument checks, circuit
breaker, idempotency, HTTP tools, normalization, plan references)."""
