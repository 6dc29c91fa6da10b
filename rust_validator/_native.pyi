# Type stubs for the native module. Sections are owned by their component; keep them separate.
__version__: str
__all__ = [
    "THOUGHT_PLAN_SCHEMA",
    "CompileError",
    "Observation",
    "ObservationBatch",
    "ObservationChecker",
    "PlanChecker",
    "SchemaValidator",
    "TreeEnsemble",
    "ValidationInputError",
    "__version__",
    "check_batch",
    "check_many",
    "jsonlogic",
]

# ---- validator (SchemaValidator, ObservationChecker, check_plan, jsonlogic, check_batch) ----
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any, Literal, Self, SupportsIndex, TypedDict, final, overload

JSONInput = Any  # dict/list/str/int/float/bool/None, or bytes/bytearray/memoryview of JSON text

class ValidationInputError(ValueError):
    """A rejected document: invalid UTF-8, syntax (incl. NaN/Infinity, lone surrogates), duplicate
    key, nesting too deep, too large, non-finite/oversized number, unsupported Python type, or the
    wrong shape (e.g. an action result that is not an object)."""

    pointer: str  # JSON pointer of the offending location ("" = whole document)
    reason: str
    kind: Literal[
        "invalid_utf8",
        "syntax",
        "duplicate_key",
        "too_deep",
        "too_large",
        "bad_number",
        "unsupported",
        "shape",
    ]

class CompileError(ValueError):
    """A schema, JsonLogic rule, tool contract or tool registry that does not compile."""

    location: str
    reason: str

class SchemaErrorDict(TypedDict):
    path: str
    keyword: str
    message: str

class AuditEntryDict(TypedDict):
    check: str
    passed: bool
    detail: str

class ObservationDict(TypedDict):
    valid: bool
    error_type: str | None
    extracted_data: dict[str, Any]
    confidence_score: float
    audit_trail: list[AuditEntryDict]
    details: dict[str, Any]

@final
class Observation:
    """The result of ``ObservationChecker.check``/``check_batch``: a lazy, dict-like
    ObservationResult (the keys of :class:`ObservationDict`). The Python dict (audit trail,
    details, extracted data) is built on first access of a key that needs it and cached;
    ``valid``/``error_type``/``confidence_score`` come straight from Rust. Registered as a
    ``collections.abc.MutableMapping``: ``obs["valid"]``, ``obs.get(k)``, ``dict(obs)``, ``keys()``,
    ``items()``, ``in``, ``==`` with a dict and item assignment work as on the dict."""

    @property
    def valid(self) -> bool: ...
    @property
    def error_type(self) -> str | None: ...
    @property
    def confidence_score(self) -> float: ...
    def __getitem__(self, key: str, /) -> Any: ...
    def __setitem__(self, key: str, value: Any, /) -> None: ...
    def __delitem__(self, key: str, /) -> None: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __contains__(self, key: object, /) -> bool: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def keys(self) -> KeysView[str]: ...
    def values(self) -> ValuesView[Any]: ...
    def items(self) -> ItemsView[str, Any]: ...
    def to_dict(self) -> ObservationDict:
        """A plain dict copy."""
    def copy(self) -> ObservationDict: ...

class PlanErrorDict(TypedDict):
    path: str
    code: str
    message: str

class PlanReportDict(TypedDict):
    valid: bool
    errors: list[PlanErrorDict]
    order: list[str]

THOUGHT_PLAN_SCHEMA: str  # the embedded schemas/thought_plan.json

@final
class SchemaValidator:
    """A JSON Schema compiled once (drafts 4, 6, 7, 2019-09, 2020-12; ``draft=None`` reads
    ``$schema``, default 2020-12). ``bytes`` instances are JSON text parsed in Rust; other objects
    are values (a ``str`` is a JSON string value: use ``is_valid_json`` for JSON text in a str).
    ``resources`` maps absolute URIs to schemas for ``$ref`` (nothing is fetched)."""

    def __new__(
        cls,
        schema: JSONInput,
        *,
        draft: str | None = None,
        validate_formats: bool = True,
        lenient_datetime: bool = True,
        resources: dict[str, Any] | None = None,
        max_bytes: int = 16777216,
        max_depth: int = 64,
        allow_duplicate_keys: bool = False,
    ) -> Self: ...
    def is_valid(self, instance: JSONInput) -> bool: ...
    def is_valid_json(self, text: str | bytes) -> bool: ...
    def errors(self, instance: JSONInput, *, limit: int = 100) -> list[SchemaErrorDict]: ...
    def errors_json(self, text: str | bytes, *, limit: int = 100) -> list[SchemaErrorDict]: ...
    @property
    def fast_path(self) -> bool:
        """Whether JSON text is checked on the fast path (the schema is in its common subset)."""

def jsonlogic(rule: Any, data: Any) -> Any:
    """Evaluate a JsonLogic rule (datalogic-rs) against data; raises CompileError on a bad rule."""

@final
class ObservationChecker:
    """Checks ActionResults against one tool contract (a ToolSpec dict or its JSON), compiled once.

    ``expected``: {JSON pointer: [values the plan foresaw]} (consistency check)."""

    def __new__(
        cls,
        contract: JSONInput,
        *,
        expected: dict[str, list[Any]] | None = None,
        validate_formats: bool = True,
        lenient_datetime: bool = True,
        max_bytes: int = 16777216,
        max_depth: int = 64,
        allow_duplicate_keys: bool = False,
    ) -> Self: ...
    @property
    def tool(self) -> str: ...
    @property
    def fast_path(self) -> bool:
        """Whether passing documents are checked on the fast path (scan and check at once)."""
    def stage_costs(self, action_result: bytes, *, iterations: int = 20000) -> list[tuple[str, float]]:
        """Microseconds per call of each stage of a check of ``action_result`` (Rust only, no
        Python): the full path (parse into a tree, schema, rules, extraction, whole) and the fast
        path (UTF-8, scan, whole). For benchmarks; the document should pass every check."""
    def check(
        self,
        action_result: JSONInput,
        *,
        soft: float | None = None,
        expected: dict[str, list[Any]] | None = None,
    ) -> Observation:
        """One ActionResult (bytes/str of JSON, or a dict). Raises ValidationInputError on bad input.
        ``expected``: this call's {pointer: [values]} in place of the compiled ones (a list holding
        null accepts an absent value); checked on the tree path; a bad map raises CompileError."""
    def check_batch(
        self,
        items: Iterable[JSONInput],
        *,
        soft: float | None = None,
        errors: Literal["observe", "raise"] = "observe",
    ) -> list[Observation | ObservationDict]:
        """Many ActionResults in parallel (rayon), GIL released; order preserved. A rejected
        document or an item that cannot be read (``errors="observe"``) is a plain ObservationDict
        with ``details.input_error``; ``errors="raise"`` raises the first one."""
    def check_many(
        self,
        items: Iterable[JSONInput],
        *,
        soft: float | None = None,
        errors: Literal["observe", "raise"] = "observe",
    ) -> ObservationBatch:
        """Like ``check_batch`` (same checks, same parallel scan), but the result is ONE
        :class:`ObservationBatch` holding every outcome: ``.valid`` gives every verdict as one
        list, ``batch[i]`` builds item ``i``'s result on access."""

@final
class ObservationBatch:
    """The result of ``check_many``: one object for the whole batch. ``batch[i]`` (negative
    counts from the end) is the result ``check_batch`` gives for item ``i`` (an
    :class:`Observation`, or an ObservationDict for an input error), built on first access and
    then the same object; a slice gives a list. The batch keeps its items alive."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> Observation | ObservationDict: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Observation | ObservationDict]: ...
    def __iter__(self) -> Iterator[Observation | ObservationDict]: ...
    @property
    def valid(self) -> list[bool]:
        """Every verdict, in item order (one new list per access)."""
    @property
    def n_valid(self) -> int:
        """How many items passed every hard check."""
    def invalid_indices(self) -> list[int]:
        """The indices of the items that did not pass, ascending."""
    def to_list(self) -> list[Observation | ObservationDict]:
        """The list ``check_batch`` returns for the same items (this batch's objects)."""

def check_batch(
    checker: ObservationChecker,
    items: Iterable[JSONInput],
    *,
    soft: float | None = None,
    errors: Literal["observe", "raise"] = "observe",
) -> list[Observation | ObservationDict]: ...
def check_many(
    checker: ObservationChecker,
    items: Iterable[JSONInput],
    *,
    soft: float | None = None,
    errors: Literal["observe", "raise"] = "observe",
) -> ObservationBatch: ...

@final
class PlanChecker:
    """ThoughtPlan checks against a tool registry ({name: args JSON Schema} or ToolSpec dicts)."""

    def __new__(
        cls,
        tools: Mapping[str, Any] | Iterable[Mapping[str, Any]],
        *,
        validate_formats: bool = True,
        lenient_datetime: bool = True,
        max_bytes: int = 1048576,
        max_depth: int = 64,
        allow_duplicate_keys: bool = False,
    ) -> Self: ...
    @property
    def tools(self) -> list[str]: ...
    def check(self, plan: JSONInput) -> PlanReportDict: ...

# ---- trees (estimator fast path) ----

@final
class TreeEnsemble:
    """XGBoost ``gbtree`` model (numerical splits, one output) evaluated in Rust.

    ``model_json`` is the text of ``Booster.save_raw("json")`` / ``save_model("m.json")``;
    results equal XGBoost's (f32 comparisons and sums). Raises ``ValueError`` for invalid or
    unsupported models (dart, categorical splits, multi-output) and wrong row lengths.
    """

    def __new__(cls, model_json: str, feature_names: Sequence[str] | None = None) -> Self: ...
    def predict(self, row: Sequence[float] | Mapping[str, float | None]) -> float:
        """One row in training column order (NaN = missing), or a dict by feature name."""
    def predict_batch(self, rows: Iterable[Sequence[float] | Mapping[str, float | None]]) -> list[float]: ...
    @property
    def num_trees(self) -> int: ...
    @property
    def num_features(self) -> int: ...
    @property
    def objective(self) -> str: ...
