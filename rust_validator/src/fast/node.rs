//! A schema's common subset compiled into a [`Node`] tree the scanner checks while it reads.
//!
//! Supported: boolean schemas, `type`, `enum`/`const` of scalars, `properties`, `required`,
//! `additionalProperties` (a schema or a boolean), `minProperties`/`maxProperties`, `items` (one
//! schema), `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum`/
//! `exclusiveMinimum`/`exclusiveMaximum` (numbers exactly representable as f64), and `pattern` /
//! `format`. A `pattern` that is an anchored sequence of ASCII classes (`^[A-Z]{2}\d{6}$`) is
//! matched on the bytes by the `jsonschema` crate's own sequence matcher (`jsonschema-regex`,
//! the code its `pattern` keyword runs for such patterns), without the `Value` round trip; any
//! other pattern, a non-ASCII subject, and `format` go to a `jsonschema` validator of just those
//! keywords (same engine, same regex and format semantics). Annotations are ignored. Anything else — `$ref`, combinators,
//! `multipleOf`, tuple `items`, `patternProperties`, draft 4, … — makes [`compile`] return
//! `None` and the caller keeps the `jsonschema` crate for the whole schema.
use std::cell::RefCell;
use std::sync::Arc;

use jsonschema::{Draft, Validator};
use jsonschema_regex::Sequence;
use serde_json::{Map, Value};

use crate::schema::SchemaOptions;

/// JSON types as bits.
pub const NULL: u8 = 1;
pub const BOOL: u8 = 2;
pub const OBJECT: u8 = 4;
pub const ARRAY: u8 = 8;
pub const NUMBER: u8 = 16;
/// An integer-valued number (a subset of NUMBER).
pub const INTEGER: u8 = 32;
pub const STRING: u8 = 64;
pub const ALL: u8 = NULL | BOOL | OBJECT | ARRAY | NUMBER | INTEGER | STRING;

/// Numbers up to this magnitude compare exactly as f64.
pub const EXACT: f64 = 9_007_199_254_740_992.0;

/// One scalar of an `enum`/`const`.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Null,
    Bool(bool),
    Num(f64),
    Str(Box<str>),
}

/// A compiled schema node.
#[derive(Debug, Clone)]
pub enum Node {
    Any,
    Never,
    Checks(Box<Checks>),
}

/// The keywords of one (non-boolean) schema.
#[derive(Debug, Clone)]
pub struct Checks {
    /// Allowed types (bits above); `ALL` when `type` is absent.
    pub types: u8,
    pub enum_: Option<Vec<Lit>>,
    pub min_len: Option<u64>,
    pub max_len: Option<u64>,
    /// `pattern`/`format`, checked by `jsonschema` on the string.
    pub string_check: Option<StringCheck>,
    /// `pattern` as the `jsonschema` crate's ASCII sequence matcher, when it is one.
    pub pattern: Option<Arc<Sequence>>,
    /// `format` alone (used when `pattern` decided on the bytes).
    pub format_check: Option<StringCheck>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    /// Named keys (properties and required names), at most 64.
    pub keys: Vec<Key>,
    /// Bit mask over `keys` of the required ones.
    pub required: u64,
    pub additional: Node,
    pub min_props: Option<u64>,
    pub max_props: Option<u64>,
    pub items: Node,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// Key dispatch: for each key length (longer ones share the last entry), a bit mask over
    /// `keys` of the keys of that length; built by [`Checks::finish`].
    pub by_len: [u64; 33],
    /// Where the scanned value is recorded (a capture of the contract, see `super::plan`).
    pub slot: Option<usize>,
    /// Array elements at these indices use their own node (captures inside them).
    pub indexed: Vec<(usize, Node)>,
    /// Whether a string / a number needs more than its type (set by [`Checks::finish`]).
    pub string_needs: bool,
    pub number_needs: bool,
}

impl Checks {
    /// An empty schema's checks (every keyword absent).
    pub fn empty() -> Self {
        Checks {
            types: ALL, enum_: None, min_len: None, max_len: None, string_check: None, minimum: None,
            maximum: None, exclusive_minimum: None, exclusive_maximum: None, keys: Vec::new(), required: 0,
            additional: Node::Any, min_props: None, max_props: None, items: Node::Any, min_items: None,
            max_items: None, by_len: [0; 33], pattern: None, format_check: None, slot: None,
            indexed: Vec::new(), string_needs: false, number_needs: false,
        }
    }

    /// Index the keys (call once `keys` is final, at most 64 of them).
    pub fn finish(mut self) -> Self {
        self.by_len = [0; 33];
        for (i, k) in self.keys.iter().enumerate() {
            self.by_len[k.name.len().min(32)] |= 1 << i;
        }
        self.string_needs = self.enum_.is_some()
            || self.min_len.is_some()
            || self.max_len.is_some()
            || self.string_check.is_some()
            || self.pattern.is_some();
        // A number the scanner accepts is one the parser accepts (finite, in range): with `number`
        // allowed and no keyword on its value, any number passes.
        self.number_needs = self.enum_.is_some()
            || self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
            || self.types & NUMBER == 0;
        self
    }

    /// The index of the named key `key` (raw bytes of an unescaped key), if any.
    #[inline]
    pub fn key(&self, key: &[u8]) -> Option<usize> {
        let mut m = self.by_len[key.len().min(32)];
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            if super::scan::same(self.keys[i].name.as_bytes(), key) {
                return Some(i);
            }
            m &= m - 1;
        }
        None
    }
}

/// A key an object schema names.
#[derive(Debug, Clone)]
pub struct Key {
    pub name: Box<str>,
    /// The property schema; `None`: not in `properties` (only required), so `additional` applies.
    pub node: Option<Node>,
    /// `"name":` as it appears in compact JSON, which the scanner compares in place at a key
    /// position to skip the key scan and lookup; empty when the name needs escaping.
    pub quoted: Box<[u8]>,
}

impl Key {
    pub fn new(name: &str, node: Option<Node>) -> Self {
        let plain = name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        let quoted = if plain { [&b"\""[..], name.as_bytes(), &b"\":"[..]].concat().into() } else { Box::default() };
        Key { name: name.into(), node, quoted }
    }
}

/// `pattern`/`format` of a string schema, evaluated by a `jsonschema` validator of just those
/// keywords on a reused `Value::String` (no allocation once warm).
#[derive(Clone)]
pub struct StringCheck(Arc<Validator>);

impl std::fmt::Debug for StringCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StringCheck")
    }
}

thread_local! {
    static SCRATCH: RefCell<Value> = const { RefCell::new(Value::String(String::new())) };
}

impl StringCheck {
    pub fn is_valid(&self, s: &str) -> bool {
        SCRATCH.with(|cell| {
            let mut v = cell.borrow_mut();
            if let Value::String(buf) = &mut *v {
                buf.clear();
                buf.push_str(s);
            }
            self.0.is_valid(&v)
        })
    }
}

/// Keywords that never change validity.
const ANNOTATIONS: &[&str] =
    &["title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"];

/// Compile `schema` for the fast path under `opts`; `None` when it uses anything unsupported.
pub fn compile(schema: &Value, opts: &SchemaOptions) -> Option<Node> {
    let draft = match (opts.draft, schema.get("$schema").and_then(Value::as_str)) {
        (Some(d), _) => d,
        (None, None) => Draft::Draft202012,
        (None, Some(uri)) => match uri.trim_end_matches('#') {
            "https://json-schema.org/draft/2020-12/schema" => Draft::Draft202012,
            "https://json-schema.org/draft/2019-09/schema" => Draft::Draft201909,
            "http://json-schema.org/draft-07/schema" => Draft::Draft7,
            _ => return None,
        },
    };
    if !matches!(draft, Draft::Draft7 | Draft::Draft201909 | Draft::Draft202012) {
        return None;
    }
    let cx = Cx { draft, opts };
    cx.node(schema, true)
}

struct Cx<'o> {
    draft: Draft,
    opts: &'o SchemaOptions,
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < EXACT).map(|f| f as u64))
}

fn exact(v: &Value) -> Option<f64> {
    v.as_f64().filter(|f| f.is_finite() && f.abs() <= EXACT)
}

fn lit(v: &Value) -> Option<Lit> {
    Some(match v {
        Value::Null => Lit::Null,
        Value::Bool(b) => Lit::Bool(*b),
        Value::Number(_) => Lit::Num(exact(v)?),
        Value::String(s) => Lit::Str(s.as_str().into()),
        _ => return None,
    })
}

fn type_bits(name: &str) -> Option<u8> {
    Some(match name {
        "null" => NULL,
        "boolean" => BOOL,
        "object" => OBJECT,
        "array" => ARRAY,
        "number" => NUMBER | INTEGER,
        "integer" => INTEGER,
        "string" => STRING,
        _ => return None,
    })
}

impl Cx<'_> {
    /// A `jsonschema` validator of just these string keywords.
    fn string_check(&self, keywords: Map<String, Value>) -> Option<StringCheck> {
        let mut o = jsonschema::options().should_validate_formats(self.opts.validate_formats).with_draft(self.draft);
        if self.opts.lenient_datetime {
            o = o.with_format("date-time", crate::datetime::lenient_date_time);
        }
        Some(StringCheck(Arc::new(o.build(&Value::Object(keywords)).ok()?)))
    }

    fn node(&self, schema: &Value, root: bool) -> Option<Node> {
        let m = match schema {
            Value::Bool(true) => return Some(Node::Any),
            Value::Bool(false) => return Some(Node::Never),
            Value::Object(m) => m,
            _ => return None,
        };
        if m.keys().all(|k| ANNOTATIONS.contains(&k.as_str()) || (root && k == "$schema")) {
            return Some(Node::Any);
        }
        let mut c = Checks::empty();
        let mut string_keywords = Map::new();
        for (k, v) in m {
            match k.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "$schema" if root => {}
                "type" => {
                    c.types = match v {
                        Value::String(s) => type_bits(s)?,
                        Value::Array(a) if !a.is_empty() => {
                            a.iter().try_fold(0, |acc, t| Some(acc | type_bits(t.as_str()?)?))?
                        }
                        _ => return None,
                    }
                }
                "enum" => c.enum_ = Some(v.as_array()?.iter().map(lit).collect::<Option<Vec<_>>>()?),
                "const" => c.enum_ = Some(vec![lit(v)?]),
                "minLength" => c.min_len = Some(count(v)?),
                "maxLength" => c.max_len = Some(count(v)?),
                "pattern" => {
                    let p = v.as_str()?;
                    string_keywords.insert(k.clone(), v.clone());
                    c.pattern = jsonschema_regex::to_rust_regex(p).ok().and_then(|t| Sequence::compile(&t)).map(Arc::new);
                }
                "format" => {
                    v.as_str()?;
                    if self.opts.validate_formats {
                        string_keywords.insert(k.clone(), v.clone());
                    }
                }
                "minimum" => c.minimum = Some(exact(v)?),
                "maximum" => c.maximum = Some(exact(v)?),
                // Draft 4's boolean form never reaches here (draft 4 is not supported).
                "exclusiveMinimum" => c.exclusive_minimum = Some(exact(v)?),
                "exclusiveMaximum" => c.exclusive_maximum = Some(exact(v)?),
                "minProperties" => c.min_props = Some(count(v)?),
                "maxProperties" => c.max_props = Some(count(v)?),
                "minItems" => c.min_items = Some(count(v)?),
                "maxItems" => c.max_items = Some(count(v)?),
                "additionalProperties" => c.additional = self.node(v, false)?,
                "items" if v.is_object() || v.is_boolean() => c.items = self.node(v, false)?,
                "properties" => {
                    for (name, sub) in v.as_object()? {
                        let node = self.node(sub, false)?;
                        c.keys.push(Key::new(name, Some(node)));
                    }
                }
                "required" => {}
                _ => return None,
            }
        }
        if let Some(req) = m.get("required") {
            for name in req.as_array()? {
                let name = name.as_str()?;
                let i = match c.keys.iter().position(|k| &*k.name == name) {
                    Some(i) => i,
                    None => {
                        c.keys.push(Key::new(name, None));
                        c.keys.len() - 1
                    }
                };
                if i >= 64 {
                    return None;
                }
                c.required |= 1 << i;
            }
        }
        if c.keys.len() > 64 {
            return None;
        }
        if !string_keywords.is_empty() {
            if c.pattern.is_some() && string_keywords.contains_key("format") {
                let mut format = string_keywords.clone();
                format.remove("pattern");
                c.format_check = Some(self.string_check(format)?);
            }
            c.string_check = Some(self.string_check(string_keywords)?);
        }
        Some(Node::Checks(Box::new(c.finish())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset_and_fallbacks() {
        let o = SchemaOptions::default();
        assert!(compile(&json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}},
            "required": ["a", "b"], "additionalProperties": false}), &o).is_some());
        assert!(compile(&json!({"$ref": "#/$defs/a"}), &o).is_none());
        assert!(compile(&json!({"anyOf": [true]}), &o).is_none());
        assert!(compile(&json!({"multipleOf": 2}), &o).is_none());
        assert!(compile(&json!({"items": [true]}), &o).is_none());
        assert!(compile(&json!({"enum": [[1]]}), &o).is_none());
        assert!(compile(&json!({"$schema": "http://json-schema.org/draft-04/schema#"}), &o).is_none());
        assert!(matches!(compile(&json!({"title": "x"}), &o), Some(Node::Any)));
    }
}
