//! TAO Runtime validation core.
//!
//! Pure Rust, testable with `cargo test` (no Python). The PyO3 bindings live in
//! [`py`] behind the `python` cargo feature and stay thin.

/// Tree-ensemble evaluation of XGBoost JSON models (token estimator fast path).
pub mod trees;

#[cfg(feature = "python")]
pub mod py;
