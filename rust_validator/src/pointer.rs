//! JSON Pointer lookup without allocation (the hot path resolves the contract's pointers on
//! every check; `serde_json::Value::pointer` allocates two `String`s per token).
use std::borrow::Cow;

use serde_json::Value;

/// Same result as `value.pointer(pointer)` (RFC 6901), allocating only for tokens with `~`.
pub fn lookup<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').try_fold(value, |target, token| {
        let token: Cow<'_, str> = if token.contains('~') {
            Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(token)
        };
        match target {
            Value::Object(map) => map.get(token.as_ref()),
            Value::Array(list) => index(&token).and_then(|i| list.get(i)),
            _ => None,
        }
    })
}

fn index(s: &str) -> Option<usize> {
    if s.starts_with('+') || (s.starts_with('0') && s.len() != 1) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn agrees_with_serde_json() {
        let v = json!({"a": {"b": [1, {"c/d": 2, "e~f": 3}]}, "": {"": 4}, "01": 5, "x": [0, 1]});
        for p in ["", "/", "/a", "/a/b", "/a/b/0", "/a/b/1/c~1d", "/a/b/1/e~0f", "/a/b/01", "/a/b/+1", "/a/b/2",
                  "//", "/01", "a", "/x/1", "/x/-", "/a/b/1/c/d", "/a/b/0/z"] {
            assert_eq!(lookup(&v, p), v.pointer(p), "pointer {p:?}");
        }
    }
}
