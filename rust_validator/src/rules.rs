//! JsonLogic rules on `datalogic-rs` (a conformant engine, configured for the current spec in
//! [`crate::logic_spec`]), compiled once per contract.
use std::cell::RefCell;

use datalogic_rs::bumpalo::Bump;
use datalogic_rs::{DataValue, Logic};
use serde_json::Value;

use crate::error::BuildError;
use crate::logic_spec::ENGINE;

thread_local! {
    /// One evaluation arena per thread, reset after each rule (no allocation in steady state).
    static ARENA: RefCell<Bump> = RefCell::new(Bump::with_capacity(4096));
}

/// A named JsonLogic rule that must evaluate truthy.
pub struct Rule {
    pub name: String,
    pub message: String,
    logic: Logic,
}

impl Rule {
    /// Compile `logic`; `location` names it in the error (e.g. `observation_rules/0`).
    pub fn compile(name: &str, logic: &Value, message: &str, location: &str) -> Result<Self, BuildError> {
        let logic = crate::logic_spec::compile(logic).map_err(|e| BuildError::new(location, e))?;
        Ok(Self { name: name.to_owned(), message: message.to_owned(), logic })
    }

    /// Evaluate against `data` and apply JsonLogic truthiness.
    pub fn truthy(&self, data: &Value) -> Result<bool, String> {
        ARENA.with(|cell| {
            let mut arena = cell.borrow_mut();
            let out = match ENGINE.evaluate(&self.logic, data, &arena) {
                Ok(v) => Ok(ENGINE.truthy(v)),
                Err(e) => Err(e.to_string()),
            };
            arena.reset();
            out
        })
    }
}

/// All of a contract's rules compiled into one array expression, so one evaluation call (one
/// context set-up) yields every rule's value. `None` when there are fewer than two rules.
pub fn compile_all(logics: &[Value]) -> Option<Logic> {
    if logics.len() < 2 {
        return None;
    }
    crate::logic_spec::compile(&Value::Array(logics.to_vec())).ok()
}

/// Evaluate every rule against the observation context
/// `{"status_code", "response_time_ms", "data"}`, bringing the data into the evaluation arena
/// once for all rules — only the parts `paths` names when it is `Some` (see [`crate::project`]).
/// `f(i, result)` receives each rule's truthiness (or its error).
#[allow(clippy::too_many_arguments)]
pub fn eval_observation(rules: &[Rule], combined: Option<&Logic>, paths: Option<&[Vec<String>]>, status_code: Option<i64>,
                        response_time_ms: &Value, data: &Value, mut f: impl FnMut(usize, Result<bool, String>)) {
    ARENA.with(|cell| {
        let mut arena = cell.borrow_mut();
        (|| {
            let a: &Bump = &arena;
            let status = match status_code {
                Some(c) => DataValue::from_serde_value_in(&Value::from(c), a),
                None => DataValue::Null,
            };
            let data_value = match paths {
                Some(paths) if !paths.iter().any(Vec::is_empty) => {
                    let sub: Vec<&[String]> =
                        paths.iter().filter(|p| p[0] == "data").map(|p| &p[1..]).collect();
                    crate::project::project(data, &sub, a)
                }
                _ => DataValue::from_serde_value_in(data, a),
            };
            let fields = a.alloc_slice_fill_iter([
                ("status_code", status),
                ("response_time_ms", DataValue::from_serde_value_in(response_time_ms, a)),
                ("data", data_value),
            ]);
            let ctx: &DataValue<'_> = a.alloc(DataValue::Object(fields));
            // Fast path: one evaluation of the combined array; on any error, rule by rule (so each
            // rule's own error is reported).
            if let Some(all) = combined {
                if let Ok(DataValue::Array(items)) = ENGINE.evaluate(all, ctx, a) {
                    if items.len() == rules.len() {
                        for (i, v) in items.iter().enumerate() {
                            f(i, Ok(ENGINE.truthy(v)));
                        }
                        return;
                    }
                }
            }
            for (i, rule) in rules.iter().enumerate() {
                let out = match ENGINE.evaluate(&rule.logic, ctx, a) {
                    Ok(v) => Ok(ENGINE.truthy(v)),
                    Err(e) => Err(e.to_string()),
                };
                f(i, out);
            }
        })();
        arena.reset();
    });
}

/// Evaluate one JsonLogic `rule` against `data` (one-shot; compiles the rule every call).
pub fn jsonlogic(rule: &Value, data: &Value) -> Result<Value, BuildError> {
    let rule = crate::logic_spec::rewrite(rule).map_err(|e| BuildError::new("jsonlogic", e))?;
    ENGINE.eval_into::<Value, _, _>(&rule, data).map_err(|e| BuildError::new("jsonlogic", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evaluates_rules() {
        let rule = json!({"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}});
        let r = Rule::compile("not_error", &rule, "", "rules/0").unwrap();
        assert!(r.truthy(&json!({"data": {"status": "paid"}})).unwrap());
        assert!(!r.truthy(&json!({"data": {"status": "error"}})).unwrap());
        assert_eq!(jsonlogic(&json!({"+": [1, 2]}), &json!({})).unwrap(), json!(3));
        assert_eq!(jsonlogic(&json!({"var": "a.b"}), &json!({"a": {"b": [1]}})).unwrap(), json!([1]));
    }

    #[test]
    fn unknown_operator_is_an_error() {
        match Rule::compile("x", &json!({"no_such_op": [1]}), "", "rules/0") {
            Err(_) => {}
            Ok(r) => assert!(r.truthy(&json!({})).is_err()),
        }
    }
}
