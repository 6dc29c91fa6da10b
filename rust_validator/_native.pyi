# Type stubs for the native module. Sections are owned by their component; keep them separate.
__version__: str

# ---- validator (SchemaValidator, ObservationChecker, check_plan, jsonlogic, check_batch) ----

# ---- trees (estimator fast path) ----
