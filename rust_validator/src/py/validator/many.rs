//! `ObservationBatch`: the columnar result of `check_many`. ONE Python object per batch holds
//! the Rust outcome of every item (and the tuple of the items, as the list path does), so a
//! batch allocates no per-document Python object until a document's result is asked for. The
//! verdicts come out as one `list[bool]` (`valid`); `batch[i]` builds, once, the same result
//! `check_batch` gives for item `i` (an `Observation`, or the input-error dict) and caches it.
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PySlice, PyTuple};

use super::batch::{hold, scan_all};
use super::convert::input_err;
use super::lazy::{Observation as PyObservation, Shared};
use super::output::input_error_observation;
use crate::error::InputError;
use crate::fast::observe::{Outcome, Passed};
use crate::observation::Observation as CoreObservation;

/// One item's outcome, owned.
enum Entry {
    /// A pass on the fast path of an immutable `bytes`/`str` item (the item is in `held`).
    Passed(Passed),
    /// The full result (borrows the contract in `shared`, see [`ObservationBatch::new`]).
    Full(Box<CoreObservation<'static>>),
    /// An item rejected as input (`errors="observe"`).
    Bad(InputError),
}

impl Entry {
    fn valid(&self) -> bool {
        match self {
            Entry::Passed(_) => true,
            Entry::Full(obs) => obs.valid,
            Entry::Bad(_) => false,
        }
    }
}

impl Entry {
    /// The entry of an outcome of `contract`.
    ///
    /// SAFETY (callers): `contract` is `shared.contract` of the batch that will own the entry.
    /// A core `Observation<'c>` borrows only from the `Contract` that produced it; that contract
    /// lives in the `Arc` the batch holds, is never mutated (no `&mut` access exists to an
    /// `Arc<Shared>`), and `entries` is dropped before the `Arc` (field order); an entry is only
    /// ever cloned into a `lazy::Observation`, which holds the same `Arc`. So `'static` stands for
    /// the life of the batch (as in `lazy::Observation::from_box`).
    unsafe fn of(r: Result<Outcome<'_>, InputError>) -> Self {
        match r {
            Ok(Outcome::Passed(p)) => Entry::Passed(p),
            Ok(Outcome::Full(obs)) => Entry::Full(unsafe {
                std::mem::transmute::<Box<CoreObservation<'_>>, Box<CoreObservation<'static>>>(obs)
            }),
            Err(e) => Entry::Bad(e),
        }
    }
}

/// The result of `check_many` (see the module docs).
#[pyclass(frozen, sequence, module = "rust_validator._native")]
pub struct ObservationBatch {
    // Declared before `shared` so it is dropped first: `Entry::Full` points into `shared.contract`.
    entries: Vec<Entry>,
    /// The items, in order (`bytes`/`str` passes build their values from them).
    held: Py<PyTuple>,
    /// The built results, allocated on the first access to any of them.
    built: OnceLock<Box<[PyOnceLock<Py<PyAny>>]>>,
    shared: Arc<Shared>,
}

impl ObservationBatch {
    /// Check every item of `items` against `shared.contract` (see `batch::scan_all`) into one
    /// batch. `raise`: the first input error is raised instead.
    pub fn check(shared: &Arc<Shared>, items: &Bound<'_, PyAny>, soft: Option<f64>, raise: bool) -> PyResult<Self> {
        let py = items.py();
        let held = hold(items)?;
        // SAFETY: the outcomes are `shared.contract`'s, and the entries go into this batch.
        let entries = scan_all(&shared.contract, &held, soft, |r| unsafe { Entry::of(r) })?;
        if raise {
            if let Some(Entry::Bad(e)) = entries.iter().find(|e| matches!(e, Entry::Bad(_))) {
                return Err(input_err(py, e.clone()));
            }
        }
        Ok(Self { entries, held: held.unbind(), built: OnceLock::new(), shared: Arc::clone(shared) })
    }

    /// Item `i`'s result (`i` < len), built on first access and then the same object.
    fn item<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let built = self.built.get_or_init(|| (0..self.entries.len()).map(|_| PyOnceLock::new()).collect());
        let o = built[i].get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(match &self.entries[i] {
                Entry::Passed(p) => {
                    let text = self.held.bind(py).get_item(i)?.unbind();
                    Py::new(py, PyObservation::passed(&self.shared, text, p.clone()))?.into_any()
                }
                Entry::Full(obs) => Py::new(py, PyObservation::from_box(&self.shared, obs.clone()))?.into_any(),
                Entry::Bad(e) => input_error_observation(py, e)?.into_any().unbind(),
            })
        })?;
        Ok(o.bind(py).clone())
    }
}

#[pymethods]
impl ObservationBatch {
    fn __len__(&self) -> usize {
        self.entries.len()
    }

    /// `batch[i]` (negative counts from the end; out of range: IndexError), `batch[a:b:c]` → list.
    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        let n = self.entries.len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let s = slice.indices(n as isize)?;
            let out = PyList::empty(py);
            let mut i = s.start;
            for _ in 0..s.slicelength {
                out.append(self.item(py, i as usize)?)?;
                i += s.step;
            }
            return Ok(out.into_any());
        }
        let i: isize = index.extract()?;
        let j = if i < 0 { i + n as isize } else { i };
        if j < 0 || j as usize >= n {
            return Err(PyIndexError::new_err("ObservationBatch index out of range"));
        }
        self.item(py, j as usize)
    }

    fn __iter__(slf: &Bound<'_, Self>) -> ObservationBatchIter {
        ObservationBatchIter { batch: slf.clone().unbind(), next: 0 }
    }

    /// Every verdict, in order, as one `list[bool]`.
    #[getter]
    fn valid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.entries.iter().map(Entry::valid))
    }

    /// How many items passed every hard check.
    #[getter]
    fn n_valid(&self) -> usize {
        self.entries.iter().filter(|e| e.valid()).count()
    }

    /// The indices of the items that did not pass, ascending.
    fn invalid_indices(&self) -> Vec<usize> {
        self.entries.iter().enumerate().filter(|(_, e)| !e.valid()).map(|(i, _)| i).collect()
    }

    /// The list `check_batch` returns for the same items (the results are this batch's objects).
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = (0..self.entries.len()).map(|i| self.item(py, i)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, out)
    }

    fn __repr__(&self) -> String {
        format!("ObservationBatch(len={}, n_valid={})", self.entries.len(), self.n_valid())
    }
}

/// The iterator of an [`ObservationBatch`] (its items in order, built on access).
#[pyclass(module = "rust_validator._native")]
pub struct ObservationBatchIter {
    batch: Py<ObservationBatch>,
    next: usize,
}

#[pymethods]
impl ObservationBatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let b = self.batch.get();
        if self.next >= b.entries.len() {
            return Ok(None);
        }
        self.next += 1;
        b.item(py, self.next - 1).map(Some)
    }
}
