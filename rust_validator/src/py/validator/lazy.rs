//! `Observation`: the ObservationResult of a check as a lazy, dict-like object.
//!
//! A check returns this object instead of a dict: it keeps the core's Rust result and builds the
//! Python dict (audit trail, details, extracted data) only on first access of a key that needs
//! it, then caches it. `valid`, `error_type` and `confidence_score` are answered straight from
//! Rust. It behaves as a mutable mapping (`obs["valid"]`, `obs.get(..)`, `dict(obs)`, `keys()`,
//! `items()`, `in`, `==` with a dict, item assignment) so callers written for the dict keep working;
//! `to_dict()` returns a plain dict copy.
//!
//! A check that passed on the fast path is kept as the core's [`Passed`] (the byte ranges of the
//! extracted values) plus a reference to the immutable `bytes`/`str` it was read from: nothing
//! else is built until a key beyond `valid`/`error_type`/`confidence_score` is read.
use std::sync::Arc;

use pyo3::basic::CompareOp;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyString};
use pyo3::{intern, IntoPyObjectExt};

use super::output::{observation_to_py, Templates};
use super::convert::input_err;
use crate::contract::Contract;
use crate::fast::observe::Passed;
use crate::observation::Observation as CoreObservation;

/// What every result of one checker shares: the compiled contract and its prebuilt Python objects.
pub struct Shared {
    pub contract: Contract,
    pub templates: Templates,
}

/// The six keys of an ObservationResult, in dict order.
const KEYS: [&str; 6] = ["valid", "error_type", "extracted_data", "confidence_score", "audit_trail", "details"];

/// What a result holds: the core's observation, or a fast-path pass and the text it was read
/// from (an immutable `bytes` or `str`).
enum Res {
    Core(Box<CoreObservation<'static>>),
    Passed { text: Py<PyAny>, passed: Passed },
}

/// The lazy ObservationResult (see the module docs). A free list keeps released objects for
/// reuse: a check that passes allocates nothing on the Python heap but this object.
#[pyclass(frozen, mapping, module = "rust_validator._native")]
pub struct Observation {
    // Declared before `shared` so it is dropped first: its `&str`s point into `shared.contract`.
    res: Res,
    shared: Arc<Shared>,
    dict: PyOnceLock<Py<PyDict>>,
}

impl Observation {
    /// A pass on the fast path of `text` (a `bytes` or `str` object, kept alive and unchanged).
    pub fn passed(shared: &Arc<Shared>, text: Py<PyAny>, passed: Passed) -> Self {
        Self { res: Res::Passed { text, passed }, shared: Arc::clone(shared), dict: PyOnceLock::new() }
    }

    /// Wrap a result of `shared.contract.check_*`.
    pub fn new(shared: &Arc<Shared>, obs: CoreObservation<'_>) -> Self {
        Self::from_box(shared, Box::new(obs))
    }

    /// [`Self::new`] of a boxed result (as `Outcome::Full` holds it).
    pub fn from_box(shared: &Arc<Shared>, obs: Box<CoreObservation<'_>>) -> Self {
        // SAFETY: a core `Observation<'c>` borrows only from the `Contract` that produced it
        // (`check_bytes`/`check_value` take `&self` and tie the result to it), here
        // `shared.contract`. That contract lives in the `Arc` this object holds, is never mutated
        // (no `&mut` access exists to an `Arc<Shared>`), and its strings' heap buffers never
        // move; `res` is dropped before the `Arc` (field order). So the borrow stays valid for
        // the whole life of `obs`, which `'static` here stands for.
        let obs = unsafe { std::mem::transmute::<Box<CoreObservation<'_>>, Box<CoreObservation<'static>>>(obs) };
        Self { res: Res::Core(obs), shared: Arc::clone(shared), dict: PyOnceLock::new() }
    }

    /// The full result dict (built once, then cached).
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        let d = self.dict.get_or_try_init(py, || {
            let t = &self.shared.templates;
            match &self.res {
                Res::Core(obs) => observation_to_py(py, t, obs),
                Res::Passed { text, passed } => {
                    let text = text.bind(py);
                    let bytes = match text.cast::<PyBytes>() {
                        Ok(b) => b.as_bytes(),
                        Err(_) => text.cast::<PyString>()?.to_str()?.as_bytes(),
                    };
                    let c = &self.shared.contract;
                    match passed.observation(c, bytes) {
                        Some(obs) => observation_to_py(py, t, &obs),
                        // Never for a text the scan accepted; the full path would still answer.
                        None => observation_to_py(py, t, &c.check_full(bytes, passed.soft).map_err(|e| input_err(py, e))?),
                    }
                }
            }
            .map(Bound::unbind)
        })?;
        Ok(d.bind(py))
    }

    fn is_valid(&self) -> bool {
        match &self.res {
            Res::Core(obs) => obs.valid,
            Res::Passed { .. } => true,
        }
    }

    fn confidence(&self) -> f64 {
        match &self.res {
            Res::Core(obs) => obs.confidence,
            Res::Passed { passed, .. } => passed.confidence(),
        }
    }

    /// A key answered without building the dict (only while it has not been built).
    fn fast<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.dict.get(py).is_some() {
            return Ok(None);
        }
        let Ok(s) = key.cast::<PyString>() else { return Ok(None) };
        Ok(match s.to_str()? {
            "valid" => Some(PyBool::new(py, self.is_valid()).to_owned().into_any()),
            "error_type" => Some(self.error_type_obj(py)),
            "confidence_score" => Some(PyFloat::new(py, self.confidence()).into_any()),
            _ => None,
        })
    }

    fn error_type_obj<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let Res::Core(obs) = &self.res else { return py.None().into_bound(py) };
        match obs.error_type_str() {
            Some(t) => PyString::intern(py, t).into_any(),
            None => py.None().into_bound(py),
        }
    }
}

#[pymethods]
impl Observation {
    fn __getitem__<'py>(&self, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = key.py();
        if let Some(v) = self.fast(py, key)? {
            return Ok(v);
        }
        self.dict(py)?.get_item(key)?.ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.dict(key.py())?.set_item(key, value)
    }

    fn __delitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = self.dict(key.py())?;
        if !d.contains(key)? {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        }
        d.del_item(key)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.dict.get(py).map_or(KEYS.len(), |d| d.bind(py).len())
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = key.py();
        if let Some(d) = self.dict.get(py) {
            return d.bind(py).contains(key);
        }
        Ok(key.cast::<PyString>().is_ok_and(|s| s.to_str().is_ok_and(|s| KEYS.contains(&s))))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.as_any().try_iter()?.into_any())
    }

    /// `obs.get(key, default=None)`, as for a dict.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(&self, key: &Bound<'py, PyAny>, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let py = key.py();
        if let Some(v) = self.fast(py, key)? {
            return Ok(v);
        }
        match self.dict(py)?.get_item(key)? {
            Some(v) => Ok(v),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0(intern!(py, "keys"))
    }

    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0(intern!(py, "values"))
    }

    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0(intern!(py, "items"))
    }

    /// A plain `dict` copy of the result.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)?.copy()
    }

    /// Same as `to_dict()` (as `dict.copy`).
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)?.copy()
    }

    /// Whether the observation passed every hard check (attribute form of `obs["valid"]`).
    #[getter]
    fn valid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(intern!(py, "valid").as_any())
    }

    /// The ErrorType string or None (attribute form of `obs["error_type"]`).
    #[getter]
    fn error_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(intern!(py, "error_type").as_any())
    }

    /// The confidence in [0, 1] (attribute form of `obs["confidence_score"]`).
    #[getter]
    fn confidence_score<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.__getitem__(intern!(py, "confidence_score").as_any())
    }

    fn __richcmp__<'py>(&self, other: &Bound<'py, PyAny>, op: CompareOp) -> PyResult<Bound<'py, PyAny>> {
        let py = other.py();
        let eq = match (op, other.cast::<Observation>()) {
            (CompareOp::Eq | CompareOp::Ne, Ok(o)) => self.dict(py)?.eq(o.get().dict(py)?)?,
            (CompareOp::Eq | CompareOp::Ne, Err(_)) if other.cast::<PyDict>().is_ok() => self.dict(py)?.eq(other)?,
            _ => return Ok(py.NotImplemented().into_bound(py)),
        };
        (if matches!(op, CompareOp::Eq) { eq } else { !eq }).into_bound_py_any(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Observation({})", self.dict(py)?.repr()?))
    }
}
