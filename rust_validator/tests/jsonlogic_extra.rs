//! JsonLogic of the current spec: our own cases (`tests/rust_validator/data/jsonlogic_extra.json`)
//! and, when `../shared` is present, the shared `tests.json` — both without Python.
use std::path::PathBuf;

use rust_validator::rules::jsonlogic;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// JSON equality where `1 == 1.0` (JsonLogic numbers are i64 or f64).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn extra_cases() {
    let text = std::fs::read_to_string(repo().join("tests/rust_validator/data/jsonlogic_extra.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    let cases: Vec<&Value> = cases.iter().filter(|c| c.is_object()).collect();
    assert!(cases.len() >= 50);
    let mut failures = Vec::new();
    for c in &cases {
        let got = jsonlogic(&c["rule"], &c["data"]);
        let ok = match (c.get("result"), &got) {
            (Some(want), Ok(v)) => same(want, v),
            (None, Err(_)) => c["error"] == Value::Bool(true),
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: {} -> {:?}", c["comment"], c["rule"], got.map_err(|e| e.message)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn shared_tests_json() {
    let path = repo().join("../shared/data/jsonlogic/tests.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} not found", path.display());
        return;
    };
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    let cases: Vec<&Value> = cases.iter().filter(|c| c.is_array()).collect();
    assert_eq!(cases.len(), 277);
    let failed: Vec<String> = cases
        .iter()
        .filter(|c| !jsonlogic(&c[0], &c[1]).is_ok_and(|v| same(&v, &c[2])))
        .map(|c| c.to_string())
        .collect();
    assert!(failed.is_empty(), "{} of 277 failed: {:?}", failed.len(), &failed[..failed.len().min(10)]);
}
