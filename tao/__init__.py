"""TAO Runtime: contracts, action layer, loop, server and CLI for Thought-Action-Observation agents."""

__version__ = "0.1.0"
