//! The OpenAPI document: where it is, and the document read, parsed and linted.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::lint;

/// The OpenAPI document, relative to the workspace root.
pub const SPEC: &str = "openapi/store-admin.yaml";

/// The workspace root: the parent of this crate's directory, whatever the current directory, or
/// `$XTASK_ROOT` when set (a copy of the workspace that this build generates for: `.ci/semver-selftest`).
pub fn workspace_root() -> PathBuf {
    if let Some(root) = std::env::var_os("XTASK_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// An OpenAPI document as text, as a parsed [`openapiv3::OpenAPI`] and as a raw JSON value.
pub struct Document {
    /// Path relative to the workspace root, with `/` separators (used in messages and headers).
    pub rel_path: String,
    /// The file's exact bytes (hashed into the generated headers).
    pub text: String,
    /// The typed document.
    pub spec: openapiv3::OpenAPI,
    /// The same document as a JSON value, for rules that walk every node.
    pub raw: serde_json::Value,
}

impl Document {
    /// Reads and parses `rel_path` (relative to `root`).
    pub fn load(root: &Path, rel_path: &str) -> Result<Self> {
        let text = std::fs::read_to_string(root.join(rel_path))
            .with_context(|| format!("reading {rel_path}"))?;
        Self::parse(rel_path, text)
    }

    /// Parses a document held in memory; `rel_path` only names it in messages.
    pub fn parse(rel_path: &str, text: String) -> Result<Self> {
        let raw =
            crate::yaml::from_str(&text).with_context(|| format!("{rel_path}: not valid YAML"))?;
        let spec = crate::yaml::from_str(&text)
            .with_context(|| format!("{rel_path}: not a valid OpenAPI 3.0 document"))?;
        Ok(Self {
            rel_path: rel_path.to_owned(),
            text,
            spec,
            raw,
        })
    }

    /// Runs the lint; an error lists every problem as `<file>: <pointer>: <message>`.
    pub fn lint(&self) -> Result<()> {
        let problems = lint::lint(&self.spec, &self.raw);
        if problems.is_empty() {
            return Ok(());
        }
        let lines: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {p}", self.rel_path))
            .collect();
        bail!(
            "{} lint problem(s) in {}:\n{}",
            problems.len(),
            self.rel_path,
            lines.join("\n")
        )
    }
}

/// The document as JSON, with `$ref` resolution (shared by the command line's model and the
/// read-modify-write pairings, which read the same schemas).
pub(crate) struct Raw<'a>(pub(crate) &'a Value);

impl<'a> Raw<'a> {
    /// The schema `value` names: its `$ref` (or its `allOf` of one) followed.
    pub(crate) fn resolve(&self, value: &'a Value) -> &'a Value {
        let mut current = value;
        for _ in 0..16 {
            if let Some(reference) = current.get("$ref").and_then(Value::as_str) {
                match self.0.pointer(reference.trim_start_matches('#')) {
                    Some(target) => current = target,
                    None => return current,
                }
            } else if let Some([only]) = current
                .get("allOf")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            {
                current = only;
            } else {
                return current;
            }
        }
        current
    }

    /// The component name of the schema `value` refers to, if it is a `$ref`.
    pub(crate) fn ref_name(value: &Value) -> Option<String> {
        let value = match value
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([only]) => only,
            _ => value,
        };
        value
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
            .map(str::to_owned)
    }
}
