"""Test helpers shared by tests and benchmarks: a real redis-server and OpenAI-style upstreams."""
