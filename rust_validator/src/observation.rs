//! The observation check: one call runs the hard contract checks (status code, latency bound,
//! parseable body, response schema, required fields, blacklist, JsonLogic rules), the optional
//! soft score and the consistency check against what the plan expected, then extracts outputs
//! and computes the confidence (hard 0.6, soft 0.3, consistency 0.1; any hard failure → 0).
//!
//! Without a soft score the soft weight is left out and the rest renormalized:
//! `confidence = (0.6 + 0.1 * consistency) / 0.7` (so a clean observation scores 1.0 and one the
//! plan did not foresee scores 0.857).
//!
//! Expectations (`expected`: pointer → allowed values) must be present and one of the values; a
//! list that includes `null` also accepts the pointer being absent (the loop passes each resolved
//! argument a tool may echo that way: if it comes back, it must come back unchanged).
use serde_json::Value;

use crate::contract::Contract;
use crate::error::{InputError, InputErrorKind};
use crate::parse::parse_bytes;
use crate::pointer::lookup;
use crate::schema::SchemaError;

/// Error types (the `ErrorType` enum of `tao/contracts/action.py`) an observation can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    ToolTimeout,
    ToolTransient,
    ToolClientError,
    ToolSchemaViolation,
    ToolMalformedResponse,
    RuleViolation,
    RateLimited,
    ObservationInconsistent,
    /// Carried over from the action's `error_info` (any ErrorType string).
    Reported,
}

impl ErrorType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolTimeout => "TOOL_TIMEOUT",
            Self::ToolTransient => "TOOL_TRANSIENT",
            Self::ToolClientError => "TOOL_CLIENT_ERROR",
            Self::ToolSchemaViolation => "TOOL_SCHEMA_VIOLATION",
            Self::ToolMalformedResponse => "TOOL_MALFORMED_RESPONSE",
            Self::RuleViolation => "RULE_VIOLATION",
            Self::RateLimited => "RATE_LIMITED",
            Self::ObservationInconsistent => "OBSERVATION_INCONSISTENT",
            Self::Reported => "TOOL_UNKNOWN",
        }
    }
}

/// The error type a disallowed HTTP status means.
pub fn status_error(code: i64) -> ErrorType {
    match code {
        408 | 504 => ErrorType::ToolTimeout,
        429 => ErrorType::RateLimited,
        500..=599 => ErrorType::ToolTransient,
        400..=499 => ErrorType::ToolClientError,
        _ => ErrorType::ToolSchemaViolation,
    }
}

/// One audit-trail entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Audit<'c> {
    pub check: &'c str,
    pub passed: bool,
    pub detail: String,
}

/// The result of a check (converted to `ObservationResult` by the bindings).
#[derive(Debug, Clone, PartialEq)]
pub struct Observation<'c> {
    pub valid: bool,
    pub error_type: Option<ErrorType>,
    /// The literal error type when carried over from `error_info`.
    pub reported_error: Option<String>,
    pub extracted: Vec<(&'c str, Value)>,
    pub confidence: f64,
    pub audit: Vec<Audit<'c>>,
    pub schema_errors: Vec<SchemaError>,
    pub normalized: Vec<String>,
    /// Unit conversions done by normalization: (pointer, raw value, conversion).
    pub conversions: Vec<(String, Value, crate::units::Conversion)>,
    /// Values that did not convert to their declared unit: (pointer, raw value, error).
    pub unit_errors: Vec<(String, Value, crate::units::UnitError)>,
    pub missing_extract: Vec<&'c str>,
}

impl Observation<'_> {
    pub fn error_type_str(&self) -> Option<&str> {
        self.reported_error.as_deref().or(self.error_type.map(ErrorType::as_str))
    }
}

/// The confidence of an observation that passed every hard check (`consistency` is 1 or 0).
pub(crate) fn confidence(soft: Option<f64>, consistency: f64) -> f64 {
    let c = match soft {
        Some(s) => 0.6 + 0.3 * s.clamp(0.0, 1.0) + 0.1 * consistency,
        None => (0.6 + 0.1 * consistency) / 0.7,
    };
    c.clamp(0.0, 1.0)
}

/// Maximum number of schema errors kept in `details`.
pub const MAX_SCHEMA_ERRORS: usize = 20;

fn shape(pointer: &str, reason: &str) -> InputError {
    InputError::new(InputErrorKind::Shape, pointer, reason)
}

/// `/t: "72 °F" → 22.2222222222 degC; /h: 65 (assumed percent)`.
fn conversions_detail(conversions: &[(String, Value, crate::units::Conversion)]) -> String {
    let parts: Vec<String> = conversions
        .iter()
        .map(|(p, raw, c)| match c.from {
            Some(_) => format!("{p}: {raw} → {} {}", c.value, c.to.id()),
            None => format!("{p}: {raw} (no unit written; read as {})", c.to.id()),
        })
        .collect();
    parts.join("; ")
}

/// `/x: unknown_unit: "3 parsecs": unknown unit "parsecs"`.
fn unit_errors_detail(errors: &[(String, Value, crate::units::UnitError)]) -> String {
    let parts: Vec<String> = errors.iter().map(|(p, _, e)| format!("{p}: {e}")).collect();
    parts.join("; ")
}

impl Contract {
    /// Parse ActionResult JSON bytes and check them.
    pub fn check_bytes(&self, bytes: &[u8], soft: Option<f64>) -> Result<Observation<'_>, InputError> {
        if let Some(fast) = &self.fast {
            if bytes.len() <= self.limits.max_bytes {
                if let Some(obs) = std::str::from_utf8(bytes).ok().and_then(|t| fast.check(self, t, soft)) {
                    return Ok(obs);
                }
            }
        }
        self.check_full(bytes, soft)
    }

    /// [`Self::check_bytes`] without the fast path (bounded parse, then the checks on the tree).
    pub fn check_full(&self, bytes: &[u8], soft: Option<f64>) -> Result<Observation<'_>, InputError> {
        self.check_value(parse_bytes(bytes, &self.limits)?, soft)
    }

    /// Check an ActionResult value (taken by value: normalization edits its `parsed_data`).
    pub fn check_value(&self, action: Value, soft: Option<f64>) -> Result<Observation<'_>, InputError> {
        self.check_value_expecting(action, soft, &self.expected)
    }

    /// [`Self::check_value`] against per-call expectations instead of the compiled ones (the loop's
    /// echoed arguments vary per call; compiling a contract per call would cost far more).
    pub fn check_value_expecting(&self, action: Value, soft: Option<f64>, expected: &[(String, Vec<Value>)])
        -> Result<Observation<'_>, InputError> {
        let Value::Object(mut action) = action else {
            return Err(shape("", "an action result must be a JSON object"));
        };
        let status = match action.get("status_code") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_i64().ok_or_else(|| shape("/status_code", "must be an integer or null"))?),
        };
        let latency = match action.get("response_time_ms") {
            None | Some(Value::Null) => 0.0,
            Some(v) => v.as_f64().ok_or_else(|| shape("/response_time_ms", "must be a number"))?,
        };
        let mut data = action.get_mut("parsed_data").map(Value::take).unwrap_or(Value::Null);
        let mut obs = Observation {
            valid: true, error_type: None, reported_error: None, extracted: Vec::new(), confidence: 0.0,
            audit: Vec::with_capacity(6 + self.rules.len()), schema_errors: Vec::new(),
            normalized: Vec::new(), conversions: Vec::new(), unit_errors: Vec::new(), missing_extract: Vec::new(),
        };
        let fail = |obs: &mut Observation<'_>, t: ErrorType| {
            if obs.valid {
                obs.valid = false;
                obs.error_type = Some(t);
            }
        };

        // 0. An error the executor already reported: nothing to check against the contract.
        if let Some(info) = action.get("error_info").filter(|v| !v.is_null()) {
            let et = info.get("error_type").and_then(Value::as_str).unwrap_or("TOOL_UNKNOWN");
            let msg = info.get("message").and_then(Value::as_str).unwrap_or("");
            obs.valid = false;
            obs.error_type = Some(ErrorType::Reported);
            obs.reported_error = Some(et.to_owned());
            obs.audit.push(Audit { check: "error_info", passed: false, detail: format!("{et}: {msg}") });
            return Ok(obs);
        }

        // 1. Status code.
        match status {
            None => obs.audit.push(Audit { check: "status_code", passed: true, detail: "no status code".into() }),
            Some(c) if self.allowed_status.contains(&c) => {
                obs.audit.push(Audit { check: "status_code", passed: true, detail: String::new() })
            }
            Some(c) => {
                fail(&mut obs, status_error(c));
                let detail = format!("status {c} not in {:?}", self.allowed_status);
                obs.audit.push(Audit { check: "status_code", passed: false, detail });
            }
        }

        // 2. Latency bound.
        let bound = self.timeout_ms * 1.5;
        if latency < bound {
            obs.audit.push(Audit { check: "latency", passed: true, detail: String::new() });
        } else {
            fail(&mut obs, ErrorType::ToolTimeout);
            let detail = format!("{latency} ms >= {bound} ms (1.5 x timeout)");
            obs.audit.push(Audit { check: "latency", passed: false, detail });
        }

        // 3. A body that did not parse.
        let raw_present = matches!(action.get("original_response"), Some(Value::String(s)) if !s.trim().is_empty());
        if data.is_null() && raw_present {
            fail(&mut obs, ErrorType::ToolMalformedResponse);
            let detail = "parsed_data is null but the tool returned a body".to_owned();
            obs.audit.push(Audit { check: "parse", passed: false, detail });
        }

        // 4. Normalization (recorded in details); declared units are a check ("units"): a value
        //    that does not convert to its unit fails it (it is never silently stripped).
        if !self.normalization.is_empty() {
            let report = self.normalization.apply(&mut data);
            obs.normalized = report.changed;
            if !self.normalization.units.is_empty() {
                let passed = report.errors.is_empty();
                let detail = if passed { conversions_detail(&report.conversions) } else { unit_errors_detail(&report.errors) };
                if !passed {
                    fail(&mut obs, ErrorType::ToolSchemaViolation);
                }
                obs.audit.push(Audit { check: "units", passed, detail });
            }
            obs.conversions = report.conversions;
            obs.unit_errors = report.errors;
        }

        // 5. Response schema.
        if let Some(schema) = &self.schema {
            if schema.is_valid(&data) {
                obs.audit.push(Audit { check: "schema", passed: true, detail: String::new() });
            } else {
                fail(&mut obs, ErrorType::ToolSchemaViolation);
                obs.schema_errors = schema.errors(&data, MAX_SCHEMA_ERRORS);
                let detail = obs.schema_errors.first().map_or_else(String::new, |e| {
                    format!("{} error(s); first at '{}': {}", obs.schema_errors.len(), e.path, e.message)
                });
                obs.audit.push(Audit { check: "schema", passed: false, detail });
            }
        }

        // 6. Required non-null fields.
        if !self.required.is_empty() {
            let missing: Vec<&str> = self
                .required
                .iter()
                .filter(|p| lookup(&data, p).is_none_or(Value::is_null))
                .map(String::as_str)
                .collect();
            if missing.is_empty() {
                obs.audit.push(Audit { check: "required_fields", passed: true, detail: String::new() });
            } else {
                fail(&mut obs, ErrorType::ToolSchemaViolation);
                let detail = format!("missing or null: {}", missing.join(", "));
                obs.audit.push(Audit { check: "required_fields", passed: false, detail });
            }
        }

        // 7. Blacklisted values.
        if !self.blacklist.is_empty() {
            let hit = self.blacklist.iter().find_map(|(p, bad)| {
                lookup(&data, p).filter(|v| bad.contains(v)).map(|v| format!("{p} = {v}"))
            });
            match hit {
                None => obs.audit.push(Audit { check: "blacklist", passed: true, detail: String::new() }),
                Some(detail) => {
                    fail(&mut obs, ErrorType::RuleViolation);
                    obs.audit.push(Audit { check: "blacklist", passed: false, detail });
                }
            }
        }

        // 8. JsonLogic rules on {"status_code", "response_time_ms", "data"} (data converted once).
        if !self.rules.is_empty() {
            let ms = action.get("response_time_ms").cloned().unwrap_or(Value::Null);
            let mut outcomes = Vec::with_capacity(self.rules.len());
            let mut native = Vec::new();
            let decided = self.rule_natives.as_deref().is_some_and(|n| {
                let status_v = action.get("status_code").filter(|v| !v.is_null());
                crate::native_rules::eval_all(n, status_v, &ms, &data, &mut native)
            });
            if decided {
                outcomes.extend(native.into_iter().map(|(i, b)| (i, Ok(b))));
            } else {
                crate::rules::eval_observation(&self.rules, self.rules_combined.as_ref(), self.rule_paths.as_deref(), status, &ms, &data, |i, r| outcomes.push((i, r)));
            }
            for (i, r) in outcomes {
                let (rule, check) = (&self.rules[i], self.rule_checks[i].as_str());
                match r {
                    Ok(true) => obs.audit.push(Audit { check, passed: true, detail: String::new() }),
                    Ok(false) => {
                        fail(&mut obs, ErrorType::RuleViolation);
                        let detail = if rule.message.is_empty() { "rule is false".into() } else { rule.message.clone() };
                        obs.audit.push(Audit { check, passed: false, detail });
                    }
                    Err(e) => {
                        fail(&mut obs, ErrorType::RuleViolation);
                        obs.audit.push(Audit { check, passed: false, detail: format!("rule error: {e}") });
                    }
                }
            }
        }
        let hard_ok = obs.valid;

        // 9. Consistency with what the plan expected. An expectation whose allowed values include
        //    null also accepts an absent value (an echo the tool may leave out); the fast path
        //    answers only when every expected value is present, so absent ones are decided here.
        let mut consistent = true;
        if !expected.is_empty() {
            let off = expected.iter().find_map(|(p, allowed)| match lookup(&data, p) {
                Some(v) if allowed.contains(v) => None,
                Some(v) => Some(format!("{p} = {v} not in {}", Value::Array(allowed.clone()))),
                None if allowed.iter().any(Value::is_null) => None,
                None => Some(format!("{p} is missing")),
            });
            match off {
                None => obs.audit.push(Audit { check: "consistency", passed: true, detail: String::new() }),
                Some(detail) => {
                    consistent = false;
                    fail(&mut obs, ErrorType::ObservationInconsistent);
                    obs.audit.push(Audit { check: "consistency", passed: false, detail });
                }
            }
        }

        // 10. Confidence and extraction (never from a hard failure).
        let cons = if consistent { 1.0 } else { 0.0 };
        obs.confidence = if hard_ok { confidence(soft, cons) } else { 0.0 };
        if hard_ok {
            obs.extracted.reserve(self.extract.len());
            for (out, p) in &self.extract {
                match lookup(&data, p) {
                    Some(v) => obs.extracted.push((out.as_str(), v.clone())),
                    None => obs.missing_extract.push(out.as_str()),
                }
            }
        }
        Ok(obs)
    }
}
