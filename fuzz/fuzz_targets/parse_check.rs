//! Fuzz the hot path: raw bytes → bounded parse → observation check (schema, rules, normalization,
//! extraction), plus a plan check and a schema check of whatever parsed. Invariants: no panic, no
//! stack overflow; an accepted document re-serializes and re-parses to the same value; the
//! confidence stays in [0, 1] and a valid observation has no error type.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use rust_validator::contract::Contract;
use rust_validator::parse::{parse_bytes, Limits};
use rust_validator::plan::PlanChecker;
use rust_validator::schema::SchemaOptions;
use serde_json::json;

static LIMITS: Limits = Limits { max_bytes: 1 << 20, max_depth: 64, allow_duplicate_keys: false };

static CONTRACT: LazyLock<Contract> = LazyLock::new(|| {
    let spec = json!({
        "name": "get_weather",
        "response_schema": {"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "maxLength": 30}, "temperature_c": {"type": "number"},
            "humidity": {"type": ["string", "number"]}, "at": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}}},
        "observation_rules": [
            {"name": "not_error", "logic": {"!": {"in": [{"var": "data.condition"}, ["unknown", "error"]]}}},
            {"name": "sane_temp", "logic": {"<": [-90, {"var": "data.temperature_c"}, 60]}}],
        "required_fields": ["/city"],
        "blacklist": {"/city": ["", "null"]},
        "extract": {"city": "/city", "humidity": "/humidity", "first_tag": "/tags/0"},
        "normalization": {"strip_units": ["/humidity", "/wind"], "enum_map": {"/condition": {"Sunny": "sunny"}},
                          "rename": {"/temp": "temperature_c"}},
        "timeout_ms": 3000
    });
    let expected = json!({"/condition": ["sunny", "rain"]});
    Contract::from_spec(&spec, Some(&expected), &SchemaOptions::default(), LIMITS).expect("contract compiles")
});

static PLANS: LazyLock<PlanChecker> = LazyLock::new(|| {
    let tools = vec![("get_weather".to_string(), json!({"type": "object", "properties": {"city": {"type": "string"}}}))];
    PlanChecker::new(&tools, &SchemaOptions::default()).expect("plan checker compiles")
});

fuzz_target!(|data: &[u8]| {
    if let Ok(obs) = CONTRACT.check_bytes(data, None) {
        assert!((0.0..=1.0).contains(&obs.confidence));
        assert_eq!(obs.valid, obs.error_type.is_none());
    }
    if let Ok(value) = parse_bytes(data, &LIMITS) {
        let text = serde_json::to_vec(&value).expect("serializes");
        assert_eq!(parse_bytes(&text, &LIMITS).expect("re-parses"), value);
        let report = PLANS.check(&value);
        assert_eq!(report.valid, report.errors.is_empty());
    }
});
