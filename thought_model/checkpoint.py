"""Where checkpoints live, and what a checkpoint says about itself (the one definition of the
default checkpoint; every entry point imports it from here)."""

from __future__ import annotations

from pathlib import Path

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINTS / "default"
"""The committed default plan model (``TAO_CHECKPOINT`` overrides it at the entry points)."""
