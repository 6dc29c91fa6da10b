//! Declarative normalization of a tool's parsed data (contract `normalization`):
//! unit conversion to the unit the contract declares (`units`, see [`crate::units`]: `"72 °F"` →
//! 22.2222 for `degC`, a typed failure for a unit that does not convert), the deprecated
//! `strip_units` (`"65%"` → 65.0: the unit is dropped, kept for contracts that declare none),
//! enum mapping to snake_case canonical values, and key renames. Targets are JSON pointers; a
//! pointer that does not resolve (or holds null) is skipped (the schema and required-field checks
//! report missing data, not normalization).
use serde_json::Value;

use crate::error::BuildError;
use crate::units::{normalize_value, Conversion, Unit, UnitError};

/// The compiled `normalization` section of a contract.
#[derive(Debug, Clone, Default)]
pub struct Normalization {
    /// pointer → declared unit.
    pub units: Vec<(String, Unit)>,
    /// A bare number (no unit written) is a failure instead of being read in the declared unit.
    pub require_unit: bool,
    /// Deprecated: pointers whose unit is dropped (only where `units` declares none).
    pub strip_units: Vec<String>,
    /// pointer → [(raw, canonical)]
    pub enum_map: Vec<(String, Vec<(String, String)>)>,
    /// pointer → new key name
    pub rename: Vec<(String, String)>,
}

impl Normalization {
    /// Read the ToolSpec `normalization` object (absent or null = nothing to do).
    pub fn from_json(v: Option<&Value>) -> Result<Self, BuildError> {
        let mut out = Self::default();
        let Some(obj) = v.and_then(Value::as_object) else { return Ok(out) };
        if let Some(map) = obj.get("units").and_then(Value::as_object) {
            for (p, unit) in map {
                check_pointer(p, "normalization/units")?;
                let u = unit.as_str().and_then(Unit::parse).ok_or_else(|| {
                    BuildError::new(format!("normalization/units/{p}"), format!("{unit} is not a unit this validator converts"))
                })?;
                out.units.push((p.clone(), u));
            }
        }
        match obj.get("require_unit") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => out.require_unit = *b,
            Some(_) => return Err(BuildError::new("normalization/require_unit", "must be a boolean")),
        }
        if let Some(list) = obj.get("strip_units").and_then(Value::as_array) {
            for p in list {
                out.strip_units.push(pointer(p, "normalization/strip_units")?);
            }
        }
        if let Some(map) = obj.get("enum_map").and_then(Value::as_object) {
            for (p, table) in map {
                check_pointer(p, "normalization/enum_map")?;
                let table = table
                    .as_object()
                    .ok_or_else(|| BuildError::new("normalization/enum_map", "values must be objects"))?;
                let pairs = table
                    .iter()
                    .map(|(raw, canon)| match canon.as_str() {
                        Some(c) => Ok((raw.clone(), c.to_owned())),
                        None => Err(BuildError::new("normalization/enum_map", "canonical values must be strings")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                out.enum_map.push((p.clone(), pairs));
            }
        }
        if let Some(map) = obj.get("rename").and_then(Value::as_object) {
            for (p, name) in map {
                check_pointer(p, "normalization/rename")?;
                let name = name
                    .as_str()
                    .ok_or_else(|| BuildError::new("normalization/rename", "new names must be strings"))?;
                out.rename.push((p.clone(), name.to_owned()));
            }
        }
        Ok(out)
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty() && self.strip_units.is_empty() && self.enum_map.is_empty() && self.rename.is_empty()
    }

    /// Apply in order: convert units, strip units, map enums, rename keys.
    pub fn apply(&self, data: &mut Value) -> Report {
        let mut report = Report::default();
        let changed = &mut report.changed;
        for (p, unit) in &self.units {
            let Some(v) = data.pointer_mut(p).filter(|v| !v.is_null()) else { continue };
            match normalize_value(v, *unit, self.require_unit) {
                Ok(c) => {
                    let Some(num) = serde_json::Number::from_f64(c.value) else { continue };
                    let raw = std::mem::replace(v, Value::Number(num));
                    changed.push(p.clone());
                    report.conversions.push((p.clone(), raw, c));
                }
                Err(e) => report.errors.push((p.clone(), v.clone(), e)),
            }
        }
        for p in &self.strip_units {
            if self.units.iter().any(|(q, _)| q == p) {
                continue;
            }
            if let Some(v) = data.pointer_mut(p) {
                if let Some(n) = v.as_str().and_then(strip_unit) {
                    if let Some(num) = serde_json::Number::from_f64(n) {
                        *v = Value::Number(num);
                        changed.push(p.clone());
                    }
                }
            }
        }
        for (p, table) in &self.enum_map {
            if let Some(v) = data.pointer_mut(p) {
                if let Some(s) = v.as_str() {
                    let canon = table
                        .iter()
                        .find(|(raw, _)| raw == s)
                        .map(|(_, c)| c.clone())
                        .unwrap_or_else(|| snake_case(s));
                    if canon != s {
                        *v = Value::String(canon);
                        changed.push(p.clone());
                    }
                }
            }
        }
        for (p, new_name) in &self.rename {
            let (parent, key) = split_last(p);
            if let Some(Value::Object(obj)) = data.pointer_mut(&parent) {
                if let Some(v) = obj.shift_remove(&key) {
                    obj.insert(new_name.clone(), v);
                    changed.push(p.clone());
                }
            }
        }
        report
    }
}

/// What [`Normalization::apply`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Pointers whose value changed (all kinds of normalization).
    pub changed: Vec<String>,
    /// Unit conversions: (pointer, the raw value, what was done).
    pub conversions: Vec<(String, Value, Conversion)>,
    /// Values that could not be normalized to their declared unit (left unchanged).
    pub errors: Vec<(String, Value, UnitError)>,
}

fn pointer(v: &Value, location: &str) -> Result<String, BuildError> {
    let p = v.as_str().ok_or_else(|| BuildError::new(location, "pointers must be strings"))?;
    check_pointer(p, location)?;
    Ok(p.to_owned())
}

/// A JSON pointer is `""` or starts with `/`.
pub fn check_pointer(p: &str, location: &str) -> Result<(), BuildError> {
    if p.is_empty() || p.starts_with('/') {
        Ok(())
    } else {
        Err(BuildError::new(location, format!("{p:?} is not a JSON pointer (must start with '/')")))
    }
}

/// Split `/a/b~1c` into (`/a`, `b/c`).
fn split_last(p: &str) -> (String, String) {
    match p.rfind('/') {
        Some(i) => (p[..i].to_owned(), p[i + 1..].replace("~1", "/").replace("~0", "~")),
        None => (String::new(), p.to_owned()),
    }
}

/// `"65%"` → 65.0, `"12 km/h"` → 12.0, `"-3.5°C"` → -3.5, `" 1,200 m"` → 1200.0.
/// The string must start with a number (after spaces); anything after it is the unit.
pub fn strip_unit(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'+' || b[end] == b'-') {
        end += 1;
    }
    let digits_start = end;
    let mut seen_dot = false;
    while end < b.len() {
        match b[end] {
            b'0'..=b'9' | b',' => end += 1,
            b'.' if !seen_dot => {
                seen_dot = true;
                end += 1;
            }
            _ => break,
        }
    }
    let num: String = t[..end].chars().filter(|&c| c != ',').collect();
    if end == digits_start || !num.bytes().any(|c| c.is_ascii_digit()) {
        return None;
    }
    num.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// `"In Transit"` → `in_transit`, `"OutForDelivery"` → `out_for_delivery`.
pub fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut prev_lower = false;
    for c in s.trim().chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            out.extend(c.to_lowercase());
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn units_enums_renames() {
        assert_eq!(strip_unit("65%"), Some(65.0));
        assert_eq!(strip_unit("12 km/h"), Some(12.0));
        assert_eq!(strip_unit("-3.5°C"), Some(-3.5));
        assert_eq!(strip_unit("1,200 m"), Some(1200.0));
        assert_eq!(strip_unit("km"), None);
        assert_eq!(snake_case("In Transit"), "in_transit");
        assert_eq!(snake_case("OutForDelivery"), "out_for_delivery");
        let n = Normalization::from_json(Some(&json!({
            "strip_units": ["/humidity", "/missing"],
            "enum_map": {"/status": {"In Transit": "in_transit"}},
            "rename": {"/temp": "temperature_c"}
        })))
        .unwrap();
        let mut d = json!({"humidity": "65%", "status": "In Transit", "temp": 21});
        let changed = n.apply(&mut d).changed;
        assert_eq!(d, json!({"humidity": 65.0, "status": "in_transit", "temperature_c": 21}));
        assert_eq!(changed.len(), 3);
    }

    #[test]
    fn declared_units_convert_or_fail() {
        let n = Normalization::from_json(Some(&json!({
            "units": {"/t": "degC", "/wind": "m/s", "/h": "percent", "/x": "m"},
            "strip_units": ["/h"],
        })))
        .unwrap();
        let mut d = json!({"t": "72 °F", "wind": "36 km/h", "h": "65%", "x": "3 parsecs"});
        let r = n.apply(&mut d);
        assert_eq!(d, json!({"t": 22.2222222222, "wind": 10.0, "h": 65.0, "x": "3 parsecs"}));
        assert_eq!(r.changed, ["/t", "/wind", "/h"]);
        assert_eq!(r.conversions.len(), 3);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].2.kind, crate::units::UnitErrorKind::UnknownUnit);
        assert!(Normalization::from_json(Some(&json!({"units": {"/t": "furlong"}}))).is_err());
        assert!(Normalization::from_json(Some(&json!({"require_unit": 1}))).is_err());
    }

    #[test]
    fn bad_config() {
        assert!(Normalization::from_json(Some(&json!({"strip_units": ["humidity"]}))).is_err());
        assert!(Normalization::from_json(Some(&json!({"rename": {"/a": 1}}))).is_err());
    }
}
