//! Python ⇄ `serde_json::Value` conversion and typed exceptions.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::{Map, Number, Value};

use crate::error::{escape_token, BuildError, InputError, InputErrorKind};
use crate::parse::{parse_bytes, parse_str, Limits};

pyo3::create_exception!(
    _native,
    ValidationInputError,
    PyValueError,
    "A document that cannot be accepted (invalid UTF-8, duplicate keys, NaN/Infinity, too deep, too \
     large, bad syntax or shape). Attributes: `pointer` (JSON pointer), `reason`, `kind`."
);
pyo3::create_exception!(
    _native,
    CompileError,
    PyValueError,
    "A schema, rule, contract or tool registry that does not compile. Attributes: `location`, `reason`."
);

/// Raise `ValidationInputError` with `pointer`, `reason` and `kind` attributes.
pub fn input_err(py: Python<'_>, e: InputError) -> PyErr {
    let err = ValidationInputError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("pointer", e.pointer);
    let _ = v.setattr("reason", e.reason);
    let _ = v.setattr("kind", e.kind.as_str());
    err
}

/// Raise `CompileError` with `location` and `reason` attributes.
pub fn build_err(py: Python<'_>, e: BuildError) -> PyErr {
    let err = CompileError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("location", e.location);
    let _ = v.setattr("reason", e.message);
    err
}

fn push(path: &str, token: &str) -> String {
    let mut p = String::with_capacity(path.len() + token.len() + 1);
    p.push_str(path);
    p.push('/');
    escape_token(token, &mut p);
    p
}

/// Convert a Python object (dict/list/tuple/str/int/float/bool/None) into a JSON value.
pub fn py_to_value(obj: &Bound<'_, PyAny>, limits: &Limits) -> Result<Value, InputError> {
    convert(obj, 0, limits.depth(), &mut || String::new())
}

fn convert(obj: &Bound<'_, PyAny>, depth: usize, max: usize, path: &mut dyn FnMut() -> String) -> Result<Value, InputError> {
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return s
            .to_str()
            .map(|s| Value::String(s.to_owned()))
            .map_err(|_| InputError::new(InputErrorKind::InvalidUtf8, path(), "string is not valid UTF-8 (lone surrogate)"));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if depth + 1 > max {
            return Err(InputError::new(InputErrorKind::TooDeep, path(), format!("nesting deeper than the limit of {max}")));
        }
        let mut m = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(ks) = k.cast::<PyString>() else {
                return Err(InputError::new(InputErrorKind::Unsupported, path(), "dict keys must be str"));
            };
            let key = ks
                .to_str()
                .map_err(|_| InputError::new(InputErrorKind::InvalidUtf8, path(), "key is not valid UTF-8"))?
                .to_owned();
            let val = convert(&v, depth + 1, max, &mut || push(&path(), &key))?;
            m.insert(key, val);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        if depth + 1 > max {
            return Err(InputError::new(InputErrorKind::TooDeep, path(), format!("nesting deeper than the limit of {max}")));
        }
        let mut out = Vec::with_capacity(l.len());
        for (i, v) in l.iter().enumerate() {
            out.push(convert(&v, depth + 1, max, &mut || format!("{}/{i}", path()))?);
        }
        return Ok(Value::Array(out));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        // Beyond 64 bits: the nearest f64, as the JSON text parser does (non-finite is rejected).
        let x: f64 = obj.extract().map_err(|_| InputError::new(InputErrorKind::BadNumber, path(), "integer too large"))?;
        return Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| InputError::new(InputErrorKind::BadNumber, path(), "integer too large for a JSON number"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let x = f.value();
        return Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| InputError::new(InputErrorKind::BadNumber, path(), format!("{x} is not a finite number")));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_str()
            .map(|s| Value::String(s.to_owned()))
            .map_err(|_| InputError::new(InputErrorKind::InvalidUtf8, path(), "string is not valid UTF-8"));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        if depth + 1 > max {
            return Err(InputError::new(InputErrorKind::TooDeep, path(), format!("nesting deeper than the limit of {max}")));
        }
        let mut out = Vec::with_capacity(t.len());
        for (i, v) in t.iter().enumerate() {
            out.push(convert(&v, depth + 1, max, &mut || format!("{}/{i}", path()))?);
        }
        return Ok(Value::Array(out));
    }
    let tname = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(InputError::new(InputErrorKind::Unsupported, path(), format!("a {tname} has no JSON counterpart")))
}

/// How a Python `str` argument is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StrIs {
    /// `str` is JSON text (used where a JSON string value makes no sense: contracts, plans,
    /// action results, schemas).
    Json,
    /// `str` is a JSON string value (instances of `SchemaValidator.is_valid`).
    Value,
}

/// Raw JSON bytes behind `bytes` (borrowed) — other buffer types are copied.
pub enum Raw<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Raw<'_> {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Raw::Borrowed(b) => b,
            Raw::Owned(v) => v,
        }
    }
}

/// The JSON text carried by `obj` when it is `bytes`/`bytearray`/`memoryview` (or `str`, when
/// `str_is` says so); `None` for ordinary Python values.
pub fn raw_json<'a>(obj: &'a Bound<'_, PyAny>, str_is: StrIs) -> PyResult<Option<Raw<'a>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(Raw::Borrowed(b.as_bytes())));
    }
    if str_is == StrIs::Json {
        if let Ok(s) = obj.cast::<PyString>() {
            let text = s.to_str().map_err(|_| {
                input_err(obj.py(), InputError::new(InputErrorKind::InvalidUtf8, "", "str is not valid UTF-8 (lone surrogate)"))
            })?;
            return Ok(Some(Raw::Borrowed(text.as_bytes())));
        }
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(Raw::Owned(b.to_vec())));
    }
    if obj.cast::<PyMemoryView>().is_ok() {
        let b: Vec<u8> = obj.call_method0("tobytes")?.extract()?;
        return Ok(Some(Raw::Owned(b)));
    }
    Ok(None)
}

/// Read any accepted input into a JSON value (parsing JSON text once, in Rust).
pub fn to_value(obj: &Bound<'_, PyAny>, limits: &Limits, str_is: StrIs) -> PyResult<Value> {
    let py = obj.py();
    match raw_json(obj, str_is)? {
        Some(Raw::Borrowed(b)) if str_is == StrIs::Json && obj.cast::<PyString>().is_ok() => {
            // Already valid UTF-8.
            parse_str(std::str::from_utf8(b).unwrap_or_default(), limits).map_err(|e| input_err(py, e))
        }
        Some(raw) => parse_bytes(raw.bytes(), limits).map_err(|e| input_err(py, e)),
        None => py_to_value(obj, limits).map_err(|e| input_err(py, e)),
    }
}

/// Convert a JSON value into Python objects.
pub fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(value_to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(PyString::new(py, k), value_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}
