//! Thin PyO3 bindings, compiled only with the `python` feature.
//! Each component registers its classes/functions from its own file.
use pyo3::prelude::*;

mod trees;
mod validator;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    validator::register(m)?;
    trees::register(m)?;
    Ok(())
}
