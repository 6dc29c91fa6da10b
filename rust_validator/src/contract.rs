//! A tool contract (ToolSpec JSON) compiled once for observation checks.
use serde_json::{Map, Value};

use crate::error::BuildError;
use crate::normalize::{check_pointer, Normalization};
use crate::parse::Limits;
use crate::rules::Rule;
use crate::schema::{CompiledSchema, SchemaOptions};

/// Everything an observation check needs from a ToolSpec, compiled.
pub struct Contract {
    pub name: String,
    /// `None` when `response_schema` is empty (`{}` or `true`): nothing to check.
    pub schema: Option<CompiledSchema>,
    pub rules: Vec<Rule>,
    /// Audit names of the rules (`rule:<name>`), precomputed.
    pub rule_checks: Vec<String>,
    /// Every rule in one array expression (one evaluation per check), see [`crate::rules`].
    pub rules_combined: Option<datalogic_rs::Logic>,
    /// What the rules can read (`None` = everything), see [`crate::project`].
    pub rule_paths: Option<Vec<Vec<String>>>,
    /// Native forms of all rules when every rule has one (see [`crate::native_rules`]).
    pub rule_natives: Option<Vec<crate::native_rules::Native>>,
    pub allowed_status: Vec<i64>,
    pub required: Vec<String>,
    pub blacklist: Vec<(String, Vec<Value>)>,
    /// (output name, pointer)
    pub extract: Vec<(String, String)>,
    pub normalization: Normalization,
    pub timeout_ms: f64,
    /// Plan expectations: pointer → allowed values (consistency check).
    pub expected: Vec<(String, Vec<Value>)>,
    pub limits: Limits,
    /// The fast path for documents that pass every check (see [`crate::fast`]).
    pub fast: Option<crate::fast::observe::FastObservation>,
}

fn obj<'a>(spec: &'a Map<String, Value>, key: &str) -> Result<Option<&'a Map<String, Value>>, BuildError> {
    match spec.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(BuildError::new(key, "must be an object")),
    }
}

fn arr<'a>(spec: &'a Map<String, Value>, key: &str) -> Result<&'a [Value], BuildError> {
    match spec.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(BuildError::new(key, "must be an array")),
    }
}

/// Read a `{pointer: [values]}` map (blacklist, expected).
pub fn pointer_values(m: Option<&Map<String, Value>>, loc: &str) -> Result<Vec<(String, Vec<Value>)>, BuildError> {
    let mut out = Vec::new();
    for (p, vals) in m.into_iter().flatten() {
        check_pointer(p, loc)?;
        let vals = vals
            .as_array()
            .ok_or_else(|| BuildError::new(format!("{loc}/{p}"), "must be an array of values"))?;
        out.push((p.clone(), vals.clone()));
    }
    Ok(out)
}

impl Contract {
    /// Compile a ToolSpec (as produced by `ToolSpec.model_dump(mode="json")`).
    pub fn from_spec(spec: &Value, expected: Option<&Value>, schema_opts: &SchemaOptions, limits: Limits)
        -> Result<Self, BuildError> {
        let spec = spec.as_object().ok_or_else(|| BuildError::new("", "a tool contract must be an object"))?;
        let name = match spec.get("name") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(BuildError::new("name", "a tool contract needs a string 'name'")),
        };
        let schema = match spec.get("response_schema") {
            None | Some(Value::Null) | Some(Value::Bool(true)) => None,
            Some(Value::Object(m)) if m.is_empty() => None,
            Some(s) => Some(CompiledSchema::new(s, schema_opts).map_err(|e| BuildError::new("response_schema", e.message))?),
        };
        let mut rules = Vec::new();
        let rule_list = arr(spec, "observation_rules")?;
        let rule_paths = crate::project::referenced_paths(rule_list.iter().filter_map(|r| r.get("logic")));
        for (i, r) in rule_list.iter().enumerate() {
            let loc = format!("observation_rules/{i}");
            let name = r.get("name").and_then(Value::as_str).unwrap_or("");
            let name = if name.is_empty() { format!("rule_{i}") } else { name.to_owned() };
            let logic = r.get("logic").ok_or_else(|| BuildError::new(&loc, "a rule needs 'logic'"))?;
            let message = r.get("message").and_then(Value::as_str).unwrap_or("");
            rules.push(Rule::compile(&name, logic, message, &loc)?);
        }
        let logics: Vec<Value> = rule_list.iter().filter_map(|r| r.get("logic").cloned()).collect();
        let rules_combined = if logics.len() == rules.len() { crate::rules::compile_all(&logics) } else { None };
        let rule_natives = if logics.len() == rules.len() && !logics.is_empty() {
            crate::native_rules::compile_all(&logics)
        } else {
            None
        };
        let rule_checks = rules.iter().map(|r| format!("rule:{}", r.name)).collect();
        let allowed_status = match spec.get("allowed_status_codes") {
            None | Some(Value::Null) => vec![200],
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_i64().ok_or_else(|| BuildError::new("allowed_status_codes", "must be integers")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(BuildError::new("allowed_status_codes", "must be an array")),
        };
        let mut required = Vec::new();
        for p in arr(spec, "required_fields")? {
            let p = p.as_str().ok_or_else(|| BuildError::new("required_fields", "must be JSON pointers"))?;
            check_pointer(p, "required_fields")?;
            required.push(p.to_owned());
        }
        let blacklist = pointer_values(obj(spec, "blacklist")?, "blacklist")?;
        let mut extract = Vec::new();
        for (out, p) in obj(spec, "extract")?.into_iter().flatten() {
            let p = p.as_str().ok_or_else(|| BuildError::new("extract", "values must be JSON pointers"))?;
            check_pointer(p, "extract")?;
            extract.push((out.clone(), p.to_owned()));
        }
        let normalization = Normalization::from_json(spec.get("normalization"))?;
        let timeout_ms = match spec.get("timeout_ms") {
            None | Some(Value::Null) => 5000.0,
            Some(v) => v
                .as_f64()
                .filter(|t| *t > 0.0)
                .ok_or_else(|| BuildError::new("timeout_ms", "must be a positive number"))?,
        };
        let expected = match expected {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(m)) => pointer_values(Some(m), "expected")?,
            Some(_) => return Err(BuildError::new("expected", "must be an object {pointer: [values]}")),
        };
        let mut c = Self {
            name, schema, rules, rule_checks, rules_combined, rule_paths, rule_natives, allowed_status, required, blacklist, extract,
            normalization, timeout_ms, expected, limits, fast: None,
        };
        c.fast = crate::fast::observe::FastObservation::compile(&c, spec.get("response_schema"), schema_opts);
        Ok(c)
    }
}
