//! Build ObservationResult dicts directly from the core's `Observation` (interned keys).
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::convert::value_to_py;
use crate::contract::Contract;
use crate::error::InputError;
use crate::observation::Observation;

/// Prebuilt Python objects of one contract: copying a small template dict is cheaper than
/// building it key by key.
pub struct Templates {
    /// `{"check": name, "passed": True, "detail": ""}` for every check a contract can pass.
    passed: Vec<(String, Py<PyDict>)>,
    /// The tool name, as an interned Python string.
    tool: Py<PyString>,
    /// The `extract` output names, as Python strings (looked up by name).
    extract_names: Vec<(String, Py<PyString>)>,
}

impl Templates {
    pub fn new(py: Python<'_>, c: &Contract) -> PyResult<Self> {
        let mut names: Vec<String> = ["status_code", "latency", "units", "schema", "required_fields", "blacklist", "consistency"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        names.extend(c.rule_checks.iter().cloned());
        let mut passed = Vec::with_capacity(names.len());
        for n in names {
            let e = PyDict::new(py);
            e.set_item(intern!(py, "check"), PyString::intern(py, &n))?;
            e.set_item(intern!(py, "passed"), true)?;
            e.set_item(intern!(py, "detail"), intern!(py, ""))?;
            passed.push((n, e.unbind()));
        }
        let extract_names = c.extract.iter().map(|(n, _)| (n.clone(), PyString::intern(py, n).unbind())).collect();
        Ok(Self { passed, tool: PyString::intern(py, &c.name).unbind(), extract_names })
    }

    fn passed_entry<'py>(&self, py: Python<'py>, check: &str) -> Option<PyResult<Bound<'py, PyDict>>> {
        self.passed.iter().find(|(n, _)| n == check).map(|(_, t)| t.bind(py).copy())
    }
}

/// `{valid, error_type, extracted_data, confidence_score, audit_trail, details}`.
pub fn observation_to_py<'py>(py: Python<'py>, t: &Templates, o: &Observation<'_>)
    -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "valid"), o.valid)?;
    match o.error_type_str() {
        Some(t) => d.set_item(intern!(py, "error_type"), PyString::intern(py, t))?,
        None => d.set_item(intern!(py, "error_type"), py.None())?,
    }
    let ex = PyDict::new(py);
    for (k, v) in &o.extracted {
        match t.extract_names.iter().find(|(n, _)| n == k) {
            Some((_, name)) => ex.set_item(name.bind(py), value_to_py(py, v)?)?,
            None => ex.set_item(PyString::new(py, k), value_to_py(py, v)?)?,
        }
    }
    d.set_item(intern!(py, "extracted_data"), ex)?;
    d.set_item(intern!(py, "confidence_score"), o.confidence)?;
    let audit = PyList::empty(py);
    for a in &o.audit {
        if a.passed && a.detail.is_empty() {
            if let Some(e) = t.passed_entry(py, a.check) {
                audit.append(e?)?;
                continue;
            }
        }
        let e = PyDict::new(py);
        e.set_item(intern!(py, "check"), PyString::intern(py, a.check))?;
        e.set_item(intern!(py, "passed"), a.passed)?;
        if a.detail.is_empty() {
            e.set_item(intern!(py, "detail"), intern!(py, ""))?;
        } else {
            e.set_item(intern!(py, "detail"), &a.detail)?;
        }
        audit.append(e)?;
    }
    d.set_item(intern!(py, "audit_trail"), audit)?;
    let details = PyDict::new(py);
    details.set_item(intern!(py, "tool"), t.tool.bind(py))?;
    if !o.schema_errors.is_empty() {
        let l = PyList::empty(py);
        for e in &o.schema_errors {
            let x = PyDict::new(py);
            x.set_item(intern!(py, "path"), &e.path)?;
            x.set_item(intern!(py, "keyword"), &e.keyword)?;
            x.set_item(intern!(py, "message"), &e.message)?;
            l.append(x)?;
        }
        details.set_item(intern!(py, "schema_errors"), l)?;
    }
    if !o.normalized.is_empty() {
        details.set_item(intern!(py, "normalized"), PyList::new(py, &o.normalized)?)?;
    }
    if !o.conversions.is_empty() {
        let l = PyList::empty(py);
        for (p, raw, c) in &o.conversions {
            let x = PyDict::new(py);
            x.set_item(intern!(py, "pointer"), p)?;
            x.set_item(intern!(py, "raw"), value_to_py(py, raw)?)?;
            x.set_item(intern!(py, "from_unit"), c.from.map(crate::units::Unit::id))?;
            x.set_item(intern!(py, "value"), c.value)?;
            x.set_item(intern!(py, "unit"), c.to.id())?;
            l.append(x)?;
        }
        details.set_item(intern!(py, "unit_conversions"), l)?;
    }
    if !o.unit_errors.is_empty() {
        let l = PyList::empty(py);
        for (p, raw, e) in &o.unit_errors {
            let x = PyDict::new(py);
            x.set_item(intern!(py, "pointer"), p)?;
            x.set_item(intern!(py, "raw"), value_to_py(py, raw)?)?;
            x.set_item(intern!(py, "kind"), e.kind.as_str())?;
            x.set_item(intern!(py, "reason"), &e.reason)?;
            l.append(x)?;
        }
        details.set_item(intern!(py, "unit_errors"), l)?;
    }
    if !o.missing_extract.is_empty() {
        details.set_item(intern!(py, "missing_extract"), PyList::new(py, &o.missing_extract)?)?;
    }
    if !o.valid {
        let failed: Vec<&str> = o.audit.iter().filter(|a| !a.passed).map(|a| a.check).collect();
        details.set_item(intern!(py, "failed_checks"), PyList::new(py, failed)?)?;
    }
    d.set_item(intern!(py, "details"), details)?;
    Ok(d)
}

/// An invalid observation for a document the parser rejected (batch `errors="observe"`).
pub fn input_error_observation<'py>(py: Python<'py>, e: &InputError) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "valid"), false)?;
    d.set_item(intern!(py, "error_type"), intern!(py, "TOOL_MALFORMED_RESPONSE"))?;
    d.set_item(intern!(py, "extracted_data"), PyDict::new(py))?;
    d.set_item(intern!(py, "confidence_score"), 0.0)?;
    let entry = PyDict::new(py);
    entry.set_item(intern!(py, "check"), intern!(py, "parse"))?;
    entry.set_item(intern!(py, "passed"), false)?;
    entry.set_item(intern!(py, "detail"), e.to_string())?;
    d.set_item(intern!(py, "audit_trail"), PyList::new(py, [entry])?)?;
    let info = PyDict::new(py);
    info.set_item(intern!(py, "kind"), e.kind.as_str())?;
    info.set_item(intern!(py, "pointer"), &e.pointer)?;
    info.set_item(intern!(py, "reason"), &e.reason)?;
    let details = PyDict::new(py);
    details.set_item(intern!(py, "input_error"), info)?;
    d.set_item(intern!(py, "details"), details)?;
    Ok(d)
}
