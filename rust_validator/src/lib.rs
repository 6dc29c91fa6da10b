//! TAO Runtime validation core.
//!
//! Pure Rust, testable with `cargo test` (no Python). The PyO3 bindings live in
//! [`py`] behind the `python` cargo feature and stay thin.

/// Tree-ensemble evaluation of XGBoost JSON models (token estimator fast path).
pub mod trees;

pub mod batch;
pub mod contract;
pub mod datetime;
pub mod error;
pub mod fast;
pub mod logic_spec;
pub mod normalize;
pub mod native_rules;
pub mod observation;
pub mod parse;
pub mod plan;
pub mod pointer;
pub mod pool;
pub mod project;
pub mod rules;
pub mod schema;
pub mod stages;
pub mod units;

#[cfg(feature = "python")]
pub mod py;
