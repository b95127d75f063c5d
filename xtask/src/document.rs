//! The OpenAPI document: where it is, and the document read, parsed and linted; the one view of
//! it that the generator's passes share: its schemas' `$ref`s followed ([`Raw`]), a schema's
//! properties in the document's order ([`property_order`], [`ordered`]), and the header line of
//! every file generated from it ([`header`], [`code_header`], [`part_header`]; [`code_file`] writes
//! a whole file of the document's code outputs). One schema's own
//! JSON is read by `schema.rs` and the Rust names of its names are `names.rs`' (leaves below it).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use openapiv3::OpenAPI;
use serde_json::Value;
use sha2::{Digest, Sha256};

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
        self.refuse(&lint::lint(&self.spec, &self.raw))
    }

    /// An error that lists every problem found in this document as `<file>: <pointer>:
    /// <message>`, or `Ok` when there is none.
    pub fn refuse(&self, problems: &[lint::Problem]) -> Result<()> {
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

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The header line of a generated file: what it was generated from, and the hash (`hashed` says
/// of what) that changes with it.
fn header_line(doc: &Document, hashed: &str) -> String {
    format!(
        "// Generated by `cargo xtask generate` from {} ({hashed}). Do not edit.\n",
        doc.rel_path
    )
}

/// The first line of every generated file.
pub fn header(doc: &Document) -> String {
    header_line(doc, &format!("sha256 {}", sha256_hex(doc.text.as_bytes())))
}

/// The first line of a file generated from the whole document's operations and schemas but not
/// from its `info` (the operation table, the CLI, the decoders, the values, uploads and update
/// tables): the hash is the document's values without `info`, so that editing the document's
/// description, its version or a YAML comment rewrites none of these files and rebuilds none of
/// their crates.
pub fn code_header(doc: &Document) -> Result<String> {
    let mut raw = doc.raw.clone();
    if let Some(object) = raw.as_object_mut() {
        object.remove("info");
    }
    let json = serde_json::to_vec(&raw).context("serializing the document")?;
    Ok(header_line(
        doc,
        &format!(
            "sha256 of the document without `info` {}",
            sha256_hex(&json)
        ),
    ))
}

/// A file generated from the document's operations and schemas ([`code_header`]): the header,
/// `about` as `//` comment lines, a blank line, then `body`.
pub fn code_file(doc: &Document, about: &str, body: &str) -> Result<String> {
    let about: String = about.lines().map(|line| format!("// {line}\n")).collect();
    Ok(format!("{}{about}\n{body}", code_header(doc)?))
}

/// The first line of a file generated from a part of the document: the hash is the part's (what
/// progenitor was given), so that the file, and the crate that holds it, change only when its
/// part does.
pub fn part_header(doc: &Document, part: &str, sub: &OpenAPI) -> Result<String> {
    let json = serde_json::to_vec(sub).context("serializing a part of the document")?;
    Ok(header_line(
        doc,
        &format!("{part}; sha256 of the part {}", sha256_hex(&json)),
    ))
}

/// The component schema `name`, when the document has it (not a `$ref`).
pub(crate) fn component_schema<'a>(doc: &'a Document, name: &str) -> Option<&'a openapiv3::Schema> {
    match doc.spec.components.as_ref()?.schemas.get(name)? {
        openapiv3::ReferenceOr::Item(schema) => Some(schema),
        openapiv3::ReferenceOr::Reference { .. } => None,
    }
}

/// The property names of a component schema in the document's order (serde_json sorts them).
pub(crate) fn property_order(doc: &Document, name: &str) -> Vec<String> {
    use openapiv3::{SchemaKind, Type};
    let Some(schema) = component_schema(doc, name) else {
        return Vec::new();
    };
    match &schema.schema_kind {
        SchemaKind::Type(Type::Object(object)) => object.properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The keys of `properties`, those of `order` first in its order, then the rest sorted.
pub(crate) fn ordered<'m>(
    properties: &'m serde_json::Map<String, Value>,
    order: &[String],
) -> Vec<&'m String> {
    let mut names: Vec<&String> = order
        .iter()
        .filter_map(|n| properties.get_key_value(n).map(|(k, _)| k))
        .collect();
    for key in properties.keys() {
        if !names.contains(&key) {
            names.push(key);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_header_hashes_the_document_without_info() {
        let text =
            std::fs::read_to_string(workspace_root().join(SPEC)).expect("reads the document");
        let header_of = |text: &str| {
            code_header(&Document::parse(SPEC, text.to_owned()).expect("parses")).expect("hashes")
        };
        let committed = header_of(&text);
        assert!(
            committed.starts_with(
                "// Generated by `cargo xtask generate` from openapi/store-admin.yaml (sha256 of the document without `info` "
            ),
            "{committed}"
        );
        // The description, the version and a comment: the header stays.
        let info_edited = text
            .replacen("  version: 3.", "  version: 9.", 1)
            .replacen(
                "    - **Rate limits.**",
                "    - **Rate limits, edited.**",
                1,
            )
            .replacen("\n    # ", "\n    # an edited comment, ", 1);
        assert_ne!(info_edited, text);
        assert_eq!(header_of(&info_edited), committed);
        // A schema's description: the header changes.
        let schema_edited = text.replacen(
            "description: Units in stock",
            "description: Units on the shelf",
            1,
        );
        assert_ne!(schema_edited, text);
        assert_ne!(header_of(&schema_edited), committed);
    }
}
