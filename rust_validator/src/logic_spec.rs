//! The JsonLogic engine, configured for the current JsonLogic specification.
//!
//! datalogic-rs 5.4.0 carries most of the current operators behind cargo features (`val`,
//! `exists`, `??`, `try`/`throw`, `length`, …; enabled in `Cargo.toml`). What it lacks or does
//! differently from the reference is closed here, before a rule is compiled, by rewriting the
//! rule and by three private custom operators:
//!
//! - `preserve` (not in 5.4.0): its argument is returned as data, unevaluated. Scalars become the
//!   literal itself; arrays and objects go through `tao.preserve` with the value as JSON text.
//! - `merge` drops `null` arguments in datalogic-rs; the reference keeps every non-array
//!   argument as one element (`{"merge": [null]}` → `[null]`): `tao.merge`.
//! - Iterators (`map`, `filter`, `reduce`, `all`, `some`, `none`) over something that is neither
//!   an array nor null (a missing value) are an error, not a value (datalogic-rs maps a number as
//!   a one-element list): the collection goes through `tao.array`, which rejects it.
//! - Operators whose arguments must be a literal list (`if`, `and`, `or`, the iterators, the
//!   comparisons) reject any other argument form ("Invalid Arguments"), including a computed
//!   list such as `{"and": {"preserve": [true]}}`.
//!
//! Truthiness (`{}` and `[]` are falsy), empty `and`/`or` (null) and the rest already follow the
//! reference in datalogic-rs's default configuration; `rust_validator/tests/jsonlogic_extra.rs`
//! and the Python suite run our own cases for each rule (`tests/rust_validator/data/jsonlogic_extra.json`).
use std::sync::LazyLock;

use datalogic_rs::bumpalo::Bump;
use datalogic_rs::operator::EvalContext;
use datalogic_rs::{CustomOperator, DataValue, Engine, Error, Logic};
use serde_json::{Map, Value};

/// The one engine every rule is compiled and evaluated with.
pub static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    Engine::builder()
        .add_operator(PRESERVE, Preserve)
        .add_operator(MERGE, Merge)
        .add_operator(ARRAY, ArrayArg)
        .build()
});

const PRESERVE: &str = "tao.preserve";
const MERGE: &str = "tao.merge";
const ARRAY: &str = "tao.array";

/// Operators whose argument must be a literal array.
const LIST_ARGS: &[&str] = &[
    "if", "?:", "and", "or", "map", "filter", "reduce", "all", "some", "none", "<", "<=", ">", ">=", "==", "!=",
    "===", "!==",
];
const ITERATORS: &[&str] = &["map", "filter", "reduce", "all", "some", "none"];

/// Compile `rule` (after the spec rewrite) with [`ENGINE`].
pub fn compile(rule: &Value) -> Result<Logic, String> {
    let rewritten = rewrite(rule)?;
    ENGINE.compile(&rewritten).map_err(|e| e.to_string())
}

/// Rewrite a rule so that datalogic-rs evaluates it with the reference semantics (see the module
/// documentation). Errors are argument-shape errors the reference rejects too.
pub fn rewrite(rule: &Value) -> Result<Value, String> {
    match rule {
        Value::Array(items) => items.iter().map(rewrite).collect::<Result<_, _>>().map(Value::Array),
        Value::Object(m) if m.len() == 1 => {
            let (op, args) = m.iter().next().expect("one entry");
            let op = op.as_str();
            if op == "preserve" {
                return Ok(preserved(args));
            }
            if LIST_ARGS.contains(&op) && !args.is_array() {
                return Err(format!("Invalid Arguments: {op:?} needs a list of arguments, got {args}"));
            }
            let mut args = rewrite(args)?;
            if ITERATORS.contains(&op) {
                if let Some(first) = args.as_array_mut().and_then(|a| a.first_mut()) {
                    guard_collection(op, first)?;
                }
            }
            let op = if op == "merge" { MERGE } else { op };
            Ok(one(op, args))
        }
        other => Ok(other.clone()),
    }
}

fn one(op: &str, args: Value) -> Value {
    let mut m = Map::with_capacity(1);
    m.insert(op.to_owned(), args);
    Value::Object(m)
}

/// `{"preserve": x}` as an expression that yields `x` unevaluated.
fn preserved(x: &Value) -> Value {
    match x {
        Value::Array(_) | Value::Object(_) => one(PRESERVE, Value::String(x.to_string())),
        scalar => scalar.clone(),
    }
}

/// The collection argument of an iterator: literals are checked now, expressions at run time.
fn guard_collection(op: &str, first: &mut Value) -> Result<(), String> {
    match first {
        Value::Array(_) | Value::Null => Ok(()),
        Value::Object(_) => {
            *first = one(ARRAY, Value::Array(vec![first.take()]));
            Ok(())
        }
        other => Err(format!("Invalid Arguments: {op:?} iterates over an array, got {other}")),
    }
}

/// `tao.preserve`: its one argument is JSON text, returned as a value.
struct Preserve;

impl CustomOperator for Preserve {
    fn evaluate<'a>(&self, args: &[&'a DataValue<'a>], _: &mut EvalContext<'_, 'a>, arena: &'a Bump)
        -> datalogic_rs::Result<&'a DataValue<'a>> {
        let text = args.first().and_then(|a| a.as_str()).ok_or_else(|| Error::invalid_arguments("preserve"))?;
        let v: Value = serde_json::from_str(text).map_err(|e| Error::invalid_arguments(e.to_string()))?;
        Ok(arena.alloc(DataValue::from_serde_value_in(&v, arena)))
    }
}

/// `tao.merge`: flattens array arguments one level, keeps every other argument as one element.
struct Merge;

impl CustomOperator for Merge {
    fn evaluate<'a>(&self, args: &[&'a DataValue<'a>], _: &mut EvalContext<'_, 'a>, arena: &'a Bump)
        -> datalogic_rs::Result<&'a DataValue<'a>> {
        let len = args.iter().map(|a| if let DataValue::Array(x) = a { x.len() } else { 1 }).sum();
        let mut out = datalogic_rs::bumpalo::collections::Vec::with_capacity_in(len, arena);
        for a in args {
            match a {
                DataValue::Array(items) => out.extend(items.iter().cloned()),
                other => out.push(**other),
            }
        }
        Ok(arena.alloc(DataValue::Array(out.into_bump_slice())))
    }
}

/// `tao.array`: passes an array (or null, a missing value) through; anything else is an error.
struct ArrayArg;

impl CustomOperator for ArrayArg {
    fn evaluate<'a>(&self, args: &[&'a DataValue<'a>], _: &mut EvalContext<'_, 'a>, _: &'a Bump)
        -> datalogic_rs::Result<&'a DataValue<'a>> {
        match args.first() {
            Some(v @ (DataValue::Array(_) | DataValue::Null)) => Ok(v),
            Some(_) => Err(Error::invalid_arguments("Invalid Arguments: an iterator needs an array")),
            None => Err(Error::invalid_arguments("Invalid Arguments")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rewrites() {
        assert_eq!(rewrite(&json!({"preserve": 1})).unwrap(), json!(1));
        assert_eq!(rewrite(&json!({"preserve": {"+": [1]}})).unwrap(), json!({"tao.preserve": "{\"+\":[1]}"}));
        assert_eq!(rewrite(&json!({"merge": [1, null]})).unwrap(), json!({"tao.merge": [1, null]}));
        assert_eq!(
            rewrite(&json!({"map": [{"var": "x"}, {"var": ""}]})).unwrap(),
            json!({"map": [{"tao.array": [{"var": "x"}]}, {"var": ""}]})
        );
        assert!(rewrite(&json!({"all": [5, true]})).is_err());
        assert!(rewrite(&json!({"and": true})).is_err());
        assert!(rewrite(&json!({"<": {"preserve": [1, 2]}})).is_err());
        // Multi-key objects and plain values are left as they are.
        assert_eq!(rewrite(&json!({"a": 1, "b": 2})).unwrap(), json!({"a": 1, "b": 2}));
    }
}
