//! Where the time of one observation check goes, stage by stage (Rust only, no Python): the
//! full path's parse into an owned tree, schema, rules and extraction, and the fast path's scan
//! and whole check. `python -m bench validator` prints these next to its ratios.
use std::hint::black_box;
use std::time::Instant;

use serde_json::Value;

use crate::contract::Contract;
use crate::parse::parse_bytes;
use crate::pointer::lookup;

/// Best of five rounds (the machine is shared: the minimum is the least disturbed).
fn per_call(iterations: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..iterations / 10 + 1 {
        f();
    }
    let n = (iterations / 5).max(1);
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Microseconds per call of each stage on `doc` (an ActionResult that passes every check).
pub fn stage_costs(c: &Contract, doc: &[u8], iterations: usize) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    let Ok(tree) = parse_bytes(doc, &c.limits) else { return out };
    let data = tree.get("parsed_data").cloned().unwrap_or(Value::Null);
    let status = tree.get("status_code").and_then(Value::as_i64);
    let status_v = tree.get("status_code").filter(|v| !v.is_null());
    let ms = tree.get("response_time_ms").cloned().unwrap_or(Value::Null);
    out.push(("full: parse into an owned serde_json tree", per_call(iterations, || {
        black_box(parse_bytes(black_box(doc), &c.limits).ok());
    })));
    if let Some(s) = &c.schema {
        out.push(("full: schema (jsonschema crate on the tree)", per_call(iterations, || {
            black_box(s.is_valid(black_box(&data)));
        })));
    }
    if !c.rules.is_empty() {
        out.push(("full: rules (native, else datalogic-rs)", per_call(iterations, || {
            let mut native = Vec::new();
            let decided = c.rule_natives.as_deref().is_some_and(|n| {
                crate::native_rules::eval_all(n, status_v, &ms, &data, &mut native)
            });
            if !decided {
                crate::rules::eval_observation(&c.rules, c.rules_combined.as_ref(), c.rule_paths.as_deref(), status,
                    &ms, &data, |i, r| { black_box((i, r.is_ok())); });
            }
            black_box(native);
        })));
    }
    out.push(("full: extraction (pointer lookups + clones)", per_call(iterations, || {
        let v: Vec<Option<Value>> = c.extract.iter().map(|(_, p)| lookup(&data, p).cloned()).collect();
        black_box(v);
    })));
    out.push(("full: whole check (parse + checks + result)", per_call(iterations, || {
        black_box(c.check_full(black_box(doc), None).ok());
    })));
    if let (Some(f), Ok(text)) = (&c.fast, std::str::from_utf8(doc)) {
        out.push(("fast: UTF-8 check", per_call(iterations, || {
            black_box(std::str::from_utf8(black_box(doc)).is_ok());
        })));
        out.push(("fast: scan (syntax + limits + schema + captures)", per_call(iterations, || {
            black_box(f.scan_only(c, black_box(text)));
        })));
        out.push(("fast: whole check (scan + checks + result)", per_call(iterations, || {
            black_box(c.check_bytes(black_box(doc), None).ok());
        })));
        out.push(("fast: lazy check (scan + checks, values left as ranges)", per_call(iterations, || {
            black_box(c.check_bytes_lazy(black_box(doc), None).ok());
        })));
    }
    out
}
