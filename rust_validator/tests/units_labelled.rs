//! The labelled unit strings (`tests/rust_validator/data/units_labelled.json`, labels computed
//! with pint): every conversion within 1e-9 (relative), every failure of the expected kind.
use rust_validator::units::{normalize_value, Unit};
use serde_json::{json, Value};

fn data() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/rust_validator/data/units_labelled.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn labelled_conversions() {
    let d = data();
    let conversions = d["conversions"].as_array().unwrap();
    assert!(conversions.len() >= 300);
    let mut wrong = Vec::new();
    for c in conversions {
        let to = Unit::parse(c["to"].as_str().unwrap()).unwrap();
        let want = c["expected"].as_f64().unwrap();
        match normalize_value(&c["text"], to, true) {
            Ok(got) if (got.value - want).abs() <= 1e-9 * want.abs().max(1.0) && got.from.is_some() => {}
            other => wrong.push(format!("{} -> {}: {other:?}, want {want}", c["text"], c["to"])),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn labelled_failures() {
    let d = data();
    for f in d["failures"].as_array().unwrap() {
        let to = Unit::parse(f["to"].as_str().unwrap()).unwrap();
        let e = normalize_value(&f["text"], to, f["require_unit"] == json!(true)).unwrap_err();
        assert_eq!(e.kind.as_str(), f["kind"], "{}", f["text"]);
    }
}
