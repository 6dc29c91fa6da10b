//! The observation check on the fast path: the ActionResult text is scanned once against an
//! envelope node (its `parsed_data` against the contract's response schema) while the values the
//! contract reads — status, latency, required fields, blacklist, rule inputs, expectations,
//! extraction — are captured as text ranges. The checks read those ranges in place (numbers,
//! unescaped strings, literals, the emptiness of a container: no `Value` is built for them), and
//! the extracted values stay ranges: a passing check is a [`Passed`] (no allocation), turned into
//! the full [`Observation`] only when someone reads it ([`Passed::observation`]).
//!
//! It answers only when every check passes (the common case); any failure or doubt returns
//! `None` and the full path runs, which reports the failure. The result equals the full path's
//! field for field (`tests/fast_agreement.rs`).
use serde_json::Value;
use smallvec::SmallVec;

use super::node::{self, Checks, Key, Node, OBJECT};
use super::plan::{specialise, Capture};
use super::scan::{fast_f64, Scanner, Span};
use crate::contract::Contract;
use crate::error::InputError;
use crate::native_rules::{CmpOp, Native};
use crate::observation::{Audit, Observation};
use crate::parse::{parse_bytes, Limits};
use crate::schema::SchemaOptions;

const STATUS: usize = 0;
const MS: usize = 1;
const ERROR_INFO: usize = 2;
const DATA: usize = 3;
const FIXED: usize = 4;
/// Captured spans kept in a stack array by `check_lazy` (more go to the heap).
const STACK_SLOTS: usize = 16;
const TOP_KEYS: [&str; FIXED] = ["status_code", "response_time_ms", "error_info", "parsed_data"];

/// Where a native rule reads its value.
#[derive(Debug, Clone, Copy)]
enum Src {
    Status,
    Ms,
    Slot(usize),
}

/// A contract compiled for the fast observation path.
pub struct FastObservation {
    /// The envelope node specialised to the captures (`super::plan`).
    envelope: Node,
    slots: usize,
    required: Vec<usize>,
    blacklist: Vec<usize>,
    expected: Vec<usize>,
    extract: Vec<usize>,
    /// The input of each native rule, in rule order.
    rule_src: Vec<Src>,
}

/// A document that passed every check. It keeps only what the result still needs: the byte
/// ranges of the extracted values (turned into values when read), whether a status code was
/// given (the audit entry's detail) and the soft score (the confidence).
#[derive(Debug, Clone, PartialEq)]
pub struct Passed {
    /// The range of each `extract` value in the text, in contract order; `None`: not found.
    pub extract: SmallVec<[Option<Span>; 4]>,
    pub has_status: bool,
    pub soft: Option<f64>,
}

/// What a check of JSON text gives: a pass not yet materialized, or the full path's observation.
#[derive(Debug)]
pub enum Outcome<'c> {
    Passed(Passed),
    /// Boxed: a pass (the common case) stays small to move around.
    Full(Box<Observation<'c>>),
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

/// A captured value read in place; `Other` is built (rare: escaped strings, long numbers, and
/// containers where more than their emptiness matters).
enum Val<'t> {
    Null,
    Bool(bool),
    Num(f64),
    Str(&'t str),
    /// An array or object: whether it has members.
    Container(bool),
    Other(Value),
}

impl Val<'_> {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Num(x) => Some(*x),
            Val::Other(v) => v.as_f64(),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            Val::Other(v) => v.as_str(),
            _ => None,
        }
    }

    /// JsonLogic truthiness, as `native_rules` decides it.
    fn truthy(&self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Num(x) => *x != 0.0,
            Val::Str(s) => !s.is_empty(),
            Val::Container(nonempty) => *nonempty,
            Val::Other(v) => crate::native_rules::truthy(v),
        }
    }
}

/// Read a scanned (well-formed) value in place where that is exact. Inlined: returned through
/// memory, the `Val` was reloaded with wider loads than it was stored with (a store-forwarding
/// stall at every call site, ~30 % of `check_lazy`'s own time in `perf annotate`).
#[inline(always)]
fn read<'t>(b: &'t [u8], limits: &Limits) -> Option<Val<'t>> {
    Some(match b[0] {
        b'"' if !b.contains(&b'\\') => Val::Str(std::str::from_utf8(&b[1..b.len() - 1]).ok()?),
        b't' => Val::Bool(true),
        b'f' => Val::Bool(false),
        b'n' => Val::Null,
        b'-' | b'0'..=b'9' if b.len() <= 18 => Val::Num(small_number(b)?),
        b'[' | b'{' => {
            let close = if b[0] == b'[' { b']' } else { b'}' };
            let first = b[1..].iter().find(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t'));
            Val::Container(first != Some(&close))
        }
        _ => Val::Other(materialize(b, limits).ok()?),
    })
}

/// The f64 of a number literal of at most 18 bytes, as `Value::as_f64` gives it.
#[inline(always)]
fn small_number(b: &[u8]) -> Option<f64> {
    if b.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
        fast_f64(b).or_else(|| std::str::from_utf8(b).ok()?.parse().ok())
    } else {
        int_literal(b).map(|i| i as f64)
    }
}

/// An integer literal of at most 18 bytes (`-?digits`), else `None`.
fn int_literal(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
    }
    Some(if neg { -v } else { v })
}

/// A status code literal as `Value::as_i64` reads it (`None`: not an integer the fast path reads).
fn status_code(t: &[u8]) -> Option<i64> {
    int_literal(t)
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
        for key in TOP_KEYS {
            s.slot(vec![key.to_owned()]);
        }
        let required = c.required.iter().map(|p| s.data(tokens(p))).collect();
        let blacklist = c.blacklist.iter().map(|(p, _)| s.data(tokens(p))).collect();
        let expected = c.expected.iter().map(|(p, _)| s.data(tokens(p))).collect();
        let extract = c.extract.iter().map(|(_, p)| s.data(tokens(p))).collect();
        let mut rule_src = Vec::new();
        for n in c.rule_natives.iter().flatten() {
            let path = match n {
                Native::Cmp { path, .. } | Native::In { path, .. } | Native::Truthy { path, .. } => path,
            };
            rule_src.push(match path[0].as_str() {
                // `native_rules` resolves a path below a number as not found: no native answer.
                "status_code" if path.len() == 1 => Src::Status,
                "response_time_ms" if path.len() == 1 => Src::Ms,
                "data" => Src::Slot(s.data(path[1..].to_vec())),
                _ => return None,
            });
        }
        // The top-level keys the check reads are named keys of the envelope: duplicates of them
        // are caught by a bit mask. Listed in the order an ActionResult usually has them (the
        // scanner predicts the next key from it); `error_info` is usually absent or last.
        let keys = [STATUS, MS, DATA, ERROR_INFO]
            .map(|k| Key::new(TOP_KEYS[k], Some(if k == DATA { data_node.clone() } else { Node::Any })));
        let envelope = Node::Checks(Box::new(Checks { types: OBJECT, keys: keys.into(), ..Checks::empty() }.finish()));
        let envelope = specialise(&envelope, &s.capture)?;
        debug_assert!(s.paths.len() >= FIXED);
        Some(Self { envelope, slots: s.paths.len(), required, blacklist, expected, extract, rule_src })
    }

    fn scan(&self, c: &Contract, text: &[u8], spans: &mut [Option<Span>]) -> bool {
        Scanner::new(text, c.limits.depth(), spans).document(&self.envelope).is_ok()
    }

    /// Only the scan (well-formedness, limits, schema, captures) — for the stage timings.
    pub fn scan_only(&self, c: &Contract, text: &str) -> bool {
        let mut spans: SmallVec<[Option<Span>; 16]> = smallvec::smallvec![None; self.slots];
        self.scan(c, text.as_bytes(), &mut spans)
    }

    /// The observation of a document every check passes; `None`: run the full path.
    pub fn check<'c>(&self, c: &'c Contract, text: &str, soft: Option<f64>) -> Option<Observation<'c>> {
        self.check_lazy(c, text.as_bytes(), soft)?.observation(c, text.as_bytes())
    }

    /// [`Self::check`] of JSON bytes without building the result: `Some` when every check
    /// passes (the scan validates UTF-8 on the way).
    pub fn check_lazy(&self, c: &Contract, text: &[u8], soft: Option<f64>) -> Option<Passed> {
        // The spans on the stack when they fit (a contract reads a handful of values).
        let mut stack = [None; STACK_SLOTS];
        let mut heap = Vec::new();
        let spans: &mut [Option<Span>] = if self.slots <= STACK_SLOTS {
            &mut stack[..self.slots]
        } else {
            heap.resize(self.slots, None);
            &mut heap
        };
        if !self.scan(c, text, spans) {
            return None;
        }
        let raw = |slot: usize| spans[slot].map(|(s, e)| &text[s as usize..e as usize]);
        if raw(ERROR_INFO).is_some_and(|t| t != b"null") || raw(DATA).is_none_or(|t| t == b"null") {
            return None;
        }
        let status_text = raw(STATUS).filter(|t| *t != b"null");
        if let Some(t) = status_text {
            if !c.allowed_status.contains(&status_code(t)?) {
                return None;
            }
        }
        let ms = match raw(MS) {
            None => Val::Null,
            Some(t) => read(t, &c.limits)?,
        };
        let latency = match &ms {
            Val::Null => 0.0,
            v => v.as_f64()?,
        };
        if latency >= c.timeout_ms * 1.5 {
            return None;
        }
        if self.required.iter().any(|&s| raw(s).is_none_or(|t| t == b"null")) {
            return None;
        }
        for ((_, bad), &slot) in c.blacklist.iter().zip(&self.blacklist) {
            if let Some(t) = raw(slot) {
                if among(t, bad, &c.limits)? {
                    return None;
                }
            }
        }
        if let Some(natives) = &c.rule_natives {
            for (rule, src) in natives.iter().zip(&self.rule_src) {
                let owned;
                let v = match src {
                    Src::Status => {
                        owned = read(status_text?, &c.limits)?;
                        &owned
                    }
                    Src::Ms => &ms,
                    Src::Slot(slot) => {
                        owned = read(raw(*slot)?, &c.limits)?;
                        &owned
                    }
                };
                if !native_passes(rule, v)? {
                    return None;
                }
            }
        }
        for ((_, allowed), &slot) in c.expected.iter().zip(&self.expected) {
            if !among(raw(slot)?, allowed, &c.limits)? {
                return None;
            }
        }
        Some(Passed { extract: self.extract.iter().map(|&s| spans[s]).collect(), has_status: status_text.is_some(), soft })
    }
}

/// Whether the value at `t` is among `set`; `None` when it cannot be built.
fn among(t: &[u8], set: &[Value], limits: &Limits) -> Option<bool> {
    Some(match read(t, limits)? {
        Val::Null => set.iter().any(Value::is_null),
        Val::Bool(b) => set.iter().any(|v| v.as_bool() == Some(b)),
        Val::Str(s) => set.iter().any(|v| v.as_str() == Some(s)),
        Val::Other(v) => set.contains(&v),
        // Numbers compare by representation (1 ≠ 1.0 in serde_json), containers by content.
        Val::Num(_) | Val::Container(_) => set.contains(&materialize(t, limits).ok()?),
    })
}

/// One native rule on its value, as `native_rules::eval_with` decides it (`None`: undecided,
/// the full path runs).
fn native_passes(rule: &Native, v: &Val<'_>) -> Option<bool> {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    Some(match rule {
        Native::Cmp { op, rhs, .. } => {
            let x = v.as_f64().filter(|x| x.abs() < MAX_EXACT)?;
            match op {
                CmpOp::Eq => x == *rhs,
                CmpOp::Ne => x != *rhs,
                CmpOp::Lt => x < *rhs,
                CmpOp::Le => x <= *rhs,
                CmpOp::Gt => x > *rhs,
                CmpOp::Ge => x >= *rhs,
            }
        }
        Native::In { set, negate, .. } => {
            let s = v.as_str()?;
            set.iter().any(|x| x == s) != *negate
        }
        Native::Truthy { negate, .. } => v.truthy() != *negate,
    })
}

fn pass(check: &str) -> Audit<'_> {
    Audit { check, passed: true, detail: String::new() }
}

impl Passed {
    /// Confidence of the pass.
    pub fn confidence(&self) -> f64 {
        crate::observation::confidence(self.soft, 1.0)
    }

    /// The full observation (exactly the full path's) of the `text` this pass was checked on;
    /// `None` only if a captured value does not build (never for a scanned text).
    pub fn observation<'c>(&self, c: &'c Contract, text: &[u8]) -> Option<Observation<'c>> {
        let mut audit = Vec::with_capacity(6 + c.rules.len());
        if self.has_status {
            audit.push(pass("status_code"));
        } else {
            audit.push(Audit { check: "status_code", passed: true, detail: "no status code".into() });
        }
        audit.push(pass("latency"));
        if c.schema.is_some() {
            audit.push(pass("schema"));
        }
        if !c.required.is_empty() {
            audit.push(pass("required_fields"));
        }
        if !c.blacklist.is_empty() {
            audit.push(pass("blacklist"));
        }
        if c.rule_natives.is_some() {
            audit.extend(c.rule_checks.iter().map(|name| pass(name)));
        }
        if !c.expected.is_empty() {
            audit.push(pass("consistency"));
        }
        let mut extracted = Vec::with_capacity(c.extract.len());
        let mut missing_extract = Vec::new();
        for ((name, _), span) in c.extract.iter().zip(&self.extract) {
            match span {
                Some((s, e)) => {
                    let t = text.get(*s as usize..*e as usize)?;
                    extracted.push((name.as_str(), materialize(t, &c.limits).ok()?));
                }
                None => missing_extract.push(name.as_str()),
            }
        }
        Some(Observation {
            valid: true, error_type: None, reported_error: None, extracted, confidence: self.confidence(),
            audit, schema_errors: Vec::new(), normalized: Vec::new(), conversions: Vec::new(), unit_errors: Vec::new(),
            missing_extract,
        })
    }
}

impl Contract {
    /// Check ActionResult JSON bytes; a document that passes on the fast path comes back as a
    /// [`Passed`] (nothing built yet), anything else as the full path's observation.
    pub fn check_bytes_lazy(&self, bytes: &[u8], soft: Option<f64>) -> Result<Outcome<'_>, InputError> {
        if let Some(fast) = &self.fast {
            if bytes.len() <= self.limits.max_bytes {
                if let Some(p) = fast.check_lazy(self, bytes, soft) {
                    return Ok(Outcome::Passed(p));
                }
            }
        }
        self.check_full(bytes, soft).map(|o| Outcome::Full(Box::new(o)))
    }
}

/// The value of a scanned (well-formed) JSON text, exactly as the bounded parser builds it.
fn materialize(b: &[u8], limits: &Limits) -> Result<Value, ()> {
    match b[0] {
        b'"' if !b.contains(&b'\\') => {
            Ok(Value::String(std::str::from_utf8(&b[1..b.len() - 1]).map_err(|_| ())?.to_owned()))
        }
        b't' => Ok(Value::Bool(true)),
        b'f' => Ok(Value::Bool(false)),
        b'n' => Ok(Value::Null),
        b'-' | b'0'..=b'9' if b.len() <= 18 => {
            if b.iter().any(|c| matches!(c, b'.' | b'e' | b'E')) {
                // Correctly rounded, as serde_json's float_roundtrip parse (the scanner has
                // already rejected what does not fit an f64).
                let f = match fast_f64(b) {
                    Some(f) => f,
                    None => std::str::from_utf8(b).map_err(|_| ())?.parse().map_err(|_| ())?,
                };
                serde_json::Number::from_f64(f).map(Value::Number).ok_or(())
            } else {
                let i = int_literal(b).ok_or(())?;
                Ok(if i >= 0 { Value::from(i as u64) } else { Value::from(i) })
            }
        }
        _ => parse_bytes(b, limits).map_err(|_| ()),
    }
}
