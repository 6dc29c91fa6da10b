"""TAO Runtime observation validator (Rust core, PyO3 bindings).

The native extension is ``rust_validator._native``; this package re-exports its public API.
"""
from rust_validator._native import __version__

__all__ = ["__version__"]
