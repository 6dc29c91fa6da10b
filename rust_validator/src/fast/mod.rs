//! The fast path: check JSON text against a schema's common subset while scanning it once,
//! without building a `serde_json` tree ([`scan`], compiled by [`node`]), and the observation
//! check on top of it ([`observe`]).
//!
//! It only ever answers "valid" (or a whole passing observation). Every other outcome — an
//! invalid or malformed document, a limit, anything the subset does not cover — falls back to
//! the full path (bounded parse + `jsonschema` crate + the checks on the tree), which stays the
//! single authority for failures and their details. So results are identical by construction
//! wherever the fast path answers; `rust_validator/tests/fast_agreement.rs` checks it against
//! the `jsonschema` crate on generated schemas and documents, and the JSON-Schema-Test-Suite runs
//! through it from Python.
pub mod node;
pub mod observe;
pub mod plan;
pub mod scan;

use crate::parse::Limits;

/// A schema compiled for the fast path.
pub struct FastSchema {
    node: node::Node,
}

impl FastSchema {
    pub fn compile(schema: &serde_json::Value, opts: &crate::schema::SchemaOptions) -> Option<Self> {
        node::compile(schema, opts).map(|node| Self { node })
    }

    /// `true` only when `bytes` is a document the bounded parser accepts under `limits` and that
    /// is valid; `false` means "not decided here" (run the full path).
    pub fn accepts(&self, bytes: &[u8], limits: &Limits) -> bool {
        if bytes.len() > limits.max_bytes || limits.allow_duplicate_keys {
            return false;
        }
        // The scanner validates UTF-8 itself (an accepted text is valid UTF-8).
        scan::Scanner::new(bytes, limits.depth(), &mut []).document(&self.node).is_ok()
    }
}
