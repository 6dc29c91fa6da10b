//! Rule-input projection: which parts of the data JsonLogic rules can read.
//!
//! Rules read data only through `var`, `missing` and `missing_some`. When every such reference
//! in a contract's rules is a literal path, only the referenced subtrees are brought into the
//! evaluation arena (a rule on `data.status` of a 500 KB list converts one string, not the list).
//! Anything dynamic or unknown falls back to converting everything. Inside iterating operators
//! (`map`, `all`, ...) item-relative paths are collected too; that only adds root lookups that
//! find nothing, so the projection stays exact.
use datalogic_rs::bumpalo::collections::Vec as BumpVec;
use datalogic_rs::bumpalo::Bump;
use datalogic_rs::DataValue;
use serde_json::Value;

/// Operators whose arguments are plain sub-expressions (standard JsonLogic plus the common
/// extensions of datalogic-rs). Anything else disables projection.
const PURE_OPS: &[&str] = &[
    "==", "===", "!=", "!==", ">", ">=", "<", "<=", "!", "!!", "or", "and", "if", "?:", "in", "cat", "substr",
    "+", "-", "*", "/", "%", "min", "max", "merge", "map", "filter", "reduce", "all", "none", "some", "abs",
    "ceil", "floor", "length", "starts_with", "ends_with", "upper", "lower", "trim", "split",
];

/// Paths (segments below the context root) every rule can read; `None` = read everything.
pub fn referenced_paths<'a>(rules: impl IntoIterator<Item = &'a Value>) -> Option<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for r in rules {
        collect(r, &mut out)?;
    }
    Some(out)
}

fn path_of(v: &Value) -> Option<Vec<String>> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    if s.is_empty() {
        return Some(Vec::new());
    }
    Some(s.split('.').map(str::to_owned).collect())
}

fn collect(v: &Value, out: &mut Vec<Vec<String>>) -> Option<()> {
    match v {
        Value::Array(a) => a.iter().try_for_each(|x| collect(x, out)),
        Value::Object(m) if m.len() == 1 => {
            let (op, args) = m.iter().next()?;
            match op.as_str() {
                "var" => {
                    let first = match args {
                        Value::Array(a) => {
                            for d in a.iter().skip(1) {
                                collect(d, out)?;
                            }
                            a.first().unwrap_or(&Value::Null)
                        }
                        other => other,
                    };
                    if first.is_null() {
                        out.push(Vec::new());
                    } else {
                        out.push(path_of(first)?);
                    }
                    Some(())
                }
                "missing" => {
                    match args {
                        Value::Array(a) => a.iter().try_for_each(|p| path_of(p).map(|p| out.push(p)))?,
                        other => out.push(path_of(other)?),
                    }
                    Some(())
                }
                "missing_some" => {
                    let list = args.as_array()?.get(1)?.as_array()?;
                    list.iter().try_for_each(|p| path_of(p).map(|p| out.push(p)))
                }
                op if PURE_OPS.contains(&op) => collect(args, out),
                _ => None,
            }
        }
        Value::Object(m) if m.is_empty() => Some(()),
        Value::Object(_) => None,
        _ => Some(()),
    }
}

/// Bring `v` into the arena, keeping only what `paths` (relative to `v`) can reach.
pub fn project<'a>(v: &Value, paths: &[&[String]], arena: &'a Bump) -> DataValue<'a> {
    if paths.is_empty() {
        return DataValue::Null;
    }
    if paths.iter().any(|p| p.is_empty()) {
        return DataValue::from_serde_value_in(v, arena);
    }
    match v {
        Value::Object(m) => {
            let mut fields = BumpVec::new_in(arena);
            for (k, child) in m {
                let sub: Vec<&[String]> = paths.iter().filter(|p| p[0] == *k).map(|p| &p[1..]).collect();
                if !sub.is_empty() {
                    fields.push((arena.alloc_str(k) as &str, project(child, &sub, arena)));
                }
            }
            DataValue::Object(fields.into_bump_slice())
        }
        Value::Array(items) => {
            let idx: Option<Vec<usize>> = paths.iter().map(|p| p[0].parse::<usize>().ok()).collect();
            let Some(idx) = idx else { return DataValue::from_serde_value_in(v, arena) };
            let len = idx.iter().max().map_or(0, |m| (m + 1).min(items.len()));
            let mut out = BumpVec::with_capacity_in(len, arena);
            for (i, child) in items.iter().take(len).enumerate() {
                let sub: Vec<&[String]> = paths.iter().zip(&idx).filter(|(_, j)| **j == i).map(|(p, _)| &p[1..]).collect();
                out.push(if sub.is_empty() { DataValue::Null } else { project(child, &sub, arena) });
            }
            DataValue::Array(out.into_bump_slice())
        }
        scalar => DataValue::from_serde_value_in(scalar, arena),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_static_paths_or_gives_up() {
        let p = referenced_paths([&json!({"!": {"in": [{"var": "data.status"}, ["a"]]}}),
                                  &json!({"<": [{"var": ["response_time_ms", 0]}, 5]})]).unwrap();
        assert_eq!(p, [vec!["data", "status"], vec!["response_time_ms"]]);
        assert!(referenced_paths([&json!({"var": {"cat": ["da", "ta"]}})]).is_none());
        assert!(referenced_paths([&json!({"some_custom_op": [1]})]).is_none());
        assert_eq!(referenced_paths([&json!({"var": ""})]).unwrap(), [Vec::<String>::new()]);
    }

    #[test]
    fn projects_only_what_is_read() {
        let arena = Bump::new();
        let v = json!({"a": {"b": 1, "c": [1, 2, 3]}, "big": [1, 2], "l": [{"x": 1}, {"x": 2}, {"x": 3}]});
        let paths = [vec!["a".to_string(), "b".to_string()], vec!["l".to_string(), "1".to_string(), "x".to_string()]];
        let refs: Vec<&[String]> = paths.iter().map(Vec::as_slice).collect();
        let got = project(&v, &refs, &arena);
        let want = json!({"a": {"b": 1}, "l": [null, {"x": 2}]});
        assert_eq!(got, DataValue::from_serde_value_in(&want, &arena));
    }
}
