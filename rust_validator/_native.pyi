# Type stubs for the native module. Sections are owned by their component; keep them separate.
__version__: str

# ---- validator (SchemaValidator, ObservationChecker, check_plan, jsonlogic, check_batch) ----

# ---- trees (estimator fast path) ----
from collections.abc import Iterable, Mapping, Sequence

class TreeEnsemble:
    """XGBoost ``gbtree`` model (numerical splits, one output) evaluated in Rust.

    ``model_json`` is the text of ``Booster.save_raw("json")`` / ``save_model("m.json")``;
    results equal XGBoost's (f32 comparisons and sums). Raises ``ValueError`` for invalid or
    unsupported models (dart, categorical splits, multi-output) and wrong row lengths.
    """

    def __init__(self, model_json: str, feature_names: Sequence[str] | None = None) -> None: ...
    def predict(self, row: Sequence[float] | Mapping[str, float | None]) -> float:
        """One row in training column order (NaN = missing), or a dict by feature name."""
    def predict_batch(self, rows: Iterable[Sequence[float] | Mapping[str, float | None]]) -> list[float]: ...
    @property
    def num_trees(self) -> int: ...
    @property
    def num_features(self) -> int: ...
    @property
    def objective(self) -> str: ...
