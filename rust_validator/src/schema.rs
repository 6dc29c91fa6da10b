//! Compiled JSON Schema validators (drafts 4, 6, 7, 2019-09, 2020-12) on the `jsonschema` crate.
//!
//! No network or file access: `$ref`s to other documents resolve only against the `resources`
//! given at build time (e.g. the test suite's remotes mapped to `http://localhost:1234/`).
use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::{Draft, Retrieve, Uri, Validator};
use serde_json::Value;

use crate::datetime::lenient_date_time;
use crate::error::BuildError;

/// How a schema is compiled.
#[derive(Debug, Clone)]
pub struct SchemaOptions {
    /// Force a draft; `None` detects it from `$schema` (default 2020-12).
    pub draft: Option<Draft>,
    /// Check `format` keywords (also for drafts where format is annotation-only).
    pub validate_formats: bool,
    /// Use the lenient date-time check (see [`crate::datetime`]) for `format: date-time`.
    pub lenient_datetime: bool,
    /// Documents that `$ref` may reach, by absolute URI.
    pub resources: Arc<HashMap<String, Value>>,
}

impl Default for SchemaOptions {
    fn default() -> Self {
        Self { draft: None, validate_formats: true, lenient_datetime: true, resources: Arc::default() }
    }
}

/// Parse a draft name: `"4"`, `"6"`, `"7"`, `"2019-09"`, `"2020-12"` (an optional `draft`
/// prefix is accepted, e.g. `"draft7"`, `"draft2020-12"`).
pub fn parse_draft(name: &str) -> Result<Draft, BuildError> {
    let n = name.trim().trim_start_matches("draft").trim_start_matches('-');
    Ok(match n {
        "4" | "04" => Draft::Draft4,
        "6" | "06" => Draft::Draft6,
        "7" | "07" => Draft::Draft7,
        "2019-09" | "201909" => Draft::Draft201909,
        "2020-12" | "202012" => Draft::Draft202012,
        _ => {
            return Err(BuildError::new(
                "draft",
                format!("unknown draft {name:?} (use 4, 6, 7, 2019-09 or 2020-12)"),
            ))
        }
    })
}

/// Resolves `$ref`s to documents given up front; never touches the network.
struct MapRetriever(Arc<HashMap<String, Value>>);

impl Retrieve for MapRetriever {
    fn retrieve(&self, uri: &Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let key = uri.as_str();
        let key = key.split('#').next().unwrap_or(key);
        self.0
            .get(key)
            .cloned()
            .ok_or_else(|| format!("no resource for {key} (remote references are not fetched)").into())
    }
}

/// One schema error: where in the instance, which keyword, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer into the instance.
    pub path: String,
    pub keyword: String,
    pub message: String,
}

/// A schema compiled once, validated many times (thread-safe).
pub struct CompiledSchema {
    validator: Validator,
    /// The schema's common subset on the fast path (see [`crate::fast`]), when it has one.
    fast: Option<crate::fast::FastSchema>,
}

impl CompiledSchema {
    /// Compile `schema` under `opts`.
    pub fn new(schema: &Value, opts: &SchemaOptions) -> Result<Self, BuildError> {
        let mut o = jsonschema::options()
            .should_validate_formats(opts.validate_formats)
            .with_retriever(MapRetriever(Arc::clone(&opts.resources)));
        if let Some(d) = opts.draft {
            o = o.with_draft(d);
        }
        if opts.lenient_datetime {
            o = o.with_format("date-time", lenient_date_time);
        }
        let validator = o.build(schema).map_err(|e| BuildError::new("schema", e.to_string()))?;
        let fast = crate::fast::FastSchema::compile(schema, opts);
        Ok(Self { validator, fast })
    }

    /// Validate JSON text: on the fast path when it decides, else parse and validate.
    pub fn is_valid_bytes(&self, bytes: &[u8], limits: &crate::parse::Limits) -> Result<bool, crate::error::InputError> {
        if self.fast.as_ref().is_some_and(|f| f.accepts(bytes, limits)) {
            return Ok(true);
        }
        crate::parse::parse_bytes(bytes, limits).map(|v| self.is_valid(&v))
    }

    /// Whether this schema has a fast path.
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    #[inline]
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// All errors (at most `limit`), in the engine's order.
    pub fn errors(&self, instance: &Value, limit: usize) -> Vec<SchemaError> {
        self.validator
            .iter_errors(instance)
            .take(limit)
            .map(|e| SchemaError {
                path: e.instance_path().to_string(),
                keyword: e.kind().keyword().to_string(),
                message: e.to_string(),
            })
            .collect()
    }

    /// The underlying `jsonschema` validator.
    pub fn inner(&self) -> &Validator {
        &self.validator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_and_lenient_datetime() {
        let s = json!({"type": "string", "format": "date-time"});
        let lenient = CompiledSchema::new(&s, &SchemaOptions::default()).unwrap();
        assert!(lenient.is_valid(&json!("2024-05-01 10:00:00")));
        assert!(!lenient.is_valid(&json!("yesterday")));
        let strict = SchemaOptions { lenient_datetime: false, ..SchemaOptions::default() };
        let strict = CompiledSchema::new(&s, &strict).unwrap();
        assert!(strict.is_valid(&json!("2024-05-01T10:00:00+08:00")));
        assert!(!strict.is_valid(&json!("2024-05-01 10:00:00")));
    }

    #[test]
    fn errors_have_path_and_keyword() {
        let s = json!({"type": "object", "properties": {"n": {"minimum": 5}}, "required": ["id"]});
        let v = CompiledSchema::new(&s, &SchemaOptions::default()).unwrap();
        let errs = v.errors(&json!({"n": 1}), 10);
        let mut got: Vec<_> = errs.iter().map(|e| (e.path.as_str(), e.keyword.as_str())).collect();
        got.sort();
        assert_eq!(got, [("", "required"), ("/n", "minimum")]);
    }

    #[test]
    fn bad_schema_and_draft() {
        assert!(CompiledSchema::new(&json!({"type": 12}), &SchemaOptions::default()).is_err());
        assert!(parse_draft("draft7").is_ok());
        assert!(parse_draft("3").is_err());
        let remote = json!({"$ref": "http://example.com/x.json"});
        assert!(CompiledSchema::new(&remote, &SchemaOptions::default()).is_err());
    }
}
