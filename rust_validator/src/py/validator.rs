//! Python bindings for the validator component (thin: parse arguments, call the core, build
//! result objects). See `rust_validator/_native.pyi` for the documented API.
use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use crate::contract::Contract;
use crate::error::BuildError;
use crate::fast::observe::Outcome;
use crate::parse::Limits;
use crate::plan::{PlanChecker as CorePlanChecker, PlanReport};
use crate::schema::{parse_draft, CompiledSchema, SchemaOptions};

mod batch;
mod convert;
mod lazy;
mod many;
mod output;

use convert::{build_err, input_err, raw_json, to_value, value_to_py, CompileError, StrIs, ValidationInputError};
use lazy::{Observation as PyObservation, Shared};
use many::ObservationBatch;
use output::Templates;

/// mimalloc for the whole extension: parsing builds many small strings and maps, where it is
/// markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Documents above this size are parsed and checked with the GIL released.
const DETACH_BYTES: usize = 64 * 1024;

fn limits(max_bytes: usize, max_depth: usize, allow_duplicate_keys: bool) -> Limits {
    Limits { max_bytes, max_depth, allow_duplicate_keys }
}

fn schema_opts(py: Python<'_>, draft: Option<&str>, validate_formats: bool, lenient_datetime: bool,
               resources: Option<&Bound<'_, PyDict>>) -> PyResult<SchemaOptions> {
    let draft = draft.map(parse_draft).transpose().map_err(|e| build_err(py, e))?;
    let mut map = HashMap::new();
    if let Some(res) = resources {
        for (k, v) in res.iter() {
            let uri: String = k.extract()?;
            map.insert(uri, to_value(&v, &Limits::default(), StrIs::Json)?);
        }
    }
    Ok(SchemaOptions { draft, validate_formats, lenient_datetime, resources: Arc::new(map) })
}

/// A JSON Schema compiled once. `bytes` instances are JSON text; other objects are values.
#[pyclass(frozen, module = "rust_validator._native")]
pub struct SchemaValidator {
    schema: CompiledSchema,
    limits: Limits,
}

impl SchemaValidator {
    fn with_instance<T: Send>(&self, instance: &Bound<'_, PyAny>, str_is: StrIs,
                              f: impl Fn(&CompiledSchema, &Value) -> T + Send + Sync) -> PyResult<T> {
        let py = instance.py();
        if let Some(raw) = raw_json(instance, str_is)? {
            let bytes = raw.bytes();
            let run = || crate::parse::parse_bytes(bytes, &self.limits).map(|v| f(&self.schema, &v));
            let out = if bytes.len() >= DETACH_BYTES { py.detach(run) } else { run() };
            return out.map_err(|e| input_err(py, e));
        }
        let v = to_value(instance, &self.limits, str_is)?;
        Ok(f(&self.schema, &v))
    }
}

impl SchemaValidator {
    /// JSON text goes through the fast path (scan and check at once) when the schema has one.
    fn valid(&self, instance: &Bound<'_, PyAny>, str_is: StrIs) -> PyResult<bool> {
        let py = instance.py();
        if let Some(raw) = raw_json(instance, str_is)? {
            let bytes = raw.bytes();
            let run = || self.schema.is_valid_bytes(bytes, &self.limits);
            let out = if bytes.len() >= DETACH_BYTES { py.detach(run) } else { run() };
            return out.map_err(|e| input_err(py, e));
        }
        self.with_instance(instance, str_is, |s, v| s.is_valid(v))
    }
}

#[pymethods]
impl SchemaValidator {
    #[new]
    #[pyo3(signature = (schema, *, draft=None, validate_formats=true, lenient_datetime=true, resources=None,
                        max_bytes=16*1024*1024, max_depth=64, allow_duplicate_keys=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(schema: &Bound<'_, PyAny>, draft: Option<&str>, validate_formats: bool, lenient_datetime: bool,
           resources: Option<&Bound<'_, PyDict>>, max_bytes: usize, max_depth: usize,
           allow_duplicate_keys: bool) -> PyResult<Self> {
        let py = schema.py();
        let opts = schema_opts(py, draft, validate_formats, lenient_datetime, resources)?;
        let lim = limits(max_bytes, max_depth, allow_duplicate_keys);
        let schema = to_value(schema, &Limits { max_depth: 127, ..lim }, StrIs::Json)?;
        let schema = CompiledSchema::new(&schema, &opts).map_err(|e| build_err(py, e))?;
        Ok(Self { schema, limits: lim })
    }

    /// True when `instance` is valid (`bytes` = JSON text; anything else = a Python value).
    fn is_valid(&self, instance: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.valid(instance, StrIs::Value)
    }

    /// Like `is_valid`, but a `str` is JSON text too.
    fn is_valid_json(&self, text: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.valid(text, StrIs::Json)
    }

    /// Every error as `{"path", "keyword", "message"}` (at most `limit`).
    #[pyo3(signature = (instance, *, limit=100))]
    fn errors<'py>(&self, instance: &Bound<'py, PyAny>, limit: usize) -> PyResult<Bound<'py, PyList>> {
        let errs = self.with_instance(instance, StrIs::Value, |s, v| s.errors(v, limit))?;
        schema_errors_to_py(instance.py(), &errs)
    }

    /// Whether JSON text is checked on the fast path.
    #[getter]
    fn fast_path(&self) -> bool {
        self.schema.has_fast_path()
    }

    /// Like `errors`, but a `str` is JSON text too.
    #[pyo3(signature = (text, *, limit=100))]
    fn errors_json<'py>(&self, text: &Bound<'py, PyAny>, limit: usize) -> PyResult<Bound<'py, PyList>> {
        let errs = self.with_instance(text, StrIs::Json, |s, v| s.errors(v, limit))?;
        schema_errors_to_py(text.py(), &errs)
    }
}

fn schema_errors_to_py<'py>(py: Python<'py>, errs: &[crate::schema::SchemaError]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for e in errs {
        let d = PyDict::new(py);
        d.set_item(pyo3::intern!(py, "path"), &e.path)?;
        d.set_item(pyo3::intern!(py, "keyword"), &e.keyword)?;
        d.set_item(pyo3::intern!(py, "message"), &e.message)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Evaluate a JsonLogic rule against data (both Python values, or `bytes` of JSON).
#[pyfunction]
fn jsonlogic<'py>(rule: &Bound<'py, PyAny>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = rule.py();
    let lim = Limits::default();
    let r = to_value(rule, &lim, StrIs::Value)?;
    let d = to_value(data, &lim, StrIs::Value)?;
    let out = crate::rules::jsonlogic(&r, &d).map_err(|e| build_err(py, e))?;
    value_to_py(py, &out)
}

/// An observation checker compiled once from a tool contract (ToolSpec dict or JSON).
#[pyclass(frozen, module = "rust_validator._native")]
pub struct ObservationChecker {
    shared: Arc<Shared>,
}

#[pymethods]
impl ObservationChecker {
    #[new]
    #[pyo3(signature = (contract, *, expected=None, validate_formats=true, lenient_datetime=true,
                        max_bytes=16*1024*1024, max_depth=64, allow_duplicate_keys=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(contract: &Bound<'_, PyAny>, expected: Option<&Bound<'_, PyAny>>, validate_formats: bool,
           lenient_datetime: bool, max_bytes: usize, max_depth: usize, allow_duplicate_keys: bool) -> PyResult<Self> {
        let py = contract.py();
        let lim = limits(max_bytes, max_depth, allow_duplicate_keys);
        let opts = schema_opts(py, None, validate_formats, lenient_datetime, None)?;
        let spec = to_value(contract, &Limits { max_depth: 127, ..lim }, StrIs::Json)?;
        let expected = expected.map(|e| to_value(e, &Limits::default(), StrIs::Json)).transpose()?;
        let contract = Contract::from_spec(&spec, expected.as_ref(), &opts, lim).map_err(|e| build_err(py, e))?;
        let templates = Templates::new(py, &contract)?;
        Ok(Self { shared: Arc::new(Shared { contract, templates }) })
    }

    /// The tool name of the contract.
    #[getter]
    fn tool(&self) -> &str {
        &self.shared.contract.name
    }

    /// Whether passing documents are checked on the fast path.
    #[getter]
    fn fast_path(&self) -> bool {
        self.shared.contract.fast.is_some()
    }

    /// Microseconds per call of each stage of a check (Rust only), see `crate::stages`.
    #[pyo3(signature = (action_result, *, iterations=20000))]
    fn stage_costs(&self, py: Python<'_>, action_result: &[u8], iterations: usize) -> Vec<(&'static str, f64)> {
        let c = &self.shared.contract;
        py.detach(|| crate::stages::stage_costs(c, action_result, iterations.max(1)))
    }

    /// Check one ActionResult (`bytes`/`str` of JSON, or a dict) → a lazy, dict-like
    /// ObservationResult (`Observation`). `soft`: an optional soft-check score in [0, 1] (weight 0.3).
    /// `expected`: {pointer: [values]} for this call only, in place of the compiled ones (checked
    /// on the tree path).
    #[pyo3(signature = (action_result, *, soft=None, expected=None))]
    fn check(&self, action_result: &Bound<'_, PyAny>, soft: Option<f64>, expected: Option<&Bound<'_, PyAny>>)
        -> PyResult<PyObservation> {
        let py = action_result.py();
        let c = &self.shared.contract;
        if let Some(e) = expected {
            let exp = match to_value(e, &Limits::default(), StrIs::Json)? {
                Value::Null => Vec::new(),
                Value::Object(m) => crate::contract::pointer_values(Some(&m), "expected").map_err(|e| build_err(py, e))?,
                _ => return Err(build_err(py, BuildError::new("expected", "must be an object {pointer: [values]}"))),
            };
            let action = match raw_json(action_result, StrIs::Json)? {
                Some(raw) => crate::parse::parse_bytes(raw.bytes(), &c.limits),
                None => Ok(to_value(action_result, &c.limits, StrIs::Json)?),
            };
            let obs = action.and_then(|a| c.check_value_expecting(a, soft, &exp));
            return Ok(PyObservation::new(&self.shared, obs.map_err(|e| input_err(py, e))?));
        }
        // `bytes` and `str` are immutable: a pass on the fast path keeps a reference to the text
        // and builds its values only when they are read.
        let immutable = action_result.cast::<PyBytes>().is_ok() || action_result.cast::<PyString>().is_ok();
        let out = if let Some(raw) = raw_json(action_result, StrIs::Json)? {
            let bytes = raw.bytes();
            if bytes.len() >= DETACH_BYTES {
                // Parse and check without the GIL; the result borrows the contract only.
                py.detach(|| c.check_bytes_lazy(bytes, soft))
            } else {
                c.check_bytes_lazy(bytes, soft)
            }
        } else {
            c.check_value(to_value(action_result, &c.limits, StrIs::Json)?, soft).map(|o| Outcome::Full(Box::new(o)))
        };
        Ok(match out.map_err(|e| input_err(py, e))? {
            Outcome::Passed(p) if immutable => PyObservation::passed(&self.shared, action_result.clone().unbind(), p),
            Outcome::Passed(p) => {
                // A mutable buffer (bytearray, memoryview): build the result from the copy now.
                let bytes = raw_json(action_result, StrIs::Json)?.map(|r| r.bytes().to_vec()).unwrap_or_default();
                match p.observation(c, &bytes) {
                    Some(obs) => PyObservation::new(&self.shared, obs),
                    None => PyObservation::new(&self.shared, c.check_full(&bytes, soft).map_err(|e| input_err(py, e))?),
                }
            }
            Outcome::Full(obs) => PyObservation::from_box(&self.shared, obs),
        })
    }

    /// Check many ActionResults in parallel with the GIL released (items: `bytes`/`str` of JSON
    /// or dicts). `errors="observe"` turns a rejected document into an invalid observation
    /// (`TOOL_MALFORMED_RESPONSE`, with `details.input_error`); `errors="raise"` raises it.
    #[pyo3(signature = (items, *, soft=None, errors="observe"))]
    fn check_batch<'py>(&self, items: &Bound<'py, PyAny>, soft: Option<f64>, errors: &str) -> PyResult<Bound<'py, PyList>> {
        batch::batch(&self.shared, items, soft, errors)
    }

    /// Like `check_batch`, but one `ObservationBatch` holds every outcome: `valid` gives every
    /// verdict as one `list[bool]`, `batch[i]` builds item `i`'s result on access.
    #[pyo3(signature = (items, *, soft=None, errors="observe"))]
    fn check_many(&self, items: &Bound<'_, PyAny>, soft: Option<f64>, errors: &str) -> PyResult<ObservationBatch> {
        many(&self.shared, items, soft, errors)
    }
}

fn many(shared: &Arc<Shared>, items: &Bound<'_, PyAny>, soft: Option<f64>, errors: &str) -> PyResult<ObservationBatch> {
    let raise = batch::raise_mode(errors)?;
    ObservationBatch::check(shared, items, soft, raise)
}

/// Module-level `check_many(checker, items, *, soft=None, errors="observe")`.
#[pyfunction]
#[pyo3(signature = (checker, items, *, soft=None, errors="observe"))]
fn check_many(checker: &Bound<'_, ObservationChecker>, items: &Bound<'_, PyAny>, soft: Option<f64>,
              errors: &str) -> PyResult<ObservationBatch> {
    many(&checker.get().shared, items, soft, errors)
}

/// Module-level batch check: `check_batch(checker, items, *, soft=None, errors="observe")`.
#[pyfunction]
#[pyo3(signature = (checker, items, *, soft=None, errors="observe"))]
fn check_batch<'py>(checker: &Bound<'py, ObservationChecker>, items: &Bound<'py, PyAny>, soft: Option<f64>,
                    errors: &str) -> PyResult<Bound<'py, PyList>> {
    batch::batch(&checker.get().shared, items, soft, errors)
}

/// A plan checker compiled once from a tool registry.
#[pyclass(frozen, module = "rust_validator._native")]
pub struct PlanChecker {
    inner: CorePlanChecker,
    names: Vec<String>,
    limits: Limits,
}

fn tools_from_py(tools: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Value)>> {
    let py = tools.py();
    let lim = Limits { max_depth: 127, ..Limits::default() };
    let mut out = Vec::new();
    if let Ok(d) = tools.cast::<PyDict>() {
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let schema = to_value(&v, &lim, StrIs::Json)?;
            // A ToolSpec dict as the value: use its args_schema.
            let schema = match schema {
                Value::Object(mut m) if m.contains_key("args_schema") => m.remove("args_schema").unwrap_or(Value::Bool(true)),
                other => other,
            };
            out.push((name, schema));
        }
        return Ok(out);
    }
    for (i, spec) in tools.try_iter()?.enumerate() {
        let spec = to_value(&spec?, &lim, StrIs::Json)?;
        let name = spec.get("name").and_then(Value::as_str).map(str::to_owned);
        let schema = spec.get("args_schema").cloned();
        match (name, schema) {
            (Some(n), Some(s)) => out.push((n, s)),
            _ => return Err(build_err(py, BuildError::new(format!("tools/{i}"), "a ToolSpec needs 'name' and 'args_schema'"))),
        }
    }
    Ok(out)
}

fn report_to_py<'py>(py: Python<'py>, r: &PlanReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(pyo3::intern!(py, "valid"), r.valid)?;
    let errs = PyList::empty(py);
    for e in &r.errors {
        let x = PyDict::new(py);
        x.set_item(pyo3::intern!(py, "path"), &e.path)?;
        x.set_item(pyo3::intern!(py, "code"), e.code)?;
        x.set_item(pyo3::intern!(py, "message"), &e.message)?;
        errs.append(x)?;
    }
    d.set_item(pyo3::intern!(py, "errors"), errs)?;
    d.set_item(pyo3::intern!(py, "order"), PyList::new(py, &r.order)?)?;
    Ok(d)
}

#[pymethods]
impl PlanChecker {
    /// `tools`: {name: args JSON Schema} or a list of ToolSpec dicts.
    #[new]
    #[pyo3(signature = (tools, *, validate_formats=true, lenient_datetime=true, max_bytes=1024*1024, max_depth=64,
                        allow_duplicate_keys=false))]
    fn new(tools: &Bound<'_, PyAny>, validate_formats: bool, lenient_datetime: bool, max_bytes: usize,
           max_depth: usize, allow_duplicate_keys: bool) -> PyResult<Self> {
        let py = tools.py();
        let opts = schema_opts(py, None, validate_formats, lenient_datetime, None)?;
        let list = tools_from_py(tools)?;
        let names = list.iter().map(|(n, _)| n.clone()).collect();
        let inner = CorePlanChecker::new(&list, &opts).map_err(|e| build_err(py, e))?;
        Ok(Self { inner, names, limits: limits(max_bytes, max_depth, allow_duplicate_keys) })
    }

    /// Tool names in the registry.
    #[getter]
    fn tools(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Check a plan (`bytes`/`str` of JSON, or a dict) → {"valid", "errors", "order"}.
    fn check<'py>(&self, plan: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let v = to_value(plan, &self.limits, StrIs::Json)?;
        report_to_py(plan.py(), &self.inner.check(&v))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<SchemaValidator>()?;
    m.add_class::<ObservationChecker>()?;
    m.add_class::<PyObservation>()?;
    m.add_class::<ObservationBatch>()?;
    m.add_class::<PlanChecker>()?;
    m.add_function(wrap_pyfunction!(jsonlogic, m)?)?;
    m.add_function(wrap_pyfunction!(check_batch, m)?)?;
    m.add_function(wrap_pyfunction!(check_many, m)?)?;
    m.add("ValidationInputError", py.get_type::<ValidationInputError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("THOUGHT_PLAN_SCHEMA", crate::plan::THOUGHT_PLAN_SCHEMA)?;
    Ok(())
}
