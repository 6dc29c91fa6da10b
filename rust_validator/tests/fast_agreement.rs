//! The fast path agrees with the full path: on generated schemas (the subset and beyond) and
//! documents, `FastSchema::accepts` is true only where the bounded parser accepts the text and
//! the `jsonschema` crate calls it valid, and it decides most valid cases; the fast observation
//! check returns exactly the full check's result. A small deterministic generator (no extra
//! dependency): the same seeds every run.
use rust_validator::contract::Contract;
use rust_validator::fast::observe::Outcome;
use rust_validator::fast::FastSchema;
use rust_validator::parse::{parse_bytes, Limits};
use rust_validator::schema::{CompiledSchema, SchemaOptions};
use serde_json::{json, Map, Value};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    /// Mostly the first (passing) choice, sometimes any.
    fn mostly<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        if self.below(3) == 0 { self.pick(xs) } else { &xs[0] }
    }
}

const KEYS: &[&str] = &["a", "b", "id", "status", "n", "é", "0"];
const STRS: &[&str] = &["", "x", "ab", "paid", "shipped", "2024-05-01", "2024-05-01T10:00:00Z", "é中", "12345"];

fn scalar(r: &mut Rng) -> Value {
    match r.below(9) {
        0 => Value::Null,
        1 => Value::Bool(r.below(2) == 0),
        2 => json!(r.below(20) as i64 - 5),
        3 => json!((r.below(2000) as f64 - 1000.0) / 8.0),
        4 => json!(1.0),
        5 => json!(9007199254740993_u64),
        _ => json!(*r.pick(STRS)),
    }
}

fn schema(r: &mut Rng, depth: u32) -> Value {
    if depth == 0 || r.below(5) == 0 {
        return match r.below(8) {
            0 => json!(true),
            1 => json!({"type": *r.pick(&["string", "number", "integer", "boolean", "null"])}),
            2 => json!({"enum": [scalar(r), scalar(r), scalar(r)]}),
            3 => json!({"const": scalar(r)}),
            4 => json!({"type": "string", "minLength": r.below(3), "maxLength": 1 + r.below(6)}),
            5 => json!({"type": "string", "pattern": *r.pick(&["^[0-9]+$", "^p", "a", "^\\d{4}-"])}),
            6 => json!({"format": *r.pick(&["date", "date-time", "email"])}),
            _ => {
                let lo = r.below(10) as f64 - 5.0;
                json!({"type": ["number", "null"], "minimum": lo, "exclusiveMaximum": lo + r.below(50) as f64 / 4.0})
            }
        };
    }
    match r.below(6) {
        0..=2 => {
            let mut props = Map::new();
            let mut req = Vec::new();
            for _ in 0..r.below(4) {
                let k = *r.pick(KEYS);
                props.insert(k.to_owned(), schema(r, depth - 1));
                if r.below(2) == 0 {
                    req.push(json!(k));
                }
            }
            let mut s = json!({"type": "object", "properties": props, "required": req});
            match r.below(4) {
                0 => s["additionalProperties"] = json!(false),
                1 => s["additionalProperties"] = schema(r, depth - 1),
                2 => s["maxProperties"] = json!(r.below(4)),
                _ => {}
            }
            s
        }
        3 => json!({"type": "array", "items": schema(r, depth - 1), "maxItems": r.below(5)}),
        4 => json!({"anyOf": [schema(r, depth - 1), schema(r, depth - 1)]}), // outside the subset
        _ => json!({"type": "array", "minItems": 1}),
    }
}

fn document(r: &mut Rng, depth: u32) -> Value {
    if depth == 0 || r.below(3) == 0 {
        return scalar(r);
    }
    if r.below(2) == 0 {
        let mut m = Map::new();
        for _ in 0..r.below(4) {
            m.insert((*r.pick(KEYS)).to_owned(), document(r, depth - 1));
        }
        Value::Object(m)
    } else {
        Value::Array((0..r.below(4)).map(|_| document(r, depth - 1)).collect())
    }
}

/// Texts of a document: compact, spaced, and a few near-misses of the JSON grammar.
fn texts(r: &mut Rng, doc: &Value) -> Vec<Vec<u8>> {
    let compact = serde_json::to_string(doc).unwrap();
    let pretty = serde_json::to_string_pretty(doc).unwrap();
    let mut out = vec![compact.clone().into_bytes(), pretty.into_bytes()];
    let mut bad = compact.into_bytes();
    if !bad.is_empty() {
        let i = r.below(bad.len() as u64) as usize;
        bad[i] = *r.pick(&[b',', b'"', b'\\', b'0', b'-', b'}', 0x01]);
        out.push(bad);
    }
    out
}

#[test]
fn schema_fast_path_agrees_with_jsonschema() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let limits = Limits::default();
    let (mut compiled, mut accepted, mut valid_total) = (0, 0, 0);
    for _ in 0..400 {
        let s = schema(&mut r, 3);
        for formats in [false, true] {
            let opts = SchemaOptions { validate_formats: formats, ..SchemaOptions::default() };
            let Ok(full) = CompiledSchema::new(&s, &opts) else { continue };
            let Some(fast) = FastSchema::compile(&s, &opts) else { continue };
            compiled += 1;
            for _ in 0..8 {
                let doc = document(&mut r, 3);
                for text in texts(&mut r, &doc) {
                    let truth = parse_bytes(&text, &limits).map(|v| full.is_valid(&v)).unwrap_or(false);
                    let fast_says = fast.accepts(&text, &limits);
                    assert!(!fast_says || truth, "fast accepted an invalid document\nschema {s}\ntext {}",
                            String::from_utf8_lossy(&text));
                    valid_total += usize::from(truth);
                    accepted += usize::from(fast_says);
                    assert_eq!(full.is_valid_bytes(&text, &limits).unwrap_or(false), truth);
                }
            }
        }
    }
    assert!(compiled > 300, "only {compiled} schemas compiled for the fast path");
    // The fast path must decide nearly every valid document of the subset (it bails only on
    // escapes in checked strings and numbers it cannot compare exactly).
    assert!(accepted * 10 >= valid_total * 9, "fast path decided {accepted} of {valid_total} valid documents");
}

fn order_contract(expected: Option<&Value>) -> Contract {
    let spec = json!({
        "name": "get_order_status",
        "response_schema": {"type": "object", "required": ["order_id", "status", "amount"],
            "properties": {"order_id": {"type": "string", "pattern": "^[0-9]{18}$"},
                "status": {"enum": ["pending", "paid", "shipped", "error"]}, "amount": {"type": "number", "minimum": 0},
                "items": {"type": "array", "items": {"type": "integer"}}}},
        "observation_rules": [
            {"name": "status_ok", "logic": {"==": [{"var": "status_code"}, 200]}},
            {"name": "fast_enough", "logic": {"<": [{"var": "response_time_ms"}, 3000]}},
            {"name": "status_known", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}},
            {"name": "amount_positive", "logic": {">=": [{"var": "data.amount"}, 0]}},
            {"name": "first_item", "logic": {">=": [{"var": "data.items.0"}, 1]}},
            {"name": "has_items", "logic": {"!!": [{"var": "data.items"}]}},
            {"name": "timed", "logic": {"!!": [{"var": "response_time_ms"}]}}],
        "allowed_status_codes": [200, 201],
        "required_fields": ["/order_id", "/items"],
        "blacklist": {"/order_id": ["000000000000000000"]},
        "extract": {"order_id": "/order_id", "status": "/status", "amount": "/amount", "first": "/items/0", "nope": "/x"},
        "timeout_ms": 2000,
    });
    Contract::from_spec(&spec, expected, &SchemaOptions::default(), Limits::default()).unwrap()
}

#[test]
fn observation_fast_path_equals_full_check() {
    let mut r = Rng(42);
    let expected = json!({"/status": ["paid", "shipped"]});
    let contracts = [order_contract(None), order_contract(Some(&expected))];
    assert!(contracts.iter().all(|c| c.fast.is_some()));
    let (mut fast_answers, mut total) = (0, 0);
    for _ in 0..3000 {
        let status = *r.mostly(&["paid", "shipped", "error", "pending", "p\\u0061id"]);
        let id = *r.mostly(&["202405011234567890", "000000000000000000", "1234", "20240501123456789\\u0030"]);
        let amount = *r.mostly(&["129.9", "0", "-1", "1e2", "\"12\"", "null", "12345678901234567890", "-0.0", "0.1e1",
                                 "129.90000000000001", "3.25", "1E400", "0.0000001"]);
        let items = *r.mostly(&["[1,2]", "[]", "[0]", "[2.0]", "null", "[\"a\"]"]);
        let code = *r.mostly(&["200", "201", "404", "null", "200.0", "2e2", "-200", "\"200\""]);
        let ms = *r.mostly(&["87.5", "2999", "3000", "null", "\"fast\"", "2999.99", "1e3", "true", "[]"]);
        let extra = *r.mostly(&["", ",\"error_info\":null", ",\"error_info\":{\"error_type\":\"X\"}", ",\"tool\":\"t\",\"tool\":\"u\"",
                                ",\"status_code\":200", ",\"parsed_data\":{}", ",\"t\\u00e9\":1", ",\"é\":\"中\""]);
        let text = format!(r#"{{"status_code":{code},"response_time_ms":{ms},"parsed_data":{{"order_id":"{id}","status":"{status}","amount":{amount},"items":{items}}}{extra}}}"#);
        for c in &contracts {
            let soft = if r.below(2) == 0 { None } else { Some(0.5) };
            total += 1;
            let full = c.check_full(text.as_bytes(), soft);
            if let Some(fast) = c.fast.as_ref().unwrap().check(c, &text, soft) {
                fast_answers += 1;
                assert_eq!(Ok(fast), full, "{text}");
            }
            assert_eq!(c.check_bytes(text.as_bytes(), soft), full, "{text}");
            // The lazy form the Python layer keeps: built on read, it is the same observation.
            match c.check_bytes_lazy(text.as_bytes(), soft) {
                Ok(Outcome::Passed(p)) => assert_eq!(Ok(p.observation(c, text.as_bytes()).unwrap()), full, "{text}"),
                Ok(Outcome::Full(o)) => assert_eq!(Ok(*o), full, "{text}"),
                Err(e) => assert_eq!(Err(e), full, "{text}"),
            }
        }
    }
    assert!(fast_answers > 100, "fast path answered {fast_answers} of {total}");
}
