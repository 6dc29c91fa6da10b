//! `check_batch`: many ActionResults against one contract. The items are read once under the
//! GIL (`bytes`/`str` in place, `bytearray`/`memoryview` copied, other objects converted; an
//! item that cannot be read becomes its own input error), checked in parallel with rayon with
//! the GIL released (on this thread for small batches, see [`crate::batch::grouping`]), and the
//! result objects are created under the GIL afterwards, in order.
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use serde_json::Value;

use super::convert::{input_err, py_to_value, raw_json, StrIs};
use super::lazy::{Observation as PyObservation, Shared};
use super::output::input_error_observation;
use crate::contract::Contract;
use crate::error::{InputError, InputErrorKind};
use crate::fast::observe::Outcome;

/// One item of a batch, as read under the GIL.
enum Input<'a> {
    /// A `bytes`/`str` item's JSON text, read in place (the object is immutable: a pass keeps a
    /// reference to it and builds its values on first read).
    Text(&'a [u8]),
    /// A mutable buffer's copy of its JSON text (`bytearray`, `memoryview`): built at once.
    Copy(Vec<u8>),
    /// A Python value converted to JSON.
    Value(Value),
    /// An item that cannot be read (a lone surrogate, a `set`, `nan`): its own input error.
    Bad(InputError),
}

fn read<'a>(it: &'a Bound<'_, PyAny>, c: &Contract) -> PyResult<Input<'a>> {
    if let Ok(b) = it.cast::<PyBytes>() {
        return Ok(Input::Text(b.as_bytes()));
    }
    if let Ok(s) = it.cast::<PyString>() {
        return Ok(match s.to_str() {
            Ok(t) => Input::Text(t.as_bytes()),
            Err(_) => Input::Bad(InputError::new(InputErrorKind::InvalidUtf8, "", "str is not valid UTF-8 (lone surrogate)")),
        });
    }
    Ok(match raw_json(it, StrIs::Json)? {
        Some(raw) => Input::Copy(raw.bytes().to_vec()),
        None => match py_to_value(it, &c.limits) {
            Ok(v) => Input::Value(v),
            Err(e) => Input::Bad(e),
        },
    })
}

/// The check of one item (no GIL needed).
fn scan<'c>(c: &'c Contract, input: &Input<'_>, soft: Option<f64>) -> Result<Outcome<'c>, InputError> {
    match input {
        Input::Text(b) => c.check_bytes_lazy(b, soft),
        Input::Copy(b) => match c.check_bytes_lazy(b, soft)? {
            Outcome::Passed(p) => match p.observation(c, b) {
                Some(obs) => Ok(Outcome::Full(Box::new(obs))),
                None => c.check_full(b, soft).map(|o| Outcome::Full(Box::new(o))),
            },
            full => Ok(full),
        },
        Input::Value(v) => c.check_value(v.clone(), soft).map(|o| Outcome::Full(Box::new(o))),
        Input::Bad(e) => Err(e.clone()),
    }
}

/// `errors=` of a batch call: `true` = raise the first input error.
pub fn raise_mode(errors: &str) -> PyResult<bool> {
    match errors {
        "raise" => Ok(true),
        "observe" => Ok(false),
        other => Err(PyValueError::new_err(format!("errors must be 'raise' or 'observe', not {other:?}"))),
    }
}

/// What the scan of a batch gives: a reference to every item (in order) and its outcome.
pub type Scanned<'c> = (Vec<Py<PyAny>>, Vec<Result<Outcome<'c>, InputError>>);

/// Read every item under the GIL, then check them all (in parallel with the GIL released when the
/// batch is large enough). The outcomes borrow the contract only.
pub fn scan_all<'c>(c: &'c Contract, items: &Bound<'_, PyAny>, soft: Option<f64>) -> PyResult<Scanned<'c>> {
    let py = items.py();
    // A reference to every item, so their buffers outlive the GIL-free scan even if the caller's
    // list is changed meanwhile by another thread.
    let held: Vec<Py<PyAny>> = match items.cast::<PyList>() {
        Ok(list) => list.iter().map(Bound::unbind).collect(),
        Err(_) => items.try_iter()?.map(|it| it.map(Bound::unbind)).collect::<PyResult<_>>()?,
    };
    let results = {
        let bound: Vec<&Bound<'_, PyAny>> = held.iter().map(|h| h.bind(py)).collect();
        let inputs: Vec<Input<'_>> = bound.iter().map(|it| read(it, c)).collect::<PyResult<_>>()?;
        let n = inputs.len();
        let total: usize = inputs
            .iter()
            .map(|i| match i {
                Input::Text(b) => b.len(),
                Input::Copy(b) => b.len(),
                Input::Value(_) | Input::Bad(_) => 0,
            })
            .sum();
        match crate::batch::grouping(n, total) {
            None => inputs.iter().map(|input| scan(c, input, soft)).collect(),
            Some(min_len) => {
                use rayon::prelude::*;
                py.detach(|| inputs.par_iter().with_min_len(min_len).map(|input| scan(c, input, soft)).collect())
            }
        }
    };
    Ok((held, results))
}

pub fn batch<'py>(shared: &Arc<Shared>, items: &Bound<'py, PyAny>, soft: Option<f64>, errors: &str)
    -> PyResult<Bound<'py, PyList>> {
    let py = items.py();
    let raise = raise_mode(errors)?;
    let (held, results) = scan_all(&shared.contract, items, soft)?;
    let make = |i: usize, r: Result<Outcome<'_>, InputError>| -> PyResult<Py<PyAny>> {
        Ok(match r {
            Ok(Outcome::Passed(p)) => Py::new(py, PyObservation::passed(shared, held[i].clone_ref(py), p))?.into_any(),
            Ok(Outcome::Full(obs)) => Py::new(py, PyObservation::from_box(shared, obs))?.into_any(),
            Err(e) if raise => return Err(input_err(py, e)),
            Err(e) => input_error_observation(py, &e)?.into_any().unbind(),
        })
    };
    let out = results.into_iter().enumerate().map(|(i, r)| make(i, r)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)
}
