//! Date-time format checks: the lenient mode used for observations.
//!
//! Strict RFC 3339 (`2024-05-01T10:00:00+08:00`, `...Z`) is what the `jsonschema` crate checks by
//! default. Tool results in the wild also send `2024-05-01 10:00:00`, `2024-05-01T10:00`,
//! `+0800` / `+08` offsets, lowercase `t`/`z`, or no offset at all; the lenient mode accepts
//! those, while still rejecting impossible dates and times (month 13, Feb 30, hour 24, ...).

/// Lenient date-time: `YYYY-MM-DD[T| ]HH:MM[:SS[.fraction]][Z|±HH[:MM]|±HHMM]`.
pub fn lenient_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 16 || !date(&b[..10]) {
        return false;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return false;
    }
    let rest = &b[11..];
    // HH:MM
    if rest.len() < 5 || rest[2] != b':' {
        return false;
    }
    let (Some(h), Some(m)) = (num(&rest[0..2]), num(&rest[3..5])) else { return false };
    if h > 23 || m > 59 {
        return false;
    }
    let mut i = 5;
    if i < rest.len() && rest[i] == b':' {
        let Some(sec) = rest.get(i + 1..i + 3).and_then(num) else { return false };
        if sec > 60 {
            return false;
        }
        i += 3;
        if i < rest.len() && (rest[i] == b'.' || rest[i] == b',') {
            let start = i + 1;
            i = start;
            while i < rest.len() && rest[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    offset(&rest[i..])
}

fn offset(b: &[u8]) -> bool {
    match b {
        [] | [b'Z'] | [b'z'] => true,
        [s, rest @ ..] if *s == b'+' || *s == b'-' => {
            let (hh, mm) = match rest {
                [h1, h2] => (num(&[*h1, *h2]), Some(0)),
                [h1, h2, m1, m2] => (num(&[*h1, *h2]), num(&[*m1, *m2])),
                [h1, h2, b':', m1, m2] => (num(&[*h1, *h2]), num(&[*m1, *m2])),
                _ => return false,
            };
            matches!((hh, mm), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// `YYYY-MM-DD` with a real calendar day.
pub fn date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (num(&b[0..4]), num(&b[5..7]), num(&b[8..10])) else {
        return false;
    };
    if !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= days
}

fn num(b: &[u8]) -> Option<u32> {
    let mut n = 0u32;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u32::from(c - b'0');
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::lenient_date_time as ok;

    #[test]
    fn accepts_common_forms() {
        for s in [
            "2024-05-01T10:00:00+08:00", "2024-05-01T10:00:00Z", "2024-05-01 10:00:00",
            "2024-05-01T10:00", "2024-05-01T10:00:00.123+0800", "2024-05-01t10:00:00z",
            "2024-02-29T00:00:00+08", "2024-05-01T10:00:00-05:30",
        ] {
            assert!(ok(s), "{s}");
        }
    }

    #[test]
    fn rejects_impossible_values() {
        for s in [
            "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z",
            "2024-05-01T10:60Z", "2024-05-01", "2024-05-01T10:00:00+8", "not a date",
            "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+24:00", "2024-05-01X10:00",
        ] {
            assert!(!ok(s), "{s}");
        }
    }
}
