//! Python bindings for the trees component: `TreeEnsemble`, a single-row XGBoost predictor.
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::trees::{Ensemble, TreeError};

fn to_py(e: TreeError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// XGBoost `gbtree` model evaluated in Rust, built from the booster's JSON model text.
#[pyclass(frozen, module = "rust_validator._native")]
pub struct TreeEnsemble {
    inner: Ensemble,
    names: Option<Vec<Py<PyAny>>>,
}

const MAX_INLINE: usize = 64;

impl TreeEnsemble {
    /// Read a row from a list, tuple, dict (by feature name) or any float sequence into `buf`.
    fn read_row(&self, row: &Bound<'_, PyAny>, buf: &mut Vec<f32>) -> PyResult<()> {
        buf.clear();
        if let Ok(list) = row.cast::<PyList>() {
            for v in list.iter() {
                buf.push(v.extract::<f64>()? as f32);
            }
        } else if let Ok(tup) = row.cast::<PyTuple>() {
            for v in tup.iter() {
                buf.push(v.extract::<f64>()? as f32);
            }
        } else if let Ok(dict) = row.cast::<PyDict>() {
            let names = self.names.as_ref().ok_or_else(|| {
                PyTypeError::new_err("a dict row needs feature_names given to TreeEnsemble()")
            })?;
            let py = row.py();
            for name in names {
                buf.push(match dict.get_item(name.bind(py))? {
                    Some(v) if !v.is_none() => v.extract::<f64>()? as f32,
                    _ => f32::NAN,
                });
            }
        } else {
            let v: Vec<f64> = row.extract().map_err(|_| {
                PyTypeError::new_err("row must be a list, tuple, dict or sequence of floats")
            })?;
            buf.extend(v.into_iter().map(|x| x as f32));
        }
        Ok(())
    }
}

#[pymethods]
impl TreeEnsemble {
    /// `TreeEnsemble(model_json, feature_names=None)`: `model_json` is the text written by
    /// `Booster.save_raw("json")`; `feature_names` (optional) allows dict rows.
    #[new]
    #[pyo3(signature = (model_json, feature_names=None))]
    fn new(py: Python<'_>, model_json: &str, feature_names: Option<Vec<String>>) -> PyResult<Self> {
        let inner = py.detach(|| Ensemble::from_xgboost_json(model_json)).map_err(to_py)?;
        let names = match feature_names {
            Some(n) if n.len() < inner.num_features() => {
                return Err(PyValueError::new_err(format!(
                    "{} feature names for a {}-feature model",
                    n.len(),
                    inner.num_features()
                )))
            }
            Some(n) => Some(
                n.into_iter()
                    .map(|s| pyo3::types::PyString::new(py, &s).into_any().unbind())
                    .collect(),
            ),
            None => None,
        };
        Ok(TreeEnsemble { inner, names })
    }

    /// Predict one row: a list/tuple of floats in training column order (NaN = missing), or
    /// a dict keyed by feature name when `feature_names` were given.
    fn predict(&self, row: &Bound<'_, PyAny>) -> PyResult<f64> {
        // Fast path: a list of floats read straight into a stack buffer.
        if let Ok(list) = row.cast::<PyList>() {
            let n = list.len();
            if n <= MAX_INLINE {
                let mut buf = [0f32; MAX_INLINE];
                for (b, v) in buf.iter_mut().zip(list.iter()) {
                    *b = v.extract::<f64>()? as f32;
                }
                return self.inner.predict_row(&buf[..n]).map_err(to_py);
            }
        }
        let mut buf = Vec::with_capacity(self.inner.num_features());
        self.read_row(row, &mut buf)?;
        self.inner.predict_row(&buf).map_err(to_py)
    }

    /// Predict many rows (an iterable of rows as accepted by `predict`).
    fn predict_batch(&self, rows: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
        let mut out = Vec::new();
        let mut buf = Vec::with_capacity(self.inner.num_features());
        for row in rows.try_iter()? {
            self.read_row(&row?, &mut buf)?;
            out.push(self.inner.predict_row(&buf).map_err(to_py)?);
        }
        Ok(out)
    }

    /// Number of trees.
    #[getter]
    fn num_trees(&self) -> usize {
        self.inner.num_trees()
    }

    /// Number of input features.
    #[getter]
    fn num_features(&self) -> usize {
        self.inner.num_features()
    }

    /// Objective name from the model document.
    #[getter]
    fn objective(&self) -> &str {
        self.inner.objective()
    }

    fn __repr__(&self) -> String {
        format!(
            "TreeEnsemble(trees={}, features={}, objective='{}')",
            self.inner.num_trees(),
            self.inner.num_features(),
            self.inner.objective()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TreeEnsemble>()?;
    Ok(())
}
