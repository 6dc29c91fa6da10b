"""The Thought model: prompt format, constrained decoding and the plan engines."""
