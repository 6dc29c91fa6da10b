"""Data sources: the Azure LLM inference trace and the synthetic agent-trace generator."""
