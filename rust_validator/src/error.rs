//! Typed errors of the validation core.
//!
//! [`InputError`] is bad *input* (a document that cannot be accepted: invalid UTF-8, duplicate
//! keys, NaN, too deep, too large, syntax). [`BuildError`] is a bad *configuration* (a schema,
//! rule or contract that does not compile). Neither ever panics.
use std::fmt;

/// Why an input document was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputErrorKind {
    /// Bytes are not valid UTF-8.
    InvalidUtf8,
    /// JSON syntax error (includes NaN/Infinity literals, lone surrogates, trailing data).
    Syntax,
    /// An object holds the same key twice (when duplicates are rejected).
    DuplicateKey,
    /// Nesting deeper than the configured limit.
    TooDeep,
    /// Document (or a string in it) larger than the configured limit.
    TooLarge,
    /// A number that is not finite or does not fit (e.g. `1e400`, a Python `nan`).
    BadNumber,
    /// A value with no JSON counterpart (a Python `set`, a non-string dict key, ...).
    Unsupported,
    /// Well-formed JSON of the wrong shape (e.g. an action result that is not an object).
    Shape,
}

impl InputErrorKind {
    /// Stable snake_case name, exposed to Python as `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidUtf8 => "invalid_utf8",
            Self::Syntax => "syntax",
            Self::DuplicateKey => "duplicate_key",
            Self::TooDeep => "too_deep",
            Self::TooLarge => "too_large",
            Self::BadNumber => "bad_number",
            Self::Unsupported => "unsupported",
            Self::Shape => "shape",
        }
    }
}

/// A rejected input document: where (JSON pointer) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub kind: InputErrorKind,
    /// JSON pointer (RFC 6901) of the offending location; `""` is the whole document.
    pub pointer: String,
    /// Human-readable reason.
    pub reason: String,
}

impl InputError {
    pub fn new(kind: InputErrorKind, pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { kind, pointer: pointer.into(), reason: reason.into() }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at '{}': {}", self.kind.as_str(), self.pointer, self.reason)
    }
}

impl std::error::Error for InputError {}

/// A schema, rule, plan registry or contract that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    /// Where in the configuration (e.g. `response_schema`, `observation_rules/0/logic`).
    pub location: String,
    pub message: String,
}

impl BuildError {
    pub fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self { location: location.into(), message: message.into() }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.location, self.message)
        }
    }
}

impl std::error::Error for BuildError {}

/// Escape one JSON-pointer reference token (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str, out: &mut String) {
    if !token.contains(['~', '/']) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
}

/// `schemas/contract_constants.json`, exported from the Python contracts (`tao schemas`): the
/// error types, step/run statuses, the step-reference pattern and the HTTP status → error type
/// examples. Python is the source; Rust embeds it and the tests below fail on drift.
pub const CONTRACT_CONSTANTS: &str = include_str!("../../schemas/contract_constants.json");

/// One string field of [`CONTRACT_CONSTANTS`] (panics only if the embedded file is broken, which
/// the unit tests rule out).
pub fn contract_constant(key: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(CONTRACT_CONSTANTS).expect("contract_constants.json is JSON");
    v[key].as_str().unwrap_or_else(|| panic!("contract_constants.json has no string {key:?}")).to_owned()
}

#[cfg(test)]
mod constants_tests {
    use super::*;
    use crate::observation::{status_error, ErrorType};
    use serde_json::Value;

    fn constants() -> Value {
        serde_json::from_str(CONTRACT_CONSTANTS).unwrap()
    }

    #[test]
    fn rust_error_types_are_the_contracts() {
        let c = constants();
        let names: Vec<&str> = c["error_types"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for t in [ErrorType::ToolTimeout, ErrorType::ToolTransient, ErrorType::ToolClientError,
                  ErrorType::ToolSchemaViolation, ErrorType::ToolMalformedResponse, ErrorType::RuleViolation,
                  ErrorType::RateLimited, ErrorType::ObservationInconsistent, ErrorType::Reported] {
            assert!(names.contains(&t.as_str()), "{} is not an ErrorType of tao.contracts", t.as_str());
        }
    }

    #[test]
    fn status_mapping_is_the_contracts() {
        let c = constants();
        for (code, want) in c["status_error_types"].as_object().unwrap() {
            let code: i64 = code.parse().unwrap();
            assert_eq!(status_error(code).as_str(), want.as_str().unwrap(), "HTTP {code}");
        }
    }

    #[test]
    fn ref_pattern_compiles() {
        assert!(regex::Regex::new(&contract_constant("ref_pattern")).is_ok());
    }
}
