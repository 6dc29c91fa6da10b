"""Observation: checks each ActionResult against its tool contract (the Rust validator)."""
