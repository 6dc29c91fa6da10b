//! Timing of the core hot path (no Python): `cargo test --release --test hot_path_timing -- --nocapture --ignored`.
use std::time::Instant;

use rust_validator::contract::Contract;
use rust_validator::parse::{parse_bytes, Limits};
use rust_validator::schema::SchemaOptions;
use serde_json::json;

#[test]
#[ignore]
fn small_document_hot_path() {
    let order = json!({"type": "object", "required": ["order_id", "status", "amount"],
        "properties": {"order_id": {"type": "string", "pattern": "^[0-9]{18}$"},
        "status": {"enum": ["pending", "paid", "shipped"]}, "amount": {"type": "number", "minimum": 0},
        "updated_at": {"type": "string"}}});
    let spec = json!({"name": "get_order_status", "response_schema": order,
        "observation_rules": [
            {"name": "status_ok", "logic": {"==": [{"var": "status_code"}, 200]}},
            {"name": "fast_enough", "logic": {"<": [{"var": "response_time_ms"}, 3000]}},
            {"name": "status_known", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}},
            {"name": "amount_positive", "logic": {">=": [{"var": "data.amount"}, 0]}}],
        "allowed_status_codes": [200], "extract": {"order_id": "/order_id", "status": "/status", "amount": "/amount"},
        "timeout_ms": 5000});
    let doc = br#"{"tool":"get_order_status","status_code":200,"response_time_ms":87.5,"parsed_data":{"order_id":"202405011234567890","status":"shipped","amount":129.9,"updated_at":"2024-05-01T10:00:00+08:00"}}"#;
    let c = Contract::from_spec(&spec, None, &SchemaOptions::default(), Limits::default()).unwrap();
    let n = 200_000;
    let time = |label: &str, f: &dyn Fn()| {
        for _ in 0..10_000 { f(); }
        let t = Instant::now();
        for _ in 0..n { f(); }
        println!("{label}: {:.3} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    };
    time("parse", &|| { std::hint::black_box(parse_bytes(doc, &c.limits).unwrap()); });
    time("serde_json::from_slice", &|| { std::hint::black_box(serde_json::from_slice::<serde_json::Value>(doc).unwrap()); });
    let v = parse_bytes(doc, &c.limits).unwrap();
    time("schema is_valid (parsed_data)", &|| { std::hint::black_box(c.schema.as_ref().unwrap().is_valid(&v["parsed_data"])); });
    time("check_value (clone)", &|| { std::hint::black_box(c.check_value(v.clone(), None).unwrap()); });
    time("clone", &|| { std::hint::black_box(v.clone()); });
    time("check_bytes", &|| { std::hint::black_box(c.check_bytes(doc, None).unwrap()); });
    let mut bare = spec.clone();
    bare["observation_rules"] = json!([]);
    let nr = Contract::from_spec(&bare, None, &SchemaOptions::default(), Limits::default()).unwrap();
    time("check_value, no rules (clone)", &|| { std::hint::black_box(nr.check_value(v.clone(), None).unwrap()); });
    bare["extract"] = json!({});
    let ne = Contract::from_spec(&bare, None, &SchemaOptions::default(), Limits::default()).unwrap();
    time("check_value, no rules/extract (clone)", &|| { std::hint::black_box(ne.check_value(v.clone(), None).unwrap()); });
}

/// A loop of the fast path alone, for `perf record` (run with `--ignored fast_loop`).
#[test]
#[ignore]
fn fast_loop() {
    let order = json!({"type": "object", "required": ["order_id", "status", "amount"],
        "properties": {"order_id": {"type": "string", "pattern": "^[0-9]{18}$"},
        "status": {"enum": ["pending", "paid", "shipped"]}, "amount": {"type": "number", "minimum": 0},
        "updated_at": {"type": "string"}}});
    let spec = json!({"name": "get_order_status", "response_schema": order,
        "observation_rules": [
            {"name": "status_ok", "logic": {"==": [{"var": "status_code"}, 200]}},
            {"name": "fast_enough", "logic": {"<": [{"var": "response_time_ms"}, 3000]}},
            {"name": "status_known", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}},
            {"name": "amount_positive", "logic": {">=": [{"var": "data.amount"}, 0]}}],
        "allowed_status_codes": [200], "extract": {"order_id": "/order_id", "status": "/status", "amount": "/amount"},
        "timeout_ms": 5000});
    let doc = br#"{"tool":"get_order_status","status_code":200,"response_time_ms":87.5,"parsed_data":{"order_id":"202405011234567890","status":"shipped","amount":129.9,"updated_at":"2024-05-01T10:00:00+08:00"}}"#;
    let c = Contract::from_spec(&spec, None, &SchemaOptions::default(), Limits::default()).unwrap();
    let text = std::str::from_utf8(doc).unwrap();
    let f = c.fast.as_ref().unwrap();
    let only: Option<usize> = std::env::var("FAST_LOOP_ONLY").ok().and_then(|v| v.parse().ok());
    for (label, which) in [("scan", 0), ("check_bytes", 1)] {
        if only.is_some_and(|o| o != which) {
            continue;
        }
        let n = 2_000_000;
        let t = Instant::now();
        for _ in 0..n {
            if which == 0 {
                std::hint::black_box(f.scan_only(&c, std::hint::black_box(text)));
            } else {
                std::hint::black_box(c.check_bytes(std::hint::black_box(doc), None).unwrap());
            }
        }
        println!("{label}: {:.3} us", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
}
