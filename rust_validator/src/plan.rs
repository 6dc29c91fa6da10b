//! Plan checks: ThoughtPlan schema, unique step ids, dependencies on earlier existing steps, no
//! cycles, known tools, arguments valid against each tool's args schema, and step references
//! (`"${t1.user_id}"`) naming a listed dependency. Returns every error with a JSON pointer and a
//! topological order of the steps.
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::error::BuildError;
use crate::schema::{CompiledSchema, SchemaOptions};

/// The exported ThoughtPlan schema (`schemas/thought_plan.json`), embedded at build time.
pub const THOUGHT_PLAN_SCHEMA: &str = include_str!("../../schemas/thought_plan.json");

/// `REF_PATTERN` of `tao/contracts/plan.py`, read from the embedded `contract_constants.json`.
static REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::error::contract_constant("ref_pattern")).expect("valid regex")
});

/// One plan error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    /// JSON pointer into the plan.
    pub path: String,
    /// Stable code: SCHEMA, DUPLICATE_STEP_ID, UNKNOWN_DEPENDENCY, LATER_DEPENDENCY,
    /// SELF_DEPENDENCY, CYCLE, UNKNOWN_TOOL, ARGUMENT_INVALID, REFERENCE_NOT_DEPENDENCY.
    pub code: &'static str,
    pub message: String,
}

/// The result of a plan check.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanReport {
    pub valid: bool,
    pub errors: Vec<PlanError>,
    /// Step ids in a topological order (empty when the dependency graph has a cycle or the plan
    /// is not schema-valid).
    pub order: Vec<String>,
}

/// A registry of tools compiled once: tool name → args validator.
pub struct PlanChecker {
    plan_schema: CompiledSchema,
    tools: HashMap<String, CompiledSchema>,
}

fn err(errors: &mut Vec<PlanError>, path: String, code: &'static str, message: String) {
    errors.push(PlanError { path, code, message });
}

/// Collect every string in `v` that is a step reference, with its pointer.
fn references<'v>(v: &'v Value, path: &mut String, out: &mut Vec<(String, &'v str)>) {
    match v {
        Value::String(s) if s.starts_with("${") => {
            if let Some(c) = REF.captures(s) {
                out.push((path.clone(), c.get(1).map_or("", |m| m.as_str())));
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                references(x, path, out);
                path.truncate(len);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                path.push('/');
                crate::error::escape_token(k, path);
                references(x, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn is_reference(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if REF.is_match(s))
}

impl PlanChecker {
    /// Compile the plan schema and every tool's args schema (`tools`: name → args JSON Schema).
    pub fn new(tools: &[(String, Value)], opts: &SchemaOptions) -> Result<Self, BuildError> {
        let plan: Value = serde_json::from_str(THOUGHT_PLAN_SCHEMA)
            .map_err(|e| BuildError::new("thought_plan.json", e.to_string()))?;
        let plan_schema = CompiledSchema::new(&plan, opts)?;
        let mut compiled = HashMap::with_capacity(tools.len());
        for (name, schema) in tools {
            let s = CompiledSchema::new(schema, opts).map_err(|e| BuildError::new(format!("tools/{name}"), e.message))?;
            compiled.insert(name.clone(), s);
        }
        Ok(Self { plan_schema, tools: compiled })
    }

    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Check one plan value.
    pub fn check(&self, plan: &Value) -> PlanReport {
        let mut errors = Vec::new();
        if !self.plan_schema.is_valid(plan) {
            for e in self.plan_schema.errors(plan, 20) {
                err(&mut errors, e.path, "SCHEMA", e.message);
            }
            return PlanReport { valid: false, errors, order: Vec::new() };
        }
        let steps = plan["steps"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let ids: Vec<&str> = steps.iter().map(|s| s["step_id"].as_str().unwrap_or("")).collect();
        let mut first_at: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if let Some(j) = first_at.get(id) {
                err(&mut errors, format!("/steps/{i}/step_id"), "DUPLICATE_STEP_ID",
                    format!("step id {id:?} already used by /steps/{j}"));
            } else {
                first_at.insert(id, i);
            }
        }
        // Dependency edges (by index) among known steps, for the cycle check and the order.
        let mut deps_of: Vec<Vec<usize>> = vec![Vec::new(); steps.len()];
        for (i, step) in steps.iter().enumerate() {
            let deps = step.get("dependencies").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            for (k, d) in deps.iter().enumerate() {
                let d = d.as_str().unwrap_or("");
                let path = format!("/steps/{i}/dependencies/{k}");
                match first_at.get(d) {
                    None => err(&mut errors, path, "UNKNOWN_DEPENDENCY", format!("no step {d:?} in the plan")),
                    Some(&j) if j == i => err(&mut errors, path, "SELF_DEPENDENCY", format!("step {d:?} depends on itself")),
                    Some(&j) => {
                        if j > i {
                            err(&mut errors, path, "LATER_DEPENDENCY",
                                format!("{d:?} is not an earlier step (dependencies must name earlier steps)"));
                        }
                        if !deps_of[i].contains(&j) {
                            deps_of[i].push(j);
                        }
                    }
                }
            }
            self.check_step(i, step, deps, &mut errors);
        }
        let order = match topological(&deps_of) {
            Some(idx) => idx.into_iter().map(|i| ids[i].to_owned()).collect(),
            None => {
                err(&mut errors, "/steps".into(), "CYCLE", "the dependency graph has a cycle".into());
                Vec::new()
            }
        };
        PlanReport { valid: errors.is_empty(), errors, order }
    }

    fn check_step(&self, i: usize, step: &Value, deps: &[Value], errors: &mut Vec<PlanError>) {
        let tool = step["tool"].as_str().unwrap_or("");
        let empty = Value::Object(serde_json::Map::new());
        let args = step.get("arguments").unwrap_or(&empty);
        // References must name a listed dependency.
        let mut refs = Vec::new();
        references(args, &mut String::new(), &mut refs);
        for (ptr, target) in refs {
            if !deps.iter().any(|d| d.as_str() == Some(target)) {
                err(errors, format!("/steps/{i}/arguments{ptr}"), "REFERENCE_NOT_DEPENDENCY",
                    format!("references {target:?}, which is not in this step's dependencies"));
            }
        }
        let Some(schema) = self.tools.get(tool) else {
            err(errors, format!("/steps/{i}/tool"), "UNKNOWN_TOOL", format!("no tool {tool:?} in the registry"));
            return;
        };
        if schema.is_valid(args) {
            return;
        }
        for e in schema.errors(args, 20) {
            // A step reference stands in for a value produced at run time: not type-checked.
            if !e.path.is_empty() && is_reference(args.pointer(&e.path)) {
                continue;
            }
            err(errors, format!("/steps/{i}/arguments{}", e.path), "ARGUMENT_INVALID",
                format!("{tool}: {}", e.message));
        }
    }
}

/// Kahn's algorithm, stable in listing order; `None` on a cycle.
fn topological(deps_of: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = deps_of.len();
    let mut remaining: Vec<usize> = deps_of.iter().map(Vec::len).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let next = (0..n).find(|&i| !done[i] && remaining[i] == 0)?;
        done[next] = true;
        order.push(next);
        for (i, d) in deps_of.iter().enumerate() {
            if d.contains(&next) {
                remaining[i] -= 1;
            }
        }
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn checker() -> PlanChecker {
        let uid = json!({"type": "object", "additionalProperties": false, "required": ["user_id"],
                         "properties": {"user_id": {"type": "string", "pattern": "^U[0-9]{8}$"}}});
        let n = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        PlanChecker::new(&[("get_user".into(), uid), ("count".into(), n)], &SchemaOptions::default()).unwrap()
    }

    #[test]
    fn valid_plan_with_reference() {
        let plan = json!({"version": "1.0", "intent": "x_y", "steps": [
            {"step_id": "t1", "tool": "get_user", "arguments": {"user_id": "U12345678"}},
            {"step_id": "t2", "tool": "count", "arguments": {"n": "${t1.count}"}, "dependencies": ["t1"]}]});
        let r = checker().check(&plan);
        assert!(r.valid, "{:?}", r.errors);
        assert_eq!(r.order, ["t1", "t2"]);
    }

    #[test]
    fn reports_each_problem() {
        let plan = json!({"intent": "x_y", "steps": [
            {"step_id": "t1", "tool": "get_user", "arguments": {"user_id": "bad"}, "dependencies": ["t2"]},
            {"step_id": "t2", "tool": "nope", "dependencies": ["t1", "t9"]},
            {"step_id": "t2", "tool": "count", "arguments": {"n": "${t1.x}"}}]});
        let r = checker().check(&plan);
        let codes: Vec<_> = r.errors.iter().map(|e| (e.code, e.path.as_str())).collect();
        assert!(!r.valid);
        for want in [("DUPLICATE_STEP_ID", "/steps/2/step_id"), ("LATER_DEPENDENCY", "/steps/0/dependencies/0"),
                     ("ARGUMENT_INVALID", "/steps/0/arguments/user_id"), ("UNKNOWN_TOOL", "/steps/1/tool"),
                     ("UNKNOWN_DEPENDENCY", "/steps/1/dependencies/1"),
                     ("REFERENCE_NOT_DEPENDENCY", "/steps/2/arguments/n"), ("CYCLE", "/steps")] {
            assert!(codes.contains(&want), "{want:?} not in {codes:?}");
        }
        assert!(r.order.is_empty());
    }

    #[test]
    fn schema_errors_stop_early() {
        let r = checker().check(&json!({"intent": "x", "steps": []}));
        assert!(!r.valid && r.errors.iter().all(|e| e.code == "SCHEMA"));
    }
}
