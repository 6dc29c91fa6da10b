//! Evaluate XGBoost tree ensembles from their JSON model dump (owned by the estimator).
//!
//! [`Ensemble::from_xgboost_json`] reads the document written by `Booster.save_model("m.json")`
//! (or `save_raw("json")`) for `gbtree` boosters with numerical splits and one output, and
//! [`Ensemble::predict_row`] evaluates one row the way XGBoost's CPU predictor does: features
//! are compared as `f32` (`x < split_condition` goes left, NaN follows `default_left`) and leaf
//! values are summed in `f32` in tree order onto the base margin, then the objective's inverse
//! link is applied.
//!
//! Layout: the nodes of all trees live in one flat array of 8-byte records in depth-first
//! order (a left child directly follows its parent; the right child is at a stored offset). A
//! leaf has both child offsets 0, so a walk that reaches it stays there, and keeps its value in
//! the threshold slot. That lets [`Ensemble`] walk 8 trees in lockstep for their maximum depth
//! with no leaf test in the loop (independent memory loads overlap), and the leaf value is read
//! from the cache line the walk already loaded.

use serde_json::Value;
use std::fmt;

/// Why a model document could not be loaded or a row could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeError {
    /// The text is not JSON or lacks a required field.
    Parse(String),
    /// A model feature this evaluator does not implement (dart, categorical splits, ...).
    Unsupported(String),
    /// A row that does not match the model (too few features).
    Shape(String),
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Parse(m) => write!(f, "invalid XGBoost JSON model: {m}"),
            TreeError::Unsupported(m) => write!(f, "unsupported XGBoost model: {m}"),
            TreeError::Shape(m) => write!(f, "bad input row: {m}"),
        }
    }
}

impl std::error::Error for TreeError {}

/// Inverse link applied to the summed margin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// `reg:squarederror`, `reg:absoluteerror`, `reg:quantileerror`, ...
    Identity,
    /// `reg:gamma`, `count:poisson`, `reg:tweedie`: `exp(margin)`.
    Log,
    /// `reg:logistic`, `binary:logistic`: `1 / (1 + exp(-margin))`.
    Logit,
}

const DEFAULT_LEFT: u32 = 1 << 31;
const INTERNAL: u32 = 1 << 30;
const OFFSET_BITS: u32 = 18;
const OFFSET_MASK: u32 = (1 << OFFSET_BITS) - 1;
const FEATURE_MASK: u32 = (1 << (30 - OFFSET_BITS)) - 1;
const LANES: usize = 8;

/// One node: split threshold (the leaf value for leaves) and `meta` = default-left bit 31,
/// internal-node bit 30 (the left-child offset: 1, or 0 for a leaf), feature index in bits
/// 18..30, right-child offset in bits 0..18 (0 for leaves).
#[derive(Debug, Clone, Copy)]
struct Node {
    threshold: f32,
    meta: u32,
}

impl Node {
    /// Index of the next node on the path of row `x` (itself for a leaf). Branch-free: random
    /// rows make split outcomes unpredictable, so a mispredicted jump per node would dominate.
    #[inline(always)]
    fn next(self, x: &[f32], i: usize) -> usize {
        let v = x[((self.meta >> OFFSET_BITS) & FEATURE_MASK) as usize];
        // `v < NaN` and `NaN < t` are both false; a missing value goes left iff default-left.
        let left = (v < self.threshold) | (v.is_nan() & (self.meta & DEFAULT_LEFT != 0));
        let left_off = ((self.meta & INTERNAL) >> 30) as usize;
        let right_off = (self.meta & OFFSET_MASK) as usize;
        let mask = (left as usize).wrapping_neg(); // all ones when going left
        i + ((left_off & mask) | (right_off & !mask))
    }
}

/// A loaded tree ensemble.
#[derive(Debug, Clone)]
pub struct Ensemble {
    nodes: Vec<Node>,
    roots: Vec<u32>,
    depths: Vec<u32>,
    base_margin: f32,
    num_features: usize,
    link: Link,
    objective: String,
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, TreeError> {
    v.get(key).ok_or_else(|| TreeError::Parse(format!("missing field `{key}`")))
}

fn as_f64(v: &Value, what: &str) -> Result<f64, TreeError> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| TreeError::Parse(format!("{what}: bad number"))),
        Value::String(s) => parse_scalar_string(s, what),
        _ => Err(TreeError::Parse(format!("{what}: expected a number"))),
    }
}

/// XGBoost writes scalars such as `base_score` as strings, `"5E-1"` or (3.x) `"[5E-1]"`.
fn parse_scalar_string(s: &str, what: &str) -> Result<f64, TreeError> {
    let t = s.trim().trim_start_matches('[').trim_end_matches(']');
    let mut parts = t.split(',');
    let first = parts.next().unwrap_or("").trim();
    if parts.next().is_some() {
        return Err(TreeError::Unsupported(format!("{what}: vector-valued ({s})")));
    }
    first
        .parse::<f64>()
        .map_err(|_| TreeError::Parse(format!("{what}: not a number ({s})")))
}

fn int_array(tree: &Value, key: &str) -> Result<Vec<i64>, TreeError> {
    field(tree, key)?
        .as_array()
        .ok_or_else(|| TreeError::Parse(format!("`{key}` is not an array")))?
        .iter()
        .map(|x| {
            x.as_i64()
                .or_else(|| x.as_bool().map(i64::from))
                .ok_or_else(|| TreeError::Parse(format!("`{key}` holds a non-integer")))
        })
        .collect()
}

fn float_array(tree: &Value, key: &str) -> Result<Vec<f64>, TreeError> {
    field(tree, key)?
        .as_array()
        .ok_or_else(|| TreeError::Parse(format!("`{key}` is not an array")))?
        .iter()
        .map(|x| as_f64(x, key))
        .collect()
}

fn link_of(objective: &str) -> Result<Link, TreeError> {
    match objective {
        "reg:squarederror" | "reg:linear" | "reg:absoluteerror" | "reg:quantileerror"
        | "reg:pseudohubererror" | "reg:squaredlogerror" => Ok(Link::Identity),
        "reg:gamma" | "count:poisson" | "reg:tweedie" => Ok(Link::Log),
        "reg:logistic" | "binary:logistic" => Ok(Link::Logit),
        other => Err(TreeError::Unsupported(format!("objective `{other}`"))),
    }
}

impl Ensemble {
    /// Parse an XGBoost JSON model document.
    pub fn from_xgboost_json(text: &str) -> Result<Self, TreeError> {
        let doc: Value = serde_json::from_str(text).map_err(|e| TreeError::Parse(e.to_string()))?;
        Self::from_value(&doc)
    }

    /// Build from an already parsed XGBoost JSON model document.
    pub fn from_value(doc: &Value) -> Result<Self, TreeError> {
        let learner = field(doc, "learner")?;
        let param = field(learner, "learner_model_param")?;
        let num_features = as_f64(field(param, "num_feature")?, "num_feature")? as usize;
        if let Some(nc) = param.get("num_class") {
            if as_f64(nc, "num_class")? > 1.0 {
                return Err(TreeError::Unsupported("multi-class model".into()));
            }
        }
        if let Some(nt) = param.get("num_target") {
            if as_f64(nt, "num_target")? > 1.0 {
                return Err(TreeError::Unsupported("multi-target model".into()));
            }
        }
        let base_score = as_f64(field(param, "base_score")?, "base_score")?;
        let objective = field(field(learner, "objective")?, "name")?
            .as_str()
            .ok_or_else(|| TreeError::Parse("objective name is not a string".into()))?
            .to_string();
        let link = link_of(&objective)?;
        let base_margin = match link {
            Link::Identity => base_score,
            Link::Log => base_score.ln(),
            Link::Logit => (base_score / (1.0 - base_score)).ln(),
        } as f32;
        let booster = field(learner, "gradient_booster")?;
        let name = field(booster, "name")?.as_str().unwrap_or("");
        if name != "gbtree" {
            return Err(TreeError::Unsupported(format!("booster `{name}` (only gbtree)")));
        }
        let model = field(booster, "model")?;
        let trees = field(model, "trees")?
            .as_array()
            .ok_or_else(|| TreeError::Parse("`trees` is not an array".into()))?;
        if let Some(info) = model.get("tree_info").and_then(Value::as_array) {
            if info.iter().any(|g| g.as_i64().unwrap_or(0) != 0) {
                return Err(TreeError::Unsupported("trees for more than one output".into()));
            }
        }
        if num_features == 0 {
            return Err(TreeError::Parse("num_feature is 0".into()));
        }
        if num_features > FEATURE_MASK as usize + 1 {
            return Err(TreeError::Unsupported(format!("more than {} features", FEATURE_MASK + 1)));
        }
        let mut ens = Ensemble {
            nodes: Vec::new(),
            roots: Vec::with_capacity(trees.len()),
            depths: Vec::with_capacity(trees.len()),
            base_margin,
            num_features,
            link,
            objective,
        };
        for (t, tree) in trees.iter().enumerate() {
            ens.push_tree(tree).map_err(|e| match e {
                TreeError::Parse(m) => TreeError::Parse(format!("tree {t}: {m}")),
                TreeError::Unsupported(m) => TreeError::Unsupported(format!("tree {t}: {m}")),
                other => other,
            })?;
        }
        Ok(ens)
    }

    fn push_tree(&mut self, tree: &Value) -> Result<(), TreeError> {
        let left = int_array(tree, "left_children")?;
        let right = int_array(tree, "right_children")?;
        let feat = int_array(tree, "split_indices")?;
        let cond = float_array(tree, "split_conditions")?;
        let dleft = int_array(tree, "default_left")?;
        let n = left.len();
        if n == 0 || [right.len(), feat.len(), cond.len(), dleft.len()].iter().any(|&l| l != n) {
            return Err(TreeError::Parse("node arrays differ in length or are empty".into()));
        }
        if let Ok(types) = int_array(tree, "split_type") {
            if types.iter().zip(&left).any(|(&t, &l)| t != 0 && l != -1) {
                return Err(TreeError::Unsupported("categorical splits".into()));
            }
        }
        // Validate, then lay the tree out depth-first (left child right after its parent).
        for i in 0..n {
            if left[i] == -1 {
                continue;
            }
            let ok = |c: i64| c > i as i64 && (c as usize) < n;
            if !ok(left[i]) || !ok(right[i]) {
                return Err(TreeError::Parse(format!("node {i}: child index out of range")));
            }
            if feat[i] < 0 || feat[i] as usize >= self.num_features {
                return Err(TreeError::Parse(format!("node {i}: feature {} out of range", feat[i])));
            }
        }
        let root = self.nodes.len();
        let mut depth = 0u32;
        // (source node, depth, slot of the parent whose right offset points here)
        let mut stack: Vec<(usize, u32, Option<usize>)> = vec![(0, 0, None)];
        let mut visited = 0usize;
        while let Some((src, d, parent)) = stack.pop() {
            visited += 1;
            if visited > n {
                return Err(TreeError::Parse("node graph is not a tree".into()));
            }
            let at = self.nodes.len();
            if let Some(p) = parent {
                let off = (at - p) as u32;
                if off > OFFSET_MASK {
                    return Err(TreeError::Unsupported("tree too large for the compact layout".into()));
                }
                self.nodes[p].meta |= off;
            }
            depth = depth.max(d);
            if left[src] == -1 {
                self.nodes.push(Node { threshold: cond[src] as f32, meta: 0 });
            } else {
                let dl = if dleft[src] != 0 { DEFAULT_LEFT } else { 0 };
                self.nodes.push(Node {
                    threshold: cond[src] as f32,
                    meta: dl | INTERNAL | ((feat[src] as u32) << OFFSET_BITS),
                });
                // Right is pushed first so the left subtree is laid out right after this node.
                stack.push((right[src] as usize, d + 1, Some(at)));
                stack.push((left[src] as usize, d + 1, None));
            }
        }
        self.roots.push(root as u32);
        self.depths.push(depth);
        Ok(())
    }

    /// Number of trees.
    pub fn num_trees(&self) -> usize {
        self.roots.len()
    }

    /// Number of input features the model was trained with.
    pub fn num_features(&self) -> usize {
        self.num_features
    }

    /// The objective the model was trained with.
    pub fn objective(&self) -> &str {
        &self.objective
    }

    /// The starting margin (base score after the link function).
    pub fn base_margin(&self) -> f32 {
        self.base_margin
    }

    /// Sum of leaf values plus base margin for one row of `f32` features (no length check).
    /// Trees are walked [`LANES`] at a time in lockstep; leaf values are added in tree order,
    /// as XGBoost does, so the `f32` sum is the same.
    #[inline]
    fn margin_unchecked(&self, x: &[f32]) -> f32 {
        let nodes = &self.nodes[..];
        let mut acc = self.base_margin;
        for (roots, depths) in self.roots.chunks(LANES).zip(self.depths.chunks(LANES)) {
            let mut idx = [0usize; LANES];
            for (slot, &r) in idx.iter_mut().zip(roots) {
                *slot = r as usize;
            }
            let steps = depths.iter().copied().max().unwrap_or(0);
            let k = roots.len();
            if k == LANES {
                for _ in 0..steps {
                    for slot in idx.iter_mut() {
                        *slot = nodes[*slot].next(x, *slot);
                    }
                }
            } else {
                for _ in 0..steps {
                    for slot in idx[..k].iter_mut() {
                        *slot = nodes[*slot].next(x, *slot);
                    }
                }
            }
            for &i in &idx[..k] {
                acc += nodes[i].threshold;
            }
        }
        acc
    }

    fn apply_link(&self, margin: f32) -> f64 {
        let m = margin as f64;
        match self.link {
            Link::Identity => m,
            Link::Log => m.exp(),
            Link::Logit => 1.0 / (1.0 + (-m).exp()),
        }
    }

    /// Predict one row given as `f32` values (extra trailing values are ignored).
    pub fn predict_row(&self, x: &[f32]) -> Result<f64, TreeError> {
        if x.len() < self.num_features {
            return Err(TreeError::Shape(format!(
                "expected {} features, got {}",
                self.num_features,
                x.len()
            )));
        }
        Ok(self.apply_link(self.margin_unchecked(x)))
    }

    /// Predict one row given as `f64` values (converted to `f32` like XGBoost does).
    pub fn predict_row_f64(&self, x: &[f64]) -> Result<f64, TreeError> {
        let mut buf = [0f32; 64];
        if x.len() <= buf.len() {
            for (b, v) in buf.iter_mut().zip(x) {
                *b = *v as f32;
            }
            self.predict_row(&buf[..x.len()])
        } else {
            let v: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            self.predict_row(&v)
        }
    }

    /// Predict a row-major matrix of `f32` values with `n_cols` columns.
    pub fn predict_matrix(&self, data: &[f32], n_cols: usize) -> Result<Vec<f64>, TreeError> {
        if n_cols < self.num_features || (n_cols > 0 && !data.len().is_multiple_of(n_cols)) {
            return Err(TreeError::Shape(format!(
                "matrix of {} values with {n_cols} columns for a {}-feature model",
                data.len(),
                self.num_features
            )));
        }
        if n_cols == 0 {
            return Ok(Vec::new());
        }
        Ok(data.chunks_exact(n_cols).map(|r| self.apply_link(self.margin_unchecked(r))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two stumps on feature 0 and 1, base score 0.5, objective squared error.
    fn model(objective: &str, base: &str) -> String {
        format!(
            r#"{{"learner": {{
              "learner_model_param": {{"base_score": "{base}", "num_feature": "2", "num_class": "0", "num_target": "1"}},
              "objective": {{"name": "{objective}"}},
              "gradient_booster": {{"name": "gbtree", "model": {{
                "tree_info": [0, 0],
                "trees": [
                  {{"left_children": [1, -1, -1], "right_children": [2, -1, -1],
                    "split_indices": [0, 0, 0], "split_conditions": [10.0, 1.0, 2.0],
                    "default_left": [1, 0, 0], "split_type": [0, 0, 0]}},
                  {{"left_children": [1, -1, -1], "right_children": [2, -1, -1],
                    "split_indices": [1, 0, 0], "split_conditions": [0.5, -0.25, 0.25],
                    "default_left": [0, 0, 0], "split_type": [0, 0, 0]}}
                ]}}}}}}}}"#
        )
    }

    #[test]
    fn evaluates_splits_and_missing_values() {
        let e = Ensemble::from_xgboost_json(&model("reg:squarederror", "[5E-1]")).unwrap();
        assert_eq!(e.num_trees(), 2);
        assert_eq!(e.num_features(), 2);
        assert_eq!(e.predict_row(&[3.0, 0.0]).unwrap(), 0.5 + 1.0 - 0.25);
        assert_eq!(e.predict_row(&[10.0, 1.0]).unwrap(), 0.5 + 2.0 + 0.25);
        // NaN on feature 0 goes left (default_left), on feature 1 goes right.
        assert_eq!(e.predict_row(&[f32::NAN, f32::NAN]).unwrap(), 0.5 + 1.0 + 0.25);
        assert_eq!(e.predict_row_f64(&[3.0, 0.0, 99.0]).unwrap(), 1.25);
    }

    #[test]
    fn unbalanced_trees_and_more_trees_than_lanes() {
        // Node 0: x0 < 5 ? node 1 : leaf 2 (10); node 1: x1 < 0 ? leaf 3 (1) : leaf 4 (2).
        let tree = r#"{"left_children": [1, 3, -1, -1, -1], "right_children": [2, 4, -1, -1, -1],
            "split_indices": [0, 1, 0, 0, 0], "split_conditions": [5.0, 0.0, 10.0, 1.0, 2.0],
            "default_left": [0, 1, 0, 0, 0], "split_type": [0, 0, 0, 0, 0]}"#;
        let trees = [tree; 11].join(",");
        let doc = format!(
            r#"{{"learner": {{"learner_model_param": {{"base_score": "0", "num_feature": "2"}},
            "objective": {{"name": "reg:squarederror"}},
            "gradient_booster": {{"name": "gbtree", "model": {{"trees": [{trees}]}}}}}}}}"#
        );
        let e = Ensemble::from_xgboost_json(&doc).unwrap();
        assert_eq!(e.num_trees(), 11);
        assert_eq!(e.predict_row(&[9.0, -1.0]).unwrap(), 110.0);
        assert_eq!(e.predict_row(&[1.0, -1.0]).unwrap(), 11.0);
        assert_eq!(e.predict_row(&[1.0, 3.0]).unwrap(), 22.0);
        assert_eq!(e.predict_row(&[1.0, f32::NAN]).unwrap(), 11.0); // default left
        assert_eq!(e.predict_row(&[f32::NAN, 3.0]).unwrap(), 110.0); // default right
    }

    #[test]
    fn applies_link_functions() {
        let e = Ensemble::from_xgboost_json(&model("reg:gamma", "2.0")).unwrap();
        let got = e.predict_row(&[3.0, 0.0]).unwrap();
        assert!((got - ((2f64).ln() + 0.75).exp()).abs() < 1e-5, "{got}");
        let e = Ensemble::from_xgboost_json(&model("binary:logistic", "0.5")).unwrap();
        let got = e.predict_row(&[3.0, 0.0]).unwrap();
        assert!((got - 1.0 / (1.0 + (-0.75f64).exp())).abs() < 1e-6, "{got}");
    }

    #[test]
    fn matrix_matches_rows() {
        let e = Ensemble::from_xgboost_json(&model("reg:squarederror", "0.5")).unwrap();
        let out = e.predict_matrix(&[3.0, 0.0, 10.0, 1.0], 2).unwrap();
        assert_eq!(out, vec![1.25, 2.75]);
        assert!(matches!(e.predict_matrix(&[1.0, 2.0, 3.0], 2), Err(TreeError::Shape(_))));
    }

    #[test]
    fn rejects_bad_input() {
        let e = Ensemble::from_xgboost_json(&model("reg:squarederror", "0.5")).unwrap();
        assert!(matches!(e.predict_row(&[1.0]), Err(TreeError::Shape(_))));
        assert!(matches!(Ensemble::from_xgboost_json("{"), Err(TreeError::Parse(_))));
        assert!(matches!(Ensemble::from_xgboost_json("{}"), Err(TreeError::Parse(_))));
        assert!(matches!(
            Ensemble::from_xgboost_json(&model("multi:softprob", "0.5")),
            Err(TreeError::Unsupported(_))
        ));
        let dart = model("reg:squarederror", "0.5").replace("\"gbtree\"", "\"dart\"");
        assert!(matches!(Ensemble::from_xgboost_json(&dart), Err(TreeError::Unsupported(_))));
        let bad_child = model("reg:squarederror", "0.5").replacen("[1, -1, -1]", "[7, -1, -1]", 1);
        assert!(matches!(Ensemble::from_xgboost_json(&bad_child), Err(TreeError::Parse(_))));
        let cat = model("reg:squarederror", "0.5").replacen("\"split_type\": [0, 0, 0]", "\"split_type\": [1, 0, 0]", 1);
        assert!(matches!(Ensemble::from_xgboost_json(&cat), Err(TreeError::Unsupported(_))));
    }
}
