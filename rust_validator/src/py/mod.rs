//! Thin PyO3 bindings, compiled only with the `python` feature.
//! Each component registers its classes/functions from its own file.
use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
