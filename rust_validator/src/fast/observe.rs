//! The observation check on the fast path: the ActionResult text is scanned once against an
//! envelope node (its `parsed_data` against the contract's response schema) while the values the
//! contract reads — status, latency, required fields, blacklist, rule inputs, expectations,
//! extraction — are captured as text ranges; only those are turned into values. It answers only
//! when every check passes (the common case); any failure or doubt returns `None` and the full
//! path runs, which reports the failure. The result equals the full path's field for field
//! (`tests/fast_agreement.rs`).
use serde_json::Value;

use super::node::{self, Checks, Key, Node, ALL, OBJECT};
use super::scan::{Capture, Scanner, Span};
use crate::contract::Contract;
use crate::observation::{Audit, Observation};
use crate::parse::{parse_str, Limits};
use crate::schema::SchemaOptions;

thread_local! {
    /// The native rule results buffer, reused (no allocation per check).
    static NATIVE_OUT: std::cell::RefCell<Vec<(usize, bool)>> = const { std::cell::RefCell::new(Vec::new()) };
}

const STATUS: usize = 0;
const MS: usize = 1;
const ERROR_INFO: usize = 2;
const DATA: usize = 3;
const FIXED: usize = 4;

/// A contract compiled for the fast observation path.
pub struct FastObservation {
    envelope: Node,
    capture: Capture,
    slots: usize,
    required: Vec<usize>,
    blacklist: Vec<usize>,
    expected: Vec<usize>,
    extract: Vec<usize>,
    /// Native rule paths below `data` and their slots.
    rule_data: Vec<(Vec<String>, usize)>,
}

/// RFC 6901 tokens of a pointer (`""` → no tokens).
fn tokens(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer[1..].split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

struct Slots {
    capture: Capture,
    paths: Vec<Vec<String>>,
}

impl Slots {
    fn slot(&mut self, path: Vec<String>) -> usize {
        if let Some(i) = self.paths.iter().position(|p| *p == path) {
            return i;
        }
        self.capture.insert(&path, self.paths.len());
        self.paths.push(path);
        self.paths.len() - 1
    }

    fn data(&mut self, tokens: Vec<String>) -> usize {
        let mut path = vec!["parsed_data".to_owned()];
        path.extend(tokens);
        self.slot(path)
    }
}

impl FastObservation {
    /// `None` when the contract needs the full path for every check (normalization edits the
    /// data, a rule has no native form, the schema is outside the subset, duplicates are allowed).
    pub fn compile(c: &Contract, response_schema: Option<&Value>, opts: &SchemaOptions) -> Option<Self> {
        if !c.normalization.is_empty() || c.limits.allow_duplicate_keys {
            return None;
        }
        if !c.rules.is_empty() && c.rule_natives.is_none() {
            return None;
        }
        let data_node = match (&c.schema, response_schema) {
            (None, _) => Node::Any,
            (Some(_), Some(s)) => node::compile(s, opts)?,
            (Some(_), None) => return None,
        };
        let mut s = Slots { capture: Capture::default(), paths: Vec::new() };
        for key in ["status_code", "response_time_ms", "error_info", "parsed_data"] {
            s.slot(vec![key.to_owned()]);
        }
        let required = c.required.iter().map(|p| s.data(tokens(p))).collect();
        let blacklist = c.blacklist.iter().map(|(p, _)| s.data(tokens(p))).collect();
        let expected = c.expected.iter().map(|(p, _)| s.data(tokens(p))).collect();
        let extract = c.extract.iter().map(|(_, p)| s.data(tokens(p))).collect();
        let mut rule_data = Vec::new();
        for n in c.rule_natives.iter().flatten() {
            let path = match n {
                crate::native_rules::Native::Cmp { path, .. }
                | crate::native_rules::Native::In { path, .. }
                | crate::native_rules::Native::Truthy { path, .. } => path,
            };
            if path[0] == "data" {
                let slot = s.data(path[1..].to_vec());
                rule_data.push((path.clone(), slot));
            }
        }
        let envelope = Node::Checks(Box::new(Checks {
            types: OBJECT, enum_: None, min_len: None, max_len: None, string_check: None, minimum: None,
            maximum: None, exclusive_minimum: None, exclusive_maximum: None,
            keys: vec![Key { name: "parsed_data".into(), node: Some(data_node) }], required: 0,
            additional: Node::Any, min_props: None, max_props: None, items: Node::Any, min_items: None,
            max_items: None,
        }));
        debug_assert!(ALL != 0 && s.paths.len() >= FIXED);
        Some(Self { envelope, slots: s.paths.len(), capture: s.capture, required, blacklist, expected, extract, rule_data })
    }

    /// Only the scan (well-formedness, limits, schema, captures) — for the stage timings.
    pub fn scan_only(&self, c: &Contract, text: &str) -> bool {
        let mut spans: smallvec::SmallVec<[Option<Span>; 16]> = smallvec::smallvec![None; self.slots];
        Scanner::new(text, c.limits.depth(), &mut spans).document(&self.envelope, Some(&self.capture)).is_ok()
    }

    /// The observation of a document every check passes; `None`: run the full path.
    pub fn check<'c>(&self, c: &'c Contract, text: &str, soft: Option<f64>) -> Option<Observation<'c>> {
        let mut spans: smallvec::SmallVec<[Option<Span>; 16]> = smallvec::smallvec![None; self.slots];
        Scanner::new(text, c.limits.depth(), &mut spans).document(&self.envelope, Some(&self.capture)).ok()?;
        let raw = |slot: usize| spans[slot].map(|(s, e)| &text[s as usize..e as usize]);
        if raw(ERROR_INFO).is_some_and(|t| t != "null") || raw(DATA).is_none_or(|t| t == "null") {
            return None;
        }
        let value = |slot: usize| raw(slot).map(|t| materialize(t, &c.limits));
        let status_v = value(STATUS).transpose().ok()?.filter(|v| !v.is_null());
        let status = match &status_v {
            None => None,
            Some(v) => Some(v.as_i64()?),
        };
        let ms = value(MS).transpose().ok()?.unwrap_or(Value::Null);
        let latency = if ms.is_null() { 0.0 } else { ms.as_f64()? };

        let mut audit = Vec::with_capacity(6 + c.rules.len());
        match status {
            None => audit.push(Audit { check: "status_code", passed: true, detail: "no status code".into() }),
            Some(code) if c.allowed_status.contains(&code) => audit.push(pass("status_code")),
            Some(_) => return None,
        }
        if latency >= c.timeout_ms * 1.5 {
            return None;
        }
        audit.push(pass("latency"));
        if c.schema.is_some() {
            audit.push(pass("schema"));
        }
        if !c.required.is_empty() {
            if self.required.iter().any(|&s| raw(s).is_none_or(|t| t == "null")) {
                return None;
            }
            audit.push(pass("required_fields"));
        }
        if !c.blacklist.is_empty() {
            for ((_, bad), &slot) in c.blacklist.iter().zip(&self.blacklist) {
                if let Some(v) = value(slot) {
                    if bad.contains(&v.ok()?) {
                        return None;
                    }
                }
            }
            audit.push(pass("blacklist"));
        }
        if let Some(natives) = &c.rule_natives {
            let inputs: smallvec::SmallVec<[(&[String], Option<Value>); 4]> = self
                .rule_data
                .iter()
                .map(|(p, slot)| value(*slot).transpose().map(|v| (p.as_slice(), v)))
                .collect::<Result<_, _>>()
                .ok()?;
            let mut out = NATIVE_OUT.with(|o| std::mem::take(&mut *o.borrow_mut()));
            out.clear();
            let decided = crate::native_rules::eval_with(
                natives,
                |path| match path[0].as_str() {
                    "status_code" => status_v.as_ref(),
                    "response_time_ms" => Some(&ms),
                    _ => inputs.iter().find(|(p, _)| *p == path).and_then(|(_, v)| v.as_ref()),
                },
                &mut out,
            );
            let passed = decided && out.iter().all(|(_, ok)| *ok);
            NATIVE_OUT.with(|o| *o.borrow_mut() = out);
            if !passed {
                return None;
            }
            audit.extend(c.rule_checks.iter().map(|name| pass(name)));
        }
        if !c.expected.is_empty() {
            for ((_, allowed), &slot) in c.expected.iter().zip(&self.expected) {
                if !allowed.contains(&value(slot)?.ok()?) {
                    return None;
                }
            }
            audit.push(pass("consistency"));
        }
        let mut extracted = Vec::with_capacity(c.extract.len());
        let mut missing_extract = Vec::new();
        for ((name, _), &slot) in c.extract.iter().zip(&self.extract) {
            match value(slot) {
                Some(v) => extracted.push((name.as_str(), v.ok()?)),
                None => missing_extract.push(name.as_str()),
            }
        }
        Some(Observation {
            valid: true, error_type: None, reported_error: None, extracted, confidence: crate::observation::confidence(soft, 1.0),
            audit, schema_errors: Vec::new(), normalized: Vec::new(), conversions: Vec::new(), unit_errors: Vec::new(),
            missing_extract,
        })
    }
}

fn pass(check: &str) -> Audit<'_> {
    Audit { check, passed: true, detail: String::new() }
}

/// The value of a scanned (well-formed) JSON text, exactly as the bounded parser builds it.
fn materialize(t: &str, limits: &Limits) -> Result<Value, ()> {
    let b = t.as_bytes();
    match b[0] {
        b'"' if !t.contains('\\') => Ok(Value::String(t[1..t.len() - 1].to_owned())),
        b't' => Ok(Value::Bool(true)),
        b'f' => Ok(Value::Bool(false)),
        b'n' => Ok(Value::Null),
        b'-' | b'0'..=b'9' if b.len() <= 18 => {
            if b.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
                // Correctly rounded, as serde_json's float_roundtrip parse (the scanner has
                // already rejected what does not fit an f64).
                let f: f64 = t.parse().map_err(|_| ())?;
                serde_json::Number::from_f64(f).map(Value::Number).ok_or(())
            } else {
                let i: i64 = t.parse().map_err(|_| ())?;
                Ok(if i >= 0 { Value::from(i as u64) } else { Value::from(i) })
            }
        }
        _ => parse_str(t, limits).map_err(|_| ()),
    }
}
