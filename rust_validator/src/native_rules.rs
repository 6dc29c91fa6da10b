//! Native fast path for the simplest observation rules.
//!
//! Most contract rules are one comparison of a context value with a constant
//! (`{"<": [{"var": "response_time_ms"}, 3000]}`), a membership test
//! (`{"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}`) or the truthiness of a value
//! (`{"!!": [{"var": "data.query"}]}`). When *every* rule of a
//! contract has one of these shapes they are compiled to [`Native`] and evaluated without setting up
//! a JsonLogic arena — but only on the value types where the result is unambiguous (a finite
//! number of magnitude below 2^53 for comparisons, a string for membership, any value found for
//! truthiness). Any other runtime value (null,
//! missing, bool, a numeric string, ...) makes [`eval_all`] return `false` and the caller evaluates
//! all rules with datalogic-rs as before, so results are always the engine's. A test compares both
//! paths on a grid of values.
use serde_json::Value;

/// Comparison operators handled natively (no `===`: int/float strictness is engine-specific).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A natively evaluable rule over the context `{"status_code", "response_time_ms", "data"}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Native {
    /// `{op: [{"var": path}, number]}`.
    Cmp { path: Vec<String>, op: CmpOp, rhs: f64 },
    /// `{"in": [{"var": path}, [strings]]}`, negated when wrapped in `{"!": ...}`.
    In { path: Vec<String>, set: Vec<String>, negate: bool },
    /// `{"!!": [{"var": path}]}` (truthiness of any value found), or `{"!": ...}` of a var.
    Truthy { path: Vec<String>, negate: bool },
}

const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

fn var_path(v: &Value) -> Option<Vec<String>> {
    let m = v.as_object().filter(|m| m.len() == 1)?;
    let arg = m.get("var")?;
    let arg = match arg {
        Value::Array(a) if a.len() == 1 => &a[0],
        other => other,
    };
    let s = arg.as_str().filter(|s| !s.is_empty())?;
    let path: Vec<String> = s.split('.').map(str::to_owned).collect();
    matches!(path[0].as_str(), "status_code" | "response_time_ms" | "data").then_some(path)
}

fn single(m: &serde_json::Map<String, Value>) -> Option<(&str, &Value)> {
    (m.len() == 1).then(|| m.iter().next()).flatten().map(|(k, v)| (k.as_str(), v))
}

fn compile_in(args: &Value, negate: bool) -> Option<Native> {
    let [var, list] = args.as_array()?.as_slice() else { return None };
    let set = list.as_array()?.iter().map(|x| x.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>()?;
    Some(Native::In { path: var_path(var)?, set, negate })
}

/// The native form of one rule's logic, if it has one.
pub fn compile(logic: &Value) -> Option<Native> {
    let (op, args) = single(logic.as_object()?)?;
    let cmp = match op {
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        "in" => return compile_in(args, false),
        "!" | "!!" => {
            let inner = match args {
                Value::Array(a) if a.len() == 1 => &a[0],
                other => other,
            };
            if let Some(path) = var_path(inner) {
                return Some(Native::Truthy { path, negate: op == "!" });
            }
            let (inner_op, args) = single(inner.as_object()?)?;
            return if op == "!" && inner_op == "in" { compile_in(args, true) } else { None };
        }
        _ => return None,
    };
    let [var, rhs] = args.as_array()?.as_slice() else { return None };
    let rhs = rhs.as_f64().filter(|r| r.is_finite() && r.abs() < MAX_EXACT)?;
    Some(Native::Cmp { path: var_path(var)?, op: cmp, rhs })
}

/// Native forms of all rules, or `None` if any rule has none.
pub fn compile_all<'a>(logics: impl IntoIterator<Item = &'a Value>) -> Option<Vec<Native>> {
    logics.into_iter().map(compile).collect()
}

fn resolve<'v>(path: &[String], status: Option<&'v Value>, ms: &'v Value, data: &'v Value) -> Option<&'v Value> {
    let root = match path[0].as_str() {
        "status_code" => status?,
        "response_time_ms" => ms,
        _ => data,
    };
    path[1..].iter().try_fold(root, |v, seg| match v {
        Value::Object(m) => m.get(seg.as_str()),
        // Only canonical indices ("0", "12"); anything else is left to the engine.
        Value::Array(a) => match seg.parse::<usize>() {
            Ok(i) if i.to_string() == *seg => a.get(i),
            _ => None,
        },
        _ => None,
    })
}

/// Evaluate every rule natively into `out` (rule index, truthiness). Returns `false` (and leaves
/// `out` empty) when any rule meets a value the native path does not decide.
pub fn eval_all(rules: &[Native], status: Option<&Value>, ms: &Value, data: &Value, out: &mut Vec<(usize, bool)>) -> bool {
    eval_with(rules, |path| resolve(path, status, ms, data), out)
}

/// [`eval_all`] with the values looked up by `value_at(path)` (the fast observation path reads
/// them from its captures instead of a tree).
pub fn eval_with<'v>(rules: &[Native], value_at: impl Fn(&[String]) -> Option<&'v Value>, out: &mut Vec<(usize, bool)>) -> bool {
    for (i, r) in rules.iter().enumerate() {
        let result = match r {
            Native::Cmp { path, op, rhs } => {
                let Some(x) = value_at(path).and_then(Value::as_f64).filter(|x| x.abs() < MAX_EXACT) else {
                    out.clear();
                    return false;
                };
                match op {
                    CmpOp::Eq => x == *rhs,
                    CmpOp::Ne => x != *rhs,
                    CmpOp::Lt => x < *rhs,
                    CmpOp::Le => x <= *rhs,
                    CmpOp::Gt => x > *rhs,
                    CmpOp::Ge => x >= *rhs,
                }
            }
            Native::In { path, set, negate } => {
                let Some(s) = value_at(path).and_then(Value::as_str) else {
                    out.clear();
                    return false;
                };
                set.iter().any(|x| x == s) != *negate
            }
            // JsonLogic truthiness (datalogic-rs's default, the reference's). A value not found is
            // left to the engine (a non-canonical index may still resolve there).
            Native::Truthy { path, negate } => {
                let Some(v) = value_at(path) else {
                    out.clear();
                    return false;
                };
                truthy(v) != *negate
            }
        };
        out.push((i, result));
    }
    true
}

pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;
    use serde_json::json;

    #[test]
    fn compiles_only_simple_shapes() {
        assert!(compile(&json!({"<": [{"var": "response_time_ms"}, 3000]})).is_some());
        assert!(compile(&json!({"!": {"in": [{"var": "data.status"}, ["a", "b"]]}})).is_some());
        assert!(compile(&json!({"!": [{"in": [{"var": "data.status"}, ["a"]]}]})).is_some());
        assert!(compile(&json!({"===": [{"var": "status_code"}, 200]})).is_none());
        assert!(compile(&json!({"<": [{"var": "other"}, 1]})).is_none());
        assert!(compile(&json!({"<": [{"var": "data.x"}, "1"]})).is_none());
        assert!(compile(&json!({"<": [1, {"var": "data.x"}]})).is_none());
        assert!(compile(&json!({"in": [{"var": "data.x"}, [1]]})).is_none());
        assert!(compile(&json!({"!!": [{"var": "data.query"}]})).is_some());
        assert!(compile(&json!({"!!": [{"in": [{"var": "data.x"}, ["a"]]}]})).is_none());
        assert!(compile(&json!({"<": [{"var": "data.x"}, 1], "x": 1})).is_none());
    }

    /// Wherever the native path decides, it must agree with datalogic-rs on the same context.
    #[test]
    fn agrees_with_the_engine() {
        let logics = [
            json!({"==": [{"var": "status_code"}, 200]}),
            json!({"!=": [{"var": "status_code"}, 200]}),
            json!({"<": [{"var": "response_time_ms"}, 3000]}),
            json!({"<=": [{"var": "data.amount"}, 0]}),
            json!({">": [{"var": "data.amount"}, 0.5]}),
            json!({">=": [{"var": "data.amount"}, -1]}),
            json!({">=": [{"var": "data.items.1"}, 2]}),
            json!({"in": [{"var": "data.status"}, ["paid", "shipped", ""]]}),
            json!({"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}),
            json!({"!!": [{"var": "data.status"}]}),
            json!({"!!": {"var": "data.missing"}}),
            json!({"!": [{"var": "data.items"}]}),
            json!({"!!": [{"var": "status_code"}]}),
        ];
        let values = [
            json!(null), json!(true), json!(false), json!(0), json!(-1), json!(0.5), json!(200), json!(200.0),
            json!(2999.9), json!(3000), json!(1e300), json!(-0.0), json!("0"), json!(""), json!("paid"),
            json!("unknown"), json!("200"), json!([1]), json!({"a": 1}), json!(9007199254740993_i64),
            json!([]), json!({}),
        ];
        let mut decided = 0;
        for logic in &logics {
            let native = compile(logic).expect("compiles");
            let rule = Rule::compile("r", logic, "", "rules/0").unwrap();
            for v in &values {
                for status in [None, Some(json!(200)), Some(json!(404))] {
                    let data = json!({"amount": v, "status": v, "items": [0, v]});
                    let ctx = json!({"status_code": status.clone().unwrap_or(Value::Null), "response_time_ms": v,
                                     "data": data});
                    let mut out = Vec::new();
                    if eval_all(std::slice::from_ref(&native), status.as_ref(), v, &data, &mut out) {
                        decided += 1;
                        assert_eq!(Ok(out[0].1), rule.truthy(&ctx), "{logic} on {ctx}");
                    } else {
                        assert!(out.is_empty());
                    }
                }
            }
        }
        assert!(decided > 100, "native path decided only {decided} cases");
    }
}
