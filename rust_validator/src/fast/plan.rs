//! A contract's scan plan: its schema [`Node`] specialised to the values the contract reads.
//!
//! The observation check records where some values are (status, latency, required fields, rule
//! inputs, extraction: a trie of paths, [`Capture`]). Instead of walking that trie next to the
//! schema while scanning (a lookup per key and per array element), [`specialise`] compiles it
//! into the nodes once: the node of a captured value carries its slot, an object node names
//! every captured key (with the `additionalProperties` node where the schema does not name it,
//! which is what applies to such a key anyway), and an array node lists its captured indices.
//! Validation is unchanged — a key added for a capture gets exactly the node that applied to it —
//! so the scanner's answer is the schema's; it only learns where to write the spans.
use super::node::{Checks, Key, Node};

/// A trie of paths to capture: object keys, or canonical array indices.
#[derive(Debug, Default, Clone)]
pub struct Capture {
    pub slot: Option<usize>,
    /// (token, the token as a canonical array index, subtree)
    pub children: Vec<(Box<str>, Option<usize>, Capture)>,
}

impl Capture {
    /// Add `path` (tokens) with `slot`.
    pub fn insert(&mut self, path: &[String], slot: usize) {
        match path.split_first() {
            None => self.slot = Some(slot),
            Some((head, rest)) => {
                let i = match self.children.iter().position(|(k, _, _)| **k == **head) {
                    Some(i) => i,
                    None => {
                        // Canonical indices only ("0", "12"), as `crate::pointer::lookup` reads them.
                        let canonical = !head.starts_with('+') && (head.len() == 1 || !head.starts_with('0'));
                        let index = head.parse::<usize>().ok().filter(|_| canonical);
                        self.children.push((head.as_str().into(), index, Capture::default()));
                        self.children.len() - 1
                    }
                };
                self.children[i].2.insert(rest, slot);
            }
        }
    }
}

/// `node` with the captures of `cap` compiled in; `None` when an object would name more than
/// 64 keys (the caller keeps the full path).
pub fn specialise(node: &Node, cap: &Capture) -> Option<Node> {
    if cap.slot.is_none() && cap.children.is_empty() {
        return Some(node.clone());
    }
    let mut c = match node {
        // Nothing is valid here: the scan bails before any capture matters.
        Node::Never => return Some(Node::Never),
        Node::Any => Checks::empty(),
        Node::Checks(c) => (**c).clone(),
    };
    c.slot = cap.slot;
    for (token, index, child) in &cap.children {
        // The token as an object key: the node that applies to that key, specialised.
        let i = match c.keys.iter().position(|k| *k.name == **token) {
            Some(i) => i,
            None => {
                c.keys.push(Key::new(token, None));
                c.keys.len() - 1
            }
        };
        let applies = c.keys[i].node.as_ref().unwrap_or(&c.additional);
        let sub = specialise(applies, child)?;
        c.keys[i].node = Some(sub);
        // The token as an array index: the items node, specialised, for that element.
        if let Some(ix) = index {
            let sub = specialise(&c.items, child)?;
            c.indexed.push((*ix, sub));
        }
    }
    if c.keys.len() > 64 {
        return None;
    }
    Some(Node::Checks(Box::new(c.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::scan::{Scanner, Span};
    use crate::schema::SchemaOptions;
    use serde_json::json;

    fn plan(schema: serde_json::Value, paths: &[&[&str]]) -> Node {
        let node = crate::fast::node::compile(&schema, &SchemaOptions::default()).expect("subset");
        let mut cap = Capture::default();
        for (slot, p) in paths.iter().enumerate() {
            cap.insert(&p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), slot);
        }
        specialise(&node, &cap).expect("plan")
    }

    fn scan(node: &Node, text: &str, slots: usize) -> Option<Vec<Option<String>>> {
        let mut spans: Vec<Option<Span>> = vec![None; slots];
        Scanner::new(text.as_bytes(), 64, &mut spans).document(node).ok()?;
        Some(spans.iter().map(|s| s.map(|(a, z)| text[a as usize..z as usize].to_owned())).collect())
    }

    #[test]
    fn captures_under_named_additional_and_any_keys() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}},
            "additionalProperties": {"type": "string"}});
        let n = plan(schema, &[&["a"], &["b"], &["a", "x"]]);
        let got = scan(&n, r#"{"b": "yes", "a": 3}"#, 3).expect("valid");
        assert_eq!(got, vec![Some("3".into()), Some(r#""yes""#.into()), None]);
        // A captured key keeps the node that applied to it: `b` must still be a string.
        assert!(scan(&n, r#"{"b": 1, "a": 3}"#, 3).is_none());
        assert!(scan(&n, r#"{"a": 3, "a": 3}"#, 3).is_none(), "duplicate key");
    }

    #[test]
    fn captures_by_index_and_under_any() {
        let schema = json!({"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "number"}}}});
        let n = plan(schema, &[&["xs", "1"], &["free", "0", "k"]]);
        let got = scan(&n, r#"{"xs": [1, 2.5, 3], "free": [{"k": null}]}"#, 2).expect("valid");
        assert_eq!(got, vec![Some("2.5".into()), Some("null".into())]);
        assert!(scan(&n, r#"{"xs": [1, "2", 3]}"#, 2).is_none());
    }
}
