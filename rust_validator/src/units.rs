//! Units that convert instead of vanishing: parse a value's unit and convert it to the unit a
//! contract declares (`normalization.units`), or fail with a typed [`UnitError`].
//!
//! Families (each converted through its base unit): temperature (K; °C/℃/C/摄氏度, °F/℉/F/华氏度),
//! speed (m/s; km/h/公里/小时, m/s/米/秒, mph, kn/节), length (m; km/公里, m/米, mi/英里, ft/英尺) and
//! ratio (1; %, ‰, 百分之…). A unit of another family, an unknown unit, a number without a unit
//! (when the contract requires one) or a value that is not a number are errors; nothing is ever
//! silently stripped.
use std::fmt;

/// The families a unit belongs to; only units of one family convert into each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Temperature,
    Speed,
    Length,
    Ratio,
}

/// A unit this module converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Celsius,
    Fahrenheit,
    Kelvin,
    MetrePerSecond,
    KilometrePerHour,
    MilePerHour,
    Knot,
    Metre,
    Kilometre,
    Mile,
    Foot,
    Percent,
    Permille,
}

use Unit::*;

/// Spellings (after whitespace is removed) → unit. Single letters are case-sensitive; every
/// other ASCII spelling is matched case-insensitively (see [`Unit::parse`]).
const SPELLINGS: &[(&str, Unit)] = &[
    ("°c", Celsius), ("℃", Celsius), ("C", Celsius), ("degc", Celsius), ("deg_c", Celsius), ("celsius", Celsius),
    ("degreecelsius", Celsius), ("degreescelsius", Celsius), ("摄氏度", Celsius), ("摄氏", Celsius),
    ("°f", Fahrenheit), ("℉", Fahrenheit), ("F", Fahrenheit), ("degf", Fahrenheit), ("deg_f", Fahrenheit),
    ("fahrenheit", Fahrenheit), ("degreefahrenheit", Fahrenheit), ("degreesfahrenheit", Fahrenheit),
    ("华氏度", Fahrenheit), ("华氏", Fahrenheit),
    ("K", Kelvin), ("kelvin", Kelvin), ("kelvins", Kelvin), ("开尔文", Kelvin), ("开", Kelvin),
    ("m/s", MetrePerSecond), ("mps", MetrePerSecond), ("meterspersecond", MetrePerSecond),
    ("metrespersecond", MetrePerSecond), ("m·s⁻¹", MetrePerSecond), ("米/秒", MetrePerSecond), ("米每秒", MetrePerSecond),
    ("km/h", KilometrePerHour), ("kmh", KilometrePerHour), ("kph", KilometrePerHour), ("km/hr", KilometrePerHour),
    ("kilometersperhour", KilometrePerHour), ("kilometresperhour", KilometrePerHour), ("公里/小时", KilometrePerHour),
    ("公里/时", KilometrePerHour), ("公里每小时", KilometrePerHour), ("千米/小时", KilometrePerHour),
    ("千米每小时", KilometrePerHour), ("km/小时", KilometrePerHour),
    ("mph", MilePerHour), ("mi/h", MilePerHour), ("milesperhour", MilePerHour), ("英里/小时", MilePerHour),
    ("英里每小时", MilePerHour),
    ("kn", Knot), ("kt", Knot), ("kts", Knot), ("knot", Knot), ("knots", Knot), ("节", Knot),
    ("m", Metre), ("meter", Metre), ("meters", Metre), ("metre", Metre), ("metres", Metre), ("米", Metre),
    ("km", Kilometre), ("kilometer", Kilometre), ("kilometers", Kilometre), ("kilometre", Kilometre),
    ("kilometres", Kilometre), ("公里", Kilometre), ("千米", Kilometre),
    ("mi", Mile), ("mile", Mile), ("miles", Mile), ("英里", Mile),
    ("ft", Foot), ("foot", Foot), ("feet", Foot), ("英尺", Foot),
    ("%", Percent), ("％", Percent), ("percent", Percent), ("pct", Percent), ("百分比", Percent),
    ("‰", Permille), ("permille", Permille), ("per_mille", Permille), ("千分比", Permille),
];

impl Unit {
    /// The contract spelling (`degC`, `m/s`, `percent`, ...), also the unit in audit entries.
    pub fn id(self) -> &'static str {
        match self {
            Celsius => "degC",
            Fahrenheit => "degF",
            Kelvin => "K",
            MetrePerSecond => "m/s",
            KilometrePerHour => "km/h",
            MilePerHour => "mph",
            Knot => "kn",
            Metre => "m",
            Kilometre => "km",
            Mile => "mi",
            Foot => "ft",
            Percent => "percent",
            Permille => "permille",
        }
    }

    pub fn family(self) -> Family {
        match self {
            Celsius | Fahrenheit | Kelvin => Family::Temperature,
            MetrePerSecond | KilometrePerHour | MilePerHour | Knot => Family::Speed,
            Metre | Kilometre | Mile | Foot => Family::Length,
            Percent | Permille => Family::Ratio,
        }
    }

    /// Recognize a unit spelling (whitespace inside is ignored: `"km / h"`, `"° C"`).
    pub fn parse(text: &str) -> Option<Unit> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return None;
        }
        // Single letters are case-sensitive (C, F, K, m); the rest are not ("KM/H", "Mph").
        if let Some(&(_, u)) = SPELLINGS.iter().find(|(s, _)| *s == compact) {
            return Some(u);
        }
        let lower = compact.to_lowercase();
        SPELLINGS.iter().find(|(s, _)| s.chars().count() > 1 && *s == lower).map(|&(_, u)| u)
    }

    /// `(scale, offset)` with `base = value * scale + offset` (K, m/s, m, 1).
    fn to_base(self) -> (f64, f64) {
        match self {
            Celsius => (1.0, 273.15),
            Fahrenheit => (5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0),
            Kelvin | MetrePerSecond | Metre => (1.0, 0.0),
            KilometrePerHour => (1.0 / 3.6, 0.0),
            MilePerHour => (0.44704, 0.0),
            Knot => (1852.0 / 3600.0, 0.0),
            Kilometre => (1000.0, 0.0),
            Mile => (1609.344, 0.0),
            Foot => (0.3048, 0.0),
            Percent => (0.01, 0.0),
            Permille => (0.001, 0.0),
        }
    }

    /// Convert `x` of this unit into `to` (same family), rounded to 12 significant digits so
    /// that round trips like 293.15 K → 20 °C do not come back as 19.999999999999972.
    pub fn convert(self, x: f64, to: Unit) -> f64 {
        if self == to {
            return x;
        }
        let (a, b) = self.to_base();
        let (c, d) = to.to_base();
        round12((x * a + b - d) / c)
    }
}

fn round12(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// Why a value could not be normalized to its declared unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitErrorKind {
    /// The text after the number is no unit we know (`"12 furlongs"`).
    UnknownUnit,
    /// A known unit of another family (`"12 km/h"` for a temperature).
    IncompatibleUnit,
    /// A bare number where the contract requires a unit (`require_unit`).
    MissingUnit,
    /// Not a number with a unit at all (`"windy"`, `true`, an object).
    NotANumber,
    /// A physically impossible value (a temperature below absolute zero).
    OutOfRange,
}

impl UnitErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownUnit => "unknown_unit",
            Self::IncompatibleUnit => "incompatible_unit",
            Self::MissingUnit => "missing_unit",
            Self::NotANumber => "not_a_number",
            Self::OutOfRange => "out_of_range",
        }
    }
}

/// A typed normalization failure of one value.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError {
    pub kind: UnitErrorKind,
    pub reason: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.reason)
    }
}

fn err(kind: UnitErrorKind, reason: String) -> UnitError {
    UnitError { kind, reason }
}

/// A value read as a number and the unit written with it (`None`: no unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub unit: Option<Unit>,
}

/// Split `"−3.5 °C"`, `"1,200 m"`, `"百分之65"`, `"65"` into a number and a unit.
pub fn parse_quantity(text: &str) -> Result<Quantity, UnitError> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("百分之") {
        let (value, tail) = leading_number(rest.trim_start()).ok_or_else(|| not_a_number(text))?;
        if !tail.trim().is_empty() {
            return Err(err(UnitErrorKind::UnknownUnit, format!("{text:?}: unexpected {:?} after the number", tail.trim())));
        }
        return Ok(Quantity { value, unit: Some(Percent) });
    }
    let (value, tail) = leading_number(t).ok_or_else(|| not_a_number(text))?;
    let tail = tail.trim();
    if tail.is_empty() {
        return Ok(Quantity { value, unit: None });
    }
    match Unit::parse(tail) {
        Some(unit) => Ok(Quantity { value, unit: Some(unit) }),
        None => Err(err(UnitErrorKind::UnknownUnit, format!("{text:?}: unknown unit {tail:?}"))),
    }
}

fn not_a_number(text: &str) -> UnitError {
    err(UnitErrorKind::NotANumber, format!("{text:?} does not start with a number"))
}

/// A leading decimal number (sign, digits with optional `,` thousands separators, fraction,
/// exponent; `−` U+2212 is a minus) and the rest of the text.
fn leading_number(t: &str) -> Option<(f64, &str)> {
    let (negative, body) = match t.strip_prefix('−').or_else(|| t.strip_prefix('-')) {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let b = body.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut num = String::with_capacity(b.len().min(32) + 1);
    if negative {
        num.push('-');
    }
    let (mut i, mut digits, mut dot) = (0, 0, false);
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                digits += 1;
                num.push(c as char);
            }
            // A thousands separator: exactly three digits follow ("1,200", not "1,5").
            b',' if digits > 0 && !dot && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4) => {}
            b'.' if !dot => {
                dot = true;
                num.push('.');
            }
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    // An exponent only when digits follow: "5e3", not "5 em" or "3e".
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if digit(i + 1 + sign) {
            num.push('e');
            num.push_str(&body[i + 1..i + 1 + sign]);
            i += 1 + sign;
            while digit(i) {
                num.push(b[i] as char);
                i += 1;
            }
        }
    }
    let value: f64 = num.parse().ok().filter(|v: &f64| v.is_finite())?;
    Some((value, &body[i..]))
}

/// What a successful normalization of one value did (for the audit trail).
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    pub value: f64,
    /// The unit the value was written in; `None` when it had none and the declared one was assumed.
    pub from: Option<Unit>,
    pub to: Unit,
}

/// Normalize one JSON value (a number, or a string with a number and a unit) to `to`.
pub fn normalize_value(v: &serde_json::Value, to: Unit, require_unit: bool) -> Result<Conversion, UnitError> {
    let q = match v {
        serde_json::Value::Number(n) => Quantity { value: n.as_f64().unwrap_or(f64::NAN), unit: None },
        serde_json::Value::String(s) => parse_quantity(s)?,
        other => return Err(err(UnitErrorKind::NotANumber, format!("{other} is not a number with a unit"))),
    };
    let from = match q.unit {
        None if require_unit => {
            return Err(err(UnitErrorKind::MissingUnit, format!("{v} has no unit (expected {})", to.id())));
        }
        None => to,
        Some(u) if u.family() != to.family() => {
            return Err(err(UnitErrorKind::IncompatibleUnit, format!("{v}: {} does not convert to {}", u.id(), to.id())));
        }
        Some(u) => u,
    };
    let value = from.convert(q.value, to);
    if to.family() == Family::Temperature && from.convert(q.value, Kelvin) < 0.0 {
        return Err(err(UnitErrorKind::OutOfRange, format!("{v} is below absolute zero")));
    }
    Ok(Conversion { value, from: q.unit, to })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conv(text: &str, to: &str) -> Result<f64, UnitErrorKind> {
        let to = Unit::parse(to).unwrap();
        normalize_value(&json!(text), to, false).map(|c| c.value).map_err(|e| e.kind)
    }

    #[test]
    fn families() {
        assert_eq!(conv("72 °F", "degC"), Ok(22.2222222222));
        assert_eq!(conv("20℃", "degF"), Ok(68.0));
        assert_eq!(conv("293.15 K", "degC"), Ok(20.0));
        assert_eq!(conv("25摄氏度", "K"), Ok(298.15));
        assert_eq!(conv("36 km/h", "m/s"), Ok(10.0));
        assert_eq!(conv("10 米/秒", "km/h"), Ok(36.0));
        assert_eq!(conv("10 kn", "km/h"), Ok(18.52));
        assert_eq!(conv("1 mi", "ft"), Ok(5280.0));
        assert_eq!(conv("1,200 m", "km"), Ok(1.2));
        assert_eq!(conv("3公里", "m"), Ok(3000.0));
        assert_eq!(conv("65%", "percent"), Ok(65.0));
        assert_eq!(conv("5‰", "percent"), Ok(0.5));
        assert_eq!(conv("百分之65", "percent"), Ok(65.0));
        assert_eq!(conv("−3.5 °C", "degC"), Ok(-3.5));
        assert_eq!(conv("1.5e3 m", "km"), Ok(1.5));
    }

    #[test]
    fn failures_are_typed() {
        assert_eq!(conv("12 furlongs", "m"), Err(UnitErrorKind::UnknownUnit));
        assert_eq!(conv("12 km/h", "degC"), Err(UnitErrorKind::IncompatibleUnit));
        assert_eq!(conv("windy", "m/s"), Err(UnitErrorKind::NotANumber));
        assert_eq!(conv("-300 °C", "K"), Err(UnitErrorKind::OutOfRange));
        assert_eq!(conv("12 c", "degC"), Err(UnitErrorKind::UnknownUnit)); // single letters are case-sensitive
        let to = Unit::parse("degC").unwrap();
        assert_eq!(normalize_value(&json!(21), to, true).unwrap_err().kind, UnitErrorKind::MissingUnit);
        assert_eq!(normalize_value(&json!("21"), to, true).unwrap_err().kind, UnitErrorKind::MissingUnit);
        assert_eq!(normalize_value(&json!(21), to, false).unwrap(), Conversion { value: 21.0, from: None, to });
        assert_eq!(normalize_value(&json!(true), to, false).unwrap_err().kind, UnitErrorKind::NotANumber);
    }

    #[test]
    fn spellings_are_unambiguous() {
        for (i, (a, _)) in SPELLINGS.iter().enumerate() {
            for (b, _) in &SPELLINGS[i + 1..] {
                let clash = a == b || (a.chars().count() > 1 && b.chars().count() > 1 && a.to_lowercase() == b.to_lowercase());
                assert!(!clash, "{a} / {b}");
            }
        }
    }
}
