//! One-pass, bounded JSON parsing from raw bytes into `serde_json::Value`.
//!
//! Rejects, with a typed [`InputError`] carrying a JSON pointer: invalid UTF-8, syntax errors
//! (which include `NaN`/`Infinity` literals and lone surrogates), duplicate object keys (unless
//! allowed), nesting deeper than `max_depth`, documents larger than `max_bytes`, and numbers out
//! of the f64 range. Never panics; recursion is bounded by `max_depth` (capped at
//! [`HARD_MAX_DEPTH`], serde_json's own recursion guard), so no stack overflow is possible.
//! The error path is built while the error unwinds, so the success path pays nothing for it.
use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

use crate::error::{escape_token, InputError, InputErrorKind};

/// serde_json's recursion limit; deeper documents always fail with `too_deep`.
pub const HARD_MAX_DEPTH: usize = 127;

/// Limits applied to every parsed document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum document size in bytes (default 16 MiB).
    pub max_bytes: usize,
    /// Maximum nesting depth of arrays/objects (default 64, at most [`HARD_MAX_DEPTH`]).
    pub max_depth: usize,
    /// Accept duplicate object keys (the last one wins) instead of rejecting them.
    pub allow_duplicate_keys: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_bytes: 16 * 1024 * 1024, max_depth: 64, allow_duplicate_keys: false }
    }
}

impl Limits {
    /// The effective depth limit (the configured one, capped at [`HARD_MAX_DEPTH`]).
    pub fn depth(&self) -> usize {
        self.max_depth.min(HARD_MAX_DEPTH)
    }
}

enum Seg {
    Key(String),
    Index(usize),
}

struct Ctx {
    depth: Cell<usize>,
    max_depth: usize,
    allow_dup: bool,
    /// Path segments pushed innermost-first while an error unwinds.
    path: RefCell<Vec<Seg>>,
    /// Our own (non-syntax) error, if that is what failed.
    own: RefCell<Option<(InputErrorKind, String)>>,
}

impl Ctx {
    fn fail<E: serde::de::Error>(&self, kind: InputErrorKind, reason: String) -> E {
        let msg = reason.clone();
        *self.own.borrow_mut() = Some((kind, reason));
        E::custom(msg)
    }

    fn pointer(&self) -> String {
        let path = self.path.borrow();
        let mut out = String::new();
        for seg in path.iter().rev() {
            out.push('/');
            match seg {
                Seg::Key(k) => escape_token(k, &mut out),
                Seg::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }
}

struct ValueSeed<'c>(&'c Ctx);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor(self.0))
    }
}

struct ValueVisitor<'c>(&'c Ctx);

impl ValueVisitor<'_> {
    fn enter<E: serde::de::Error>(&self) -> Result<(), E> {
        let d = self.0.depth.get() + 1;
        if d > self.0.max_depth {
            return Err(self.0.fail(
                InputErrorKind::TooDeep,
                format!("nesting deeper than the limit of {}", self.0.max_depth),
            ));
        }
        self.0.depth.set(d);
        Ok(())
    }
    fn leave(&self) {
        self.0.depth.set(self.0.depth.get() - 1);
    }
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        match serde_json::Number::from_f64(v) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(self.0.fail(InputErrorKind::BadNumber, "number is not finite".into())),
        }
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut out = Vec::new();
        loop {
            match seq.next_element_seed(ValueSeed(self.0)) {
                Ok(Some(v)) => out.push(v),
                Ok(None) => break,
                Err(e) => {
                    self.0.path.borrow_mut().push(Seg::Index(out.len()));
                    return Err(e);
                }
            }
        }
        self.leave();
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match map.next_value_seed(ValueSeed(self.0)) {
                Ok(v) => v,
                Err(e) => {
                    self.0.path.borrow_mut().push(Seg::Key(key));
                    return Err(e);
                }
            };
            match out.entry(key) {
                Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                Entry::Occupied(mut slot) => {
                    if !self.0.allow_dup {
                        let key = slot.key().clone();
                        let reason = format!("duplicate key {key:?}");
                        self.0.path.borrow_mut().push(Seg::Key(key));
                        return Err(self.0.fail(InputErrorKind::DuplicateKey, reason));
                    }
                    slot.insert(value);
                }
            }
        }
        self.leave();
        Ok(Value::Object(out))
    }
}

/// Parse raw JSON bytes under `limits`.
pub fn parse_bytes(bytes: &[u8], limits: &Limits) -> Result<Value, InputError> {
    if bytes.len() > limits.max_bytes {
        return Err(InputError::new(
            InputErrorKind::TooLarge,
            "",
            format!("document of {} bytes exceeds the limit of {} bytes", bytes.len(), limits.max_bytes),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        InputError::new(
            InputErrorKind::InvalidUtf8,
            "",
            format!("invalid UTF-8 at byte {}", e.valid_up_to()),
        )
    })?;
    parse_str(text, limits)
}

/// Parse JSON text under `limits` (the text is already valid UTF-8).
pub fn parse_str(text: &str, limits: &Limits) -> Result<Value, InputError> {
    if text.len() > limits.max_bytes {
        return Err(InputError::new(
            InputErrorKind::TooLarge,
            "",
            format!("document of {} bytes exceeds the limit of {} bytes", text.len(), limits.max_bytes),
        ));
    }
    let ctx = Ctx {
        depth: Cell::new(0),
        max_depth: limits.depth(),
        allow_dup: limits.allow_duplicate_keys,
        path: RefCell::new(Vec::new()),
        own: RefCell::new(None),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let result = ValueSeed(&ctx).deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match result {
        Ok(v) => Ok(v),
        Err(e) => {
            let pointer = ctx.pointer();
            if let Some((kind, reason)) = ctx.own.borrow_mut().take() {
                return Err(InputError::new(kind, pointer, reason));
            }
            let msg = e.to_string();
            let kind = if msg.starts_with("recursion limit exceeded") {
                InputErrorKind::TooDeep
            } else if msg.starts_with("number out of range") {
                InputErrorKind::BadNumber
            } else {
                InputErrorKind::Syntax
            };
            Err(InputError::new(kind, pointer, msg))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &[u8]) -> InputError {
        parse_bytes(text, &Limits::default()).unwrap_err()
    }

    #[test]
    fn parses_and_keeps_order() {
        let v = parse_bytes(br#"{"b": 1, "a": [true, null, 1.5, "x"]}"#, &Limits::default()).unwrap();
        assert_eq!(v.as_object().unwrap().keys().collect::<Vec<_>>(), ["b", "a"]);
    }

    #[test]
    fn duplicate_key_has_pointer() {
        let e = err(br#"{"a": {"b": 1, "b": 2}}"#);
        assert_eq!(e.kind, InputErrorKind::DuplicateKey);
        assert_eq!(e.pointer, "/a/b");
        let ok = Limits { allow_duplicate_keys: true, ..Limits::default() };
        assert_eq!(parse_bytes(br#"{"b": 1, "b": 2}"#, &ok).unwrap()["b"], 2);
    }

    #[test]
    fn syntax_error_pointer_inside_array() {
        let e = err(br#"{"a": [1, 2, NaN]}"#);
        assert_eq!(e.kind, InputErrorKind::Syntax);
        assert_eq!(e.pointer, "/a/2");
    }

    #[test]
    fn depth_limits() {
        let deep = "[".repeat(100_000);
        let e = err(deep.as_bytes());
        assert_eq!(e.kind, InputErrorKind::TooDeep);
        let lim = Limits { max_depth: 3, ..Limits::default() };
        assert!(parse_bytes(b"[[[1]]]", &lim).is_ok());
        let e = parse_bytes(b"[[[[1]]]]", &lim).unwrap_err();
        assert_eq!((e.kind, e.pointer.as_str()), (InputErrorKind::TooDeep, "/0/0/0"));
    }

    #[test]
    fn other_rejections() {
        assert_eq!(err(b"\"\xff\"").kind, InputErrorKind::InvalidUtf8);
        assert_eq!(err(b"1e400").kind, InputErrorKind::BadNumber);
        assert_eq!(err(br#""\ud800""#).kind, InputErrorKind::Syntax);
        assert_eq!(err(b"Infinity").kind, InputErrorKind::Syntax);
        assert_eq!(err(b"{} x").kind, InputErrorKind::Syntax);
        let small = Limits { max_bytes: 4, ..Limits::default() };
        assert_eq!(parse_bytes(b"[1,2,3]", &small).unwrap_err().kind, InputErrorKind::TooLarge);
    }
}
