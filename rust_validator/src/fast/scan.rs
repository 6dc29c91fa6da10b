//! One pass over JSON text that checks well-formedness, the parser limits and a compiled
//! [`Node`] at once, without building a tree, and records where chosen values are (the slots
//! of a plan, `super::plan`). At a key position it first compares the bytes in place with the
//! `"name":` of the key the schema lists next (documents usually follow one key order), which
//! skips the key scan and the lookup; anything else takes the general path.
//!
//! The scanner only ever *accepts* with certainty: a document it accepts is one the bounded
//! parser (`crate::parse`) accepts and the `jsonschema` crate calls valid. Anything else — a
//! schema violation, a syntax error, a limit, a number it cannot compare exactly, a key with an
//! escape sequence — is a [`Bail`], and the caller runs the full path, which gives the answer
//! (and its errors). Strictness mirrors serde_json: no control characters in strings, no lone
//! surrogates, no leading zeros, nothing after the root value. It reads bytes and validates
//! UTF-8 itself (only inside strings with non-ASCII bytes; anything else outside a string is a
//! syntax error), so an accepted text is valid UTF-8 without a separate pass over it.
use super::node::{Checks, Lit, Node, ARRAY, BOOL, EXACT, INTEGER, NULL, NUMBER, OBJECT, STRING};

/// The fast path gives up; the full path decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bail;

type R<T> = Result<T, Bail>;

/// Where a captured value is: a byte range of the text.
pub type Span = (u32, u32);

pub struct Scanner<'t, 'o> {
    b: &'t [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    pub spans: &'o mut [Option<Span>],
}

/// String equality without a `memcmp` call for the short keys of JSON objects.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 16 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    a == b
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is `"`, `\\` or below 0x20 (SWAR; may over-report after a hit).
#[inline]
fn special(w: u64) -> bool {
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    (zero(w ^ (LO * u64::from(b'"'))) | zero(w ^ (LO * u64::from(b'\\'))) | (w.wrapping_sub(LO * 0x20) & !w & HI)) != 0
}

#[inline]
fn ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

/// A number as the parser would store it.
#[derive(Clone, Copy)]
enum Num {
    /// An integer literal that fits u64 / i64.
    Int(i128),
    Float(f64),
    /// A decimal literal without exponent (so certainly finite) at this byte range, converted
    /// only if a check needs its value.
    Dec(u32, u32),
}

/// Powers of ten exactly representable as f64.
const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/// The correctly rounded f64 of a decimal literal `-?digits(.digits)?` with at most 15 digits
/// (Clinger's fast path: an exact integer divided by an exact power of ten rounds once, as a
/// correct parse does); `None` for anything else (use `str::parse`).
#[inline]
pub fn fast_f64(b: &[u8]) -> Option<f64> {
    let (neg, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let mut m: u64 = 0;
    let mut n = 0usize;
    let mut frac: Option<usize> = None;
    for (i, &c) in digits.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(c - b'0');
                n += 1;
            }
            b'.' if frac.is_none() => frac = Some(digits.len() - i - 1),
            _ => return None,
        }
    }
    if n == 0 || n > 15 {
        return None;
    }
    let x = m as f64 / POW10[frac.unwrap_or(0)];
    Some(if neg { -x } else { x })
}

impl<'t, 'o> Scanner<'t, 'o> {
    pub fn new(text: &'t [u8], max_depth: usize, spans: &'o mut [Option<Span>]) -> Self {
        Self { b: text, pos: 0, depth: 0, max_depth, spans }
    }

    /// Check the whole text: one value (valid against `node`), then only whitespace.
    pub fn document(&mut self, node: &Node) -> R<()> {
        self.value(node)?;
        self.skip_ws();
        if self.pos == self.b.len() { Ok(()) } else { Err(Bail) }
    }

    #[inline]
    fn skip_ws(&mut self) {
        while self.pos < self.b.len() && ws(self.b[self.pos]) {
            self.pos += 1;
        }
    }

    #[inline]
    fn peek(&self) -> R<u8> {
        self.b.get(self.pos).copied().ok_or(Bail)
    }

    #[inline]
    fn eat(&mut self, lit: &[u8]) -> R<()> {
        if self.b[self.pos..].starts_with(lit) {
            self.pos += lit.len();
            Ok(())
        } else {
            Err(Bail)
        }
    }

    fn value(&mut self, node: &Node) -> R<()> {
        self.skip_ws();
        let start = self.pos;
        let checks = match node {
            Node::Never => return Err(Bail),
            Node::Any => None,
            Node::Checks(c) => Some(&**c),
        };
        match self.peek()? {
            b'{' => self.object(checks)?,
            b'[' => self.array(checks)?,
            b'"' => {
                let (s, e, escaped, ascii) = self.string()?;
                if let Some(c) = checks {
                    if c.types & STRING == 0 {
                        return Err(Bail);
                    }
                    if c.string_needs {
                        if escaped {
                            return Err(Bail);
                        }
                        // Valid UTF-8: `string` has checked any non-ASCII content.
                        string_checks(c, &self.b[s..e], ascii)?;
                    }
                }
            }
            b't' => {
                self.eat(b"true")?;
                scalar(checks, BOOL, &Lit::Bool(true))?;
            }
            b'f' => {
                self.eat(b"false")?;
                scalar(checks, BOOL, &Lit::Bool(false))?;
            }
            b'n' => {
                self.eat(b"null")?;
                scalar(checks, NULL, &Lit::Null)?;
            }
            b'-' | b'0'..=b'9' => {
                let n = self.number()?;
                if let Some(c) = checks {
                    if c.number_needs {
                        number_checks(c, n, self.b)?;
                    }
                }
            }
            _ => return Err(Bail),
        }
        if let Some(slot) = checks.and_then(|c| c.slot) {
            self.spans[slot] = Some((start as u32, self.pos as u32));
        }
        Ok(())
    }

    /// The key at `pos` when it is `"name":` of key `hint` or the one after it (compared in
    /// place; the name needs no escape, so the bytes are the whole key).
    #[inline]
    fn predicted(&mut self, c: &Checks, hint: usize) -> Option<usize> {
        for i in hint..(hint + 2).min(c.keys.len()) {
            let q = &c.keys[i].quoted;
            if !q.is_empty() && prefix_at(self.b, self.pos, q) {
                self.pos += q.len();
                return Some(i);
            }
        }
        None
    }

    /// A string; returns the content range, whether it has escapes and whether it is all ASCII.
    /// Non-ASCII content is validated as UTF-8 here.
    #[inline]
    fn string(&mut self) -> R<(usize, usize, bool, bool)> {
        self.pos += 1;
        let s = self.pos;
        let mut escaped = false;
        let mut high = 0u64;
        let b = self.b;
        loop {
            // Eight bytes at a time while none is a quote, a backslash or a control character.
            while let Some(chunk) = b.get(self.pos..self.pos + 8) {
                let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                if special(w) {
                    break;
                }
                high |= w;
                self.pos += 8;
            }
            let c = *b.get(self.pos).ok_or(Bail)?;
            match c {
                b'"' => {
                    let e = self.pos;
                    self.pos += 1;
                    let ascii = high & HI == 0;
                    if !ascii && std::str::from_utf8(&b[s..e]).is_err() {
                        return Err(Bail);
                    }
                    return Ok((s, e, escaped, ascii));
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                0..=0x1f => return Err(Bail),
                _ => {
                    high |= u64::from(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// One escape sequence at `pos` (a backslash); lone surrogates are rejected as serde_json does.
    fn escape(&mut self) -> R<()> {
        let c = *self.b.get(self.pos + 1).ok_or(Bail)?;
        self.pos += 2;
        match c {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(()),
            b'u' => {
                let hi = self.hex4()?;
                if (0xDC00..0xE000).contains(&hi) {
                    return Err(Bail);
                }
                if (0xD800..0xDC00).contains(&hi) {
                    self.eat(b"\\u")?;
                    let lo = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(Bail);
                    }
                }
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    fn hex4(&mut self) -> R<u32> {
        let h = self.b.get(self.pos..self.pos + 4).ok_or(Bail)?;
        let mut v = 0u32;
        for &d in h {
            v = v * 16 + (d as char).to_digit(16).ok_or(Bail)?;
        }
        self.pos += 4;
        Ok(v)
    }

    fn number(&mut self) -> R<Num> {
        let b = self.b;
        let s = self.pos;
        let neg = b[self.pos] == b'-';
        if neg {
            self.pos += 1;
        }
        let digits = self.pos;
        match b.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
            }
            _ => return Err(Bail),
        }
        let int_end = self.pos;
        let mut float = false;
        if b.get(self.pos) == Some(&b'.') {
            float = true;
            self.pos += 1;
            let f = self.pos;
            while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
            if self.pos == f {
                return Err(Bail);
            }
        }
        if matches!(b.get(self.pos), Some(b'e' | b'E')) {
            float = true;
            self.pos += 1;
            if matches!(b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let f = self.pos;
            while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
            if self.pos == f {
                return Err(Bail);
            }
        }
        if !float && int_end - digits <= 18 {
            let mut v: i128 = 0;
            for &d in &b[digits..int_end] {
                v = v * 10 + i128::from(d - b'0');
            }
            if neg && v == 0 {
                return Err(Bail); // "-0": leave the parser's representation to the full path
            }
            return Ok(Num::Int(if neg { -v } else { v }));
        }
        if !float {
            return Err(Bail); // an integer the parser may keep as u64/i64
        }
        // A decimal without exponent has at most int_end - digits integer digits: finite below
        // 300 of them; its value is computed only if a check reads it.
        if int_end - digits < 300 && !b[int_end..self.pos].iter().any(|c| matches!(c, b'e' | b'E')) {
            return Ok(Num::Dec(s as u32, self.pos as u32));
        }
        // Exponents: the parser's f64 (correctly rounded, as float_roundtrip); out of range bails.
        let text = std::str::from_utf8(&b[s..self.pos]).map_err(|_| Bail)?;
        let f: f64 = text.parse().map_err(|_| Bail)?;
        if !f.is_finite() {
            return Err(Bail);
        }
        Ok(Num::Float(f))
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.max_depth { Err(Bail) } else { Ok(()) }
    }

    fn object(&mut self, checks: Option<&Checks>) -> R<()> {
        if checks.is_some_and(|c| c.types & OBJECT == 0) {
            return Err(Bail);
        }
        self.enter()?;
        self.pos += 1;
        let mut seen: u64 = 0;
        // Keys no schema names, to reject duplicates (ranges into the text; no escapes).
        let mut others: smallvec::SmallVec<[(u32, u32); 8]> = smallvec::SmallVec::new();
        let mut n = 0u64;
        // The named key expected next (the one after the last named key met).
        let mut hint = 0usize;
        self.skip_ws();
        if self.peek()? == b'}' {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                if self.peek()? != b'"' {
                    return Err(Bail);
                }
                let known = match checks.and_then(|c| self.predicted(c, hint)) {
                    Some(i) => Some(i),
                    None => {
                        let (s, e, escaped, _) = self.string()?;
                        if escaped {
                            return Err(Bail);
                        }
                        self.skip_ws();
                        if self.peek()? != b':' {
                            return Err(Bail);
                        }
                        self.pos += 1;
                        let key = &self.b[s..e];
                        let known = checks.and_then(|c| c.key(key));
                        if known.is_none() {
                            let b = self.b;
                            if others.iter().any(|&(a, z)| same(&b[a as usize..z as usize], key)) {
                                return Err(Bail);
                            }
                            others.push((s as u32, e as u32));
                        }
                        known
                    }
                };
                n += 1;
                match (known, checks) {
                    (Some(i), Some(c)) => {
                        if seen & (1 << i) != 0 {
                            return Err(Bail);
                        }
                        seen |= 1 << i;
                        hint = i + 1;
                        self.value(c.keys[i].node.as_ref().unwrap_or(&c.additional))?;
                    }
                    _ => self.value(checks.map_or(&Node::Any, |c| &c.additional))?,
                }
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b'}' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Bail),
                }
            }
        }
        self.depth -= 1;
        if let Some(c) = checks {
            if seen & c.required != c.required
                || c.min_props.is_some_and(|m| n < m)
                || c.max_props.is_some_and(|m| n > m)
                || c.enum_.is_some()
            {
                return Err(Bail);
            }
        }
        Ok(())
    }

    fn array(&mut self, checks: Option<&Checks>) -> R<()> {
        if checks.is_some_and(|c| c.types & ARRAY == 0) {
            return Err(Bail);
        }
        self.enter()?;
        self.pos += 1;
        let item = checks.map_or(&Node::Any, |c| &c.items);
        let indexed = checks.map_or(&[][..], |c| &c.indexed[..]);
        let mut n = 0u64;
        self.skip_ws();
        if self.peek()? == b']' {
            self.pos += 1;
        } else {
            loop {
                let node = match indexed {
                    [] => item,
                    xs => xs.iter().find(|(i, _)| *i as u64 == n).map_or(item, |(_, node)| node),
                };
                self.value(node)?;
                n += 1;
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Bail),
                }
            }
        }
        self.depth -= 1;
        if let Some(c) = checks {
            if c.min_items.is_some_and(|m| n < m) || c.max_items.is_some_and(|m| n > m) || c.enum_.is_some() {
                return Err(Bail);
            }
        }
        Ok(())
    }
}

/// Whether `b[pos..]` starts with `q` (eight bytes at a time; `q` is a short key).
#[inline]
fn prefix_at(b: &[u8], pos: usize, q: &[u8]) -> bool {
    let Some(w) = b.get(pos..pos + q.len()) else { return false };
    if q.len() < 8 {
        return w.iter().zip(q).all(|(x, y)| x == y);
    }
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let mut i = 0;
    while i + 8 <= q.len() {
        if word(w, i) != word(q, i) {
            return false;
        }
        i += 8;
    }
    i == q.len() || word(w, q.len() - 8) == word(q, q.len() - 8)
}

fn scalar(checks: Option<&Checks>, bit: u8, lit: &Lit) -> R<()> {
    let Some(c) = checks else { return Ok(()) };
    if c.types & bit == 0 {
        return Err(Bail);
    }
    match &c.enum_ {
        Some(items) if !items.contains(lit) => Err(Bail),
        _ => Ok(()),
    }
}

/// The string keywords on the content bytes of an unescaped string (valid UTF-8; `ascii`: no
/// byte above 0x7f).
fn string_checks(c: &Checks, b: &[u8], ascii: bool) -> R<()> {
    if let Some(items) = &c.enum_ {
        if !items.iter().any(|l| matches!(l, Lit::Str(x) if same(x.as_bytes(), b))) {
            return Err(Bail);
        }
    }
    let text = || std::str::from_utf8(b).map_err(|_| Bail);
    if c.min_len.is_some() || c.max_len.is_some() {
        let n = if ascii { b.len() as u64 } else { text()?.chars().count() as u64 };
        if c.min_len.is_some_and(|m| n < m) || c.max_len.is_some_and(|m| n > m) {
            return Err(Bail);
        }
    }
    // The pattern on the bytes when the sequence matcher decides (the same matcher the
    // `jsonschema` crate runs for it), then `format` alone; else both through `jsonschema`.
    let rest = match c.pattern.as_ref().and_then(|seq| seq.is_match(b)) {
        Some(false) => return Err(Bail),
        Some(true) => &c.format_check,
        None => &c.string_check,
    };
    match rest {
        Some(sc) if !sc.is_valid(text()?) => Err(Bail),
        _ => Ok(()),
    }
}

fn number_checks(c: &Checks, n: Num, b: &[u8]) -> R<()> {
    let valued = c.enum_.is_some()
        || c.minimum.is_some()
        || c.maximum.is_some()
        || c.exclusive_minimum.is_some()
        || c.exclusive_maximum.is_some()
        || c.types & NUMBER == 0;
    let x = match n {
        Num::Int(i) => {
            let f = i as f64;
            if f.abs() > EXACT {
                return Err(Bail);
            }
            f
        }
        Num::Float(f) => f,
        // Any number is a "number": the value matters only to the other keywords.
        Num::Dec(..) if !valued => return if c.types & NUMBER != 0 { Ok(()) } else { Err(Bail) },
        Num::Dec(s, e) => {
            let t = &b[s as usize..e as usize];
            match fast_f64(t) {
                Some(x) => x,
                None => std::str::from_utf8(t).ok().and_then(|t| t.parse().ok()).ok_or(Bail)?,
            }
        }
    };
    let bits = if x.fract() == 0.0 { NUMBER | INTEGER } else { NUMBER };
    if c.types & bits == 0 {
        return Err(Bail);
    }
    if let Some(items) = &c.enum_ {
        if !items.iter().any(|l| matches!(l, Lit::Num(v) if *v == x)) {
            return Err(Bail);
        }
    }
    let ok = c.minimum.is_none_or(|m| x >= m)
        && c.maximum.is_none_or(|m| x <= m)
        && c.exclusive_minimum.is_none_or(|m| x > m)
        && c.exclusive_maximum.is_none_or(|m| x < m);
    if ok { Ok(()) } else { Err(Bail) }
}
