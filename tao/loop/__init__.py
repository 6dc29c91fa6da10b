"""The TAO loop: planner adapters, plan checks, step runner, self-correction, sessions, the run
report and the runtime that assembles a default stack."""
