"""Trajectories: OpenTelemetry spans, the JSONL sink and replay, PII redaction."""
