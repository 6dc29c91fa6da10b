//! `check_batch`: many ActionResults against one contract. The items are read once under the
//! GIL (`bytes`/`str` in place, `bytearray`/`memoryview` copied, other objects converted; an
//! item that cannot be read becomes its own input error), checked in parallel ([`crate::pool`]) with
//! the GIL released (on this thread for small batches, see [`crate::batch::grouping`]), and the
//! result objects are created under the GIL afterwards, in order.
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use serde_json::Value;

use super::convert::{input_err, py_to_value, raw_json, StrIs};
use super::lazy::{Observation as PyObservation, Shared};
use super::output::input_error_observation;
use crate::contract::Contract;
use crate::error::{InputError, InputErrorKind};
use crate::fast::observe::Outcome;

/// One item of a batch, as read under the GIL (two words and a tag: the batch keeps one a
/// document, so the rare kinds are boxed).
enum Input<'a> {
    /// A `bytes`/`str` item's JSON text, read in place (the object is immutable: a pass keeps a
    /// reference to it and builds its values on first read).
    Text(&'a [u8]),
    /// A mutable buffer's copy of its JSON text (`bytearray`, `memoryview`): built at once.
    Copy(Box<[u8]>),
    /// A Python value converted to JSON.
    Value(Box<Value>),
    /// An item that cannot be read (a lone surrogate, a `set`, `nan`): its own input error.
    Bad(Box<InputError>),
}

impl Input<'_> {
    fn len(&self) -> usize {
        match self {
            Input::Text(b) => b.len(),
            Input::Copy(b) => b.len(),
            Input::Value(_) | Input::Bad(_) => 0,
        }
    }
}

/// `x` for as long as `'t`.
///
/// SAFETY (callers): `x` is the buffer of an immutable `bytes`/`str` object (its bytes, or its
/// cached UTF-8) that a tuple alive for `'t` holds a reference to.
unsafe fn held_for<'t>(x: &[u8]) -> &'t [u8] {
    unsafe { &*(x as *const [u8]) }
}

/// Item `it` of the batch's tuple (alive for `'t`).
fn read<'t>(it: &Bound<'_, PyAny>, c: &Contract) -> PyResult<Input<'t>> {
    if let Ok(b) = it.cast::<PyBytes>() {
        // SAFETY: a `bytes` object's buffer, and the tuple holds the object (see `held_for`).
        return Ok(Input::Text(unsafe { held_for(b.as_bytes()) }));
    }
    if let Ok(s) = it.cast::<PyString>() {
        return Ok(match s.to_str() {
            // SAFETY: the `str`'s cached UTF-8, kept with the object the tuple holds.
            Ok(t) => Input::Text(unsafe { held_for(t.as_bytes()) }),
            Err(_) => Input::Bad(Box::new(InputError::new(
                InputErrorKind::InvalidUtf8,
                "",
                "str is not valid UTF-8 (lone surrogate)",
            ))),
        });
    }
    Ok(match raw_json(it, StrIs::Json)? {
        Some(raw) => Input::Copy(raw.bytes().into()),
        None => match py_to_value(it, &c.limits) {
            Ok(v) => Input::Value(Box::new(v)),
            Err(e) => Input::Bad(Box::new(e)),
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
        Input::Value(v) => c.check_value(Value::clone(v), soft).map(|o| Outcome::Full(Box::new(o))),
        Input::Bad(e) => Err(InputError::clone(e)),
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

/// The items of a batch as one tuple: a reference to every item (in order), so their buffers
/// outlive the GIL-free scan even if the caller's list is changed meanwhile by another thread. A
/// list is copied by CPython in one call; a tuple is itself.
pub fn hold<'py>(items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    if let Ok(t) = items.cast::<PyTuple>() {
        return Ok(t.clone());
    }
    if let Ok(list) = items.cast::<PyList>() {
        return Ok(list.to_tuple());
    }
    let all = items.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(items.py(), all)
}

/// Check every item of `held` (read under the GIL, then checked in parallel with the GIL
/// released when the batch is large enough) and `wrap` each outcome (on the thread that checked
/// it). The outcomes borrow the contract only.
pub fn scan_all<'c, R: Send>(
    c: &'c Contract,
    held: &Bound<'_, PyTuple>,
    soft: Option<f64>,
    wrap: impl Fn(Result<Outcome<'c>, InputError>) -> R + Sync,
) -> PyResult<Vec<R>> {
    let mut inputs: Vec<Input<'_>> = Vec::with_capacity(held.len());
    let mut total = 0;
    for it in held.iter_borrowed() {
        let input = read(&it, c)?;
        total += input.len();
        inputs.push(input);
    }
    let one = |input: &Input<'_>| wrap(scan(c, input, soft));
    Ok(match crate::batch::grouping(inputs.len(), total) {
        None => inputs.iter().map(one).collect(),
        Some(chunk) => held.py().detach(|| crate::pool::par_map(&inputs, chunk, one)),
    })
}

pub fn batch<'py>(shared: &Arc<Shared>, items: &Bound<'py, PyAny>, soft: Option<f64>, errors: &str)
    -> PyResult<Bound<'py, PyList>> {
    let py = items.py();
    let raise = raise_mode(errors)?;
    let held = hold(items)?;
    let results = scan_all(&shared.contract, &held, soft, |r| r)?;
    let make = |i: usize, r: Result<Outcome<'_>, InputError>| -> PyResult<Py<PyAny>> {
        Ok(match r {
            Ok(Outcome::Passed(p)) => {
                // SAFETY: `i` < len: one result per item of `held`.
                let text = unsafe { held.get_borrowed_item_unchecked(i) }.to_owned().unbind();
                Py::new(py, PyObservation::passed(shared, text, p))?.into_any()
            }
            Ok(Outcome::Full(obs)) => Py::new(py, PyObservation::from_box(shared, obs))?.into_any(),
            Err(e) if raise => return Err(input_err(py, e)),
            Err(e) => input_error_observation(py, &e)?.into_any().unbind(),
        })
    };
    let out = results.into_iter().enumerate().map(|(i, r)| make(i, r)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)
}
