//! End-to-end checks of the pure-Rust core (no Python): contract → observation, batch, plan.
use rust_validator::batch::check_many;
use rust_validator::contract::Contract;
use rust_validator::error::InputErrorKind;
use rust_validator::observation::ErrorType;
use rust_validator::parse::Limits;
use rust_validator::plan::PlanChecker;
use rust_validator::schema::SchemaOptions;
use serde_json::{json, Value};

fn order_contract(expected: Option<&Value>) -> Contract {
    let spec = json!({
        "name": "get_order_status",
        "response_schema": {"type": "object", "required": ["order_id", "status"],
            "properties": {"order_id": {"type": "string"}, "status": {"enum": ["paid", "shipped", "In Transit", "in_transit"]},
                           "amount": {"type": "number"}, "updated_at": {"type": "string", "format": "date-time"}}},
        "observation_rules": [{"name": "not_error", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}},
                               "message": "status must not be error"}],
        "allowed_status_codes": [200],
        "required_fields": ["/status"],
        "blacklist": {"/order_id": ["000"]},
        "extract": {"status": "/status", "amount": "/amount"},
        "normalization": {"enum_map": {"/status": {"In Transit": "in_transit"}}},
        "timeout_ms": 1000
    });
    Contract::from_spec(&spec, expected, &SchemaOptions::default(), Limits::default()).expect("compiles")
}

fn doc(status: i64, ms: f64, data: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"tool": "get_order_status", "status_code": status, "response_time_ms": ms, "parsed_data": data}))
        .unwrap()
}

#[test]
fn clean_observation_extracts_and_scores_one() {
    let c = order_contract(None);
    let d = doc(200, 10.0, json!({"order_id": "1", "status": "In Transit", "amount": 3.5, "updated_at": "2024-05-01 10:00:00+08:00"}));
    let o = c.check_bytes(&d, None).unwrap();
    assert!(o.valid, "{o:?}");
    assert_eq!(o.confidence, 1.0);
    assert_eq!(o.extracted, vec![("status", json!("in_transit")), ("amount", json!(3.5))]);
    assert_eq!(o.normalized, ["/status"]);
}

#[test]
fn each_failure_has_its_error_type() {
    let c = order_contract(None);
    let cases = [
        (doc(503, 10.0, json!({"order_id": "1", "status": "paid"})), ErrorType::ToolTransient),
        (doc(404, 10.0, json!({"order_id": "1", "status": "paid"})), ErrorType::ToolClientError),
        (doc(200, 1500.0, json!({"order_id": "1", "status": "paid"})), ErrorType::ToolTimeout),
        (doc(200, 10.0, json!({"order_id": 1, "status": "paid"})), ErrorType::ToolSchemaViolation),
        (doc(200, 10.0, json!({"order_id": "000", "status": "paid"})), ErrorType::RuleViolation),
    ];
    for (d, want) in cases {
        let o = c.check_bytes(&d, None).unwrap();
        assert_eq!(o.error_type, Some(want), "{o:?}");
        assert_eq!(o.confidence, 0.0);
        assert!(o.extracted.is_empty());
    }
}

#[test]
fn consistency_is_soft_not_hard() {
    let expected = json!({"/status": ["shipped"]});
    let c = order_contract(Some(&expected));
    let o = c.check_bytes(&doc(200, 1.0, json!({"order_id": "1", "status": "paid"})), None).unwrap();
    assert_eq!(o.error_type, Some(ErrorType::ObservationInconsistent));
    assert!((o.confidence - 0.6 / 0.7).abs() < 1e-12);
    let o = c.check_bytes(&doc(200, 1.0, json!({"order_id": "1", "status": "shipped"})), Some(0.5)).unwrap();
    assert!((o.confidence - 0.85).abs() < 1e-12);
}

#[test]
fn null_in_an_expectation_accepts_an_absent_value() {
    // the loop's echoed arguments: present -> must match; absent -> fine (null listed)
    let expected = json!({"/order_id": ["1", null], "/echo": ["x", null]});
    let c = order_contract(Some(&expected));
    for data in [json!({"order_id": "1", "status": "paid"}), json!({"order_id": "1", "status": "paid", "echo": "x"})] {
        let (fast, full) = (c.check_bytes(&doc(200, 1.0, data.clone()), None).unwrap(), c.check_full(&doc(200, 1.0, data), None).unwrap());
        assert!(fast.valid && full.valid, "{fast:?} {full:?}");
        assert_eq!(fast.confidence, 1.0);
    }
    let o = c.check_bytes(&doc(200, 1.0, json!({"order_id": "1", "status": "paid", "echo": "y"})), None).unwrap();
    assert_eq!(o.error_type, Some(ErrorType::ObservationInconsistent));
    let strict = order_contract(Some(&json!({"/echo": ["x"]})));
    let o = strict.check_bytes(&doc(200, 1.0, json!({"order_id": "1", "status": "paid"})), None).unwrap();
    assert_eq!(o.error_type, Some(ErrorType::ObservationInconsistent), "no null: absent is missing");
}

#[test]
fn per_call_expectations_equal_compiled_ones() {
    let exp = json!({"/order_id": ["1", null]});
    let compiled = order_contract(Some(&exp));
    let plain = order_contract(None);
    let per_call = rust_validator::contract::pointer_values(exp.as_object(), "expected").unwrap();
    for data in [json!({"order_id": "1", "status": "paid"}), json!({"order_id": "2", "status": "paid"}), json!({"status": "paid"})] {
        let d: Value = serde_json::from_slice(&doc(200, 1.0, data)).unwrap();
        let a = compiled.check_value(d.clone(), None).unwrap();
        let b = plain.check_value_expecting(d, None, &per_call).unwrap();
        assert_eq!((a.valid, a.error_type, a.confidence), (b.valid, b.error_type, b.confidence));
    }
}

#[test]
fn batch_equals_sequential_and_reports_bad_docs() {
    let c = order_contract(None);
    let mut docs: Vec<Vec<u8>> = (0..100).map(|i| doc(200, f64::from(i), json!({"order_id": "1", "status": "paid"}))).collect();
    docs.push(b"{\"a\": 1, \"a\": 2}".to_vec());
    let out = check_many(&c, &docs, None);
    for (d, r) in docs.iter().zip(&out) {
        assert_eq!(r, &c.check_bytes(d, None));
    }
    assert_eq!(out.last().unwrap().as_ref().unwrap_err().kind, InputErrorKind::DuplicateKey);
}

#[test]
fn plan_checker_with_embedded_schema() {
    let tools = vec![("find_user".to_string(), json!({"type": "object", "properties": {"name": {"type": "string"}}}))];
    let p = PlanChecker::new(&tools, &SchemaOptions::default()).unwrap();
    let ok = json!({"intent": "find_x", "steps": [{"step_id": "t1", "tool": "find_user", "arguments": {"name": "a"}}]});
    assert!(p.check(&ok).valid);
    let bad = json!({"intent": "find_x", "steps": [{"step_id": "t1", "tool": "find_user", "arguments": {"name": 5}}]});
    assert_eq!(p.check(&bad).errors[0].code, "ARGUMENT_INVALID");
}
