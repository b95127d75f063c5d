//! `cargo xtask drift apply REPORT.json...`: a drift report (the client's `admin.drift()`, the
//! mock store's `/__admin/drift`, `store-admin drift FILE...`) becomes a proposed change of the
//! document, for a person to review and commit.
//!
//! - Each field the answers had and the document does not declare is added, optional, to the
//!   object schema that lacks it, with the JSON type seen (in the document's idioms: `nullable`,
//!   `NumberOrString`, `AnyValue`) and a description that says where and when it was seen.
//! - Each habit the lenient decoding applied where the field's schema does not already admit the
//!   JSON type seen is recorded on the field as an `x-assumed` entry (habit, operation, first and
//!   last seen). A field's type is never changed, nothing is removed, nothing is made required.
//! - A path the tool cannot follow (through `anyOf`/`oneOf`, into a flow-style mapping, to a bare
//!   `$ref`) is listed as skipped with the reason.
//!
//! The document is hand-written YAML with comments: it is edited as text, lines inserted (or one
//! line replaced, to widen the dates it wrote before) at the place and indentation the layout
//! gives, never re-serialised. Running twice on the same reports changes nothing the second time.
//!
//! The reports are read with this module's own serde structs (the client core crate pulls in an
//! HTTP stack): the client's format, and the mock store's, whose extra keys are ignored and whose
//! counts without types or dates are read as such.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::{DateTime, SecondsFormat, Timelike, Utc};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::document::{Document, SPEC};

/// `cargo xtask drift ...`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Turn drift reports into a proposed change of the document: undeclared fields added as
    /// optional properties, habits the document does not admit recorded as `x-assumed`; then
    /// regenerate and print what changed (nothing is committed).
    Apply {
        /// Drift reports (JSON: the client's `admin.drift()`, the mock's `/__admin/drift`,
        /// `store-admin drift`); several are merged.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// The document to edit (default: openapi/store-admin.yaml of the workspace).
        #[arg(long)]
        document: Option<PathBuf>,
        /// Edit the document only; do not regenerate.
        #[arg(long)]
        no_generate: bool,
    },
}

/// Runs `cargo xtask drift ...`.
pub fn run(root: &Path, command: Command) -> Result<()> {
    match command {
        Command::Apply {
            reports,
            document,
            no_generate,
        } => {
            let spec = root.join(SPEC);
            let document = document.unwrap_or_else(|| spec.clone());
            let before = std::fs::read_to_string(&document)
                .with_context(|| format!("reading {}", document.display()))?;
            let report = read_reports(&reports)?;
            let outcome = apply(&document.display().to_string(), &before, &report)?;
            print!("{}", outcome.listing());
            if outcome.text == before {
                println!("The document is unchanged.");
                return Ok(());
            }
            std::fs::write(&document, &outcome.text)
                .with_context(|| format!("writing {}", document.display()))?;
            println!("wrote     {}", document.display());
            if no_generate {
                println!("Not regenerated (--no-generate): run `cargo xtask generate`.");
            } else if !same_file(&document, &spec) {
                println!(
                    "Not regenerated: {} is not the workspace's {SPEC} (run `cargo xtask generate` in its workspace).",
                    document.display()
                );
            } else {
                regenerate(root)?;
            }
            println!(
                "\nCompatibility: every value of the document before is kept (checked); only optional response properties and `x-assumed` entries were added: an additive change, a minor version."
            );
            if same_file(&document, &spec) {
                optic_verdict(root, &spec);
            }
            println!(
                "\nCHANGELOG line to write (openapi/CHANGELOG.md, {}):\n{}",
                next_minor(&outcome.text)
                    .map(|(now, next)| format!(
                        "under `## {next}`, with info.version {now} -> {next}"
                    ))
                    .unwrap_or_else(|| "under the next minor version".to_owned()),
                outcome.changelog_line()
            );
            println!("\nReview `git diff`, then commit the document and the generated files.");
            Ok(())
        }
    }
}

/// Optic's verdict on the working copy against `HEAD` (`cargo xtask openapi diff HEAD`), when
/// Optic is installed.
fn optic_verdict(root: &Path, spec: &Path) {
    let tools = crate::openapi::Tools::locate(root);
    if let Err(e) = tools.bin("optic") {
        println!("No Optic verdict: {e:#}.");
        return;
    }
    let standard = root.join(crate::openapi::OPTIC_STANDARD);
    match crate::openapi::diff(spec, "HEAD", &standard, &tools) {
        Ok(summary) => println!("Optic (`cargo xtask openapi diff HEAD`):\n{summary}"),
        Err(e) => println!("Optic (`cargo xtask openapi diff HEAD`) fails:\n{e:#}"),
    }
}

/// The document's `info.version` and the next minor version after it (`3.0.0` -> `3.1.0`).
fn next_minor(text: &str) -> Option<(String, String)> {
    let raw: Value = crate::yaml::from_str(text).ok()?;
    let now = raw.pointer("/info/version")?.as_str()?.to_owned();
    let mut parts = now.split('.');
    let major: u64 = parts.next()?.parse().ok()?;
    let minor: u64 = parts.next()?.parse().ok()?;
    Some((now, format!("{major}.{}.0", minor + 1)))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Regenerates the client and prints the summary snapshot's diff, if any.
fn regenerate(root: &Path) -> Result<()> {
    crate::generate::run(root, false)?;
    let snapshot_path = root.join("xtask/src/snapshots/xtask__summary__tests__api_summary.snap");
    let snapshot = std::fs::read_to_string(&snapshot_path).unwrap_or_default();
    let old = snapshot.splitn(3, "---\n").nth(2).unwrap_or_default();
    let new = crate::summary::summarize_client(root)?;
    if old.trim_end() == new.trim_end() {
        println!(
            "The summary snapshot (xtask/src/snapshots/xtask__summary__tests__api_summary.snap) is unchanged."
        );
    } else {
        println!(
            "The summary snapshot changes (update it with `INSTA_UPDATE=always cargo test -p xtask`):"
        );
        let diff = similar::TextDiff::from_lines(old, new.as_str());
        print!(
            "{}",
            diff.unified_diff()
                .context_radius(1)
                .header("api_summary (committed)", "api_summary (regenerated)")
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reports

/// A JSON type, as a report names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true`/`false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// One operation of a report (`OperationDrift` of the client core; the mock's has `errors`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationIn {
    calls: u64,
    #[serde(default, rename = "decoded")]
    _decoded: u64,
    #[serde(default, rename = "failed")]
    _failed: u64,
    #[serde(default)]
    habits: BTreeMap<String, HabitIn>,
    #[serde(default)]
    unknown_fields: BTreeMap<String, FieldIn>,
    #[serde(default, rename = "errors")]
    _errors: Option<IgnoredAny>,
    #[serde(default, rename = "errors_dropped")]
    _errors_dropped: Option<IgnoredAny>,
    #[serde(default, rename = "unknown_fields_dropped")]
    _unknown_fields_dropped: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HabitIn {
    #[serde(default)]
    answers: u64,
    #[serde(default)]
    first_path: String,
    #[serde(default)]
    paths: BTreeMap<String, Seen>,
}

/// An undeclared field: the client's [`Seen`], or the mock's bare count.
#[derive(Deserialize)]
#[serde(untagged)]
enum FieldIn {
    Seen(Seen),
    Count(u64),
}

/// How often something was seen at one path, as which JSON types, and when.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seen {
    #[serde(default)]
    count: u64,
    #[serde(default)]
    types: Vec<JsonType>,
    #[serde(default)]
    first_seen: Option<DateTime<Utc>>,
    #[serde(default)]
    last_seen: Option<DateTime<Utc>>,
}

impl Seen {
    /// The dates to the second, as the document writes them (so that a second run compares
    /// equal to what the first wrote).
    fn in_seconds(mut self) -> Self {
        let seconds = |d: DateTime<Utc>| d.with_nanosecond(0).unwrap_or(d);
        self.first_seen = self.first_seen.map(seconds);
        self.last_seen = self.last_seen.map(seconds);
        self
    }

    fn merge(&mut self, other: &Seen) {
        self.count = self.count.saturating_add(other.count);
        for t in &other.types {
            if !self.types.contains(t) {
                self.types.push(*t);
            }
        }
        self.types.sort();
        self.first_seen = min_date(self.first_seen, other.first_seen);
        self.last_seen = self.last_seen.max(other.last_seen);
    }
}

fn min_date(a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What one operation's answers had: per habit, per path; per undeclared field's path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationSeen {
    habits: BTreeMap<String, BTreeMap<String, Seen>>,
    unknown_fields: BTreeMap<String, Seen>,
}

/// Several reports merged: per operationId.
pub type Report = BTreeMap<String, OperationSeen>;

/// Reads one report's JSON (`what` names it in errors) and merges it into `into`.
pub fn merge_report(into: &mut Report, what: &str, text: &str) -> Result<()> {
    let operations: BTreeMap<String, OperationIn> = serde_json::from_str(text).with_context(|| {
        format!(
            "{what}: not a drift report (a JSON object of operationId -> {{calls, decoded, failed, habits, unknown_fields}})"
        )
    })?;
    for (operation, drift) in operations {
        let _ = drift.calls;
        let ours = into.entry(operation).or_default();
        for (habit, seen) in drift.habits {
            let paths = ours.habits.entry(habit).or_default();
            if seen.paths.is_empty() && !seen.first_path.is_empty() {
                // The mock's format: where it was first seen, and in how many answers.
                let at = Seen {
                    count: seen.answers,
                    ..Seen::default()
                };
                paths.entry(seen.first_path).or_default().merge(&at);
            }
            for (path, s) in seen.paths {
                paths.entry(path).or_default().merge(&s.in_seconds());
            }
        }
        for (path, field) in drift.unknown_fields {
            let s = match field {
                FieldIn::Seen(s) => s.in_seconds(),
                FieldIn::Count(count) => Seen {
                    count,
                    ..Seen::default()
                },
            };
            ours.unknown_fields.entry(path).or_default().merge(&s);
        }
    }
    Ok(())
}

fn read_reports(paths: &[PathBuf]) -> Result<Report> {
    let mut report = Report::new();
    for path in paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        merge_report(&mut report, &path.display().to_string(), &text)?;
    }
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// Resolving a report's path in the document

/// One step of a report's JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Name(String),
    Items,
    Key,
}

/// `data[].customer.<key>` -> [Name(data), Items, Name(customer), Key]; `.` -> [].
fn parse_path(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    if path == "." || path.is_empty() {
        return steps;
    }
    for part in path.split('.') {
        let mut base = part;
        let mut items = 0;
        while let Some(rest) = base.strip_suffix("[]") {
            base = rest;
            items += 1;
        }
        match base {
            "" => {}
            "<key>" => steps.push(Step::Key),
            name => steps.push(Step::Name(name.to_owned())),
        }
        steps.extend(std::iter::repeat_n(Step::Items, items));
    }
    steps
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// A schema node: its JSON pointer in the document and its value.
#[derive(Clone)]
struct Node<'a> {
    pointer: String,
    value: &'a Value,
}

/// Follows `$ref` (and an `allOf` of one) from `node`.
fn resolve<'a>(raw: &'a Value, node: Node<'a>) -> Result<Node<'a>, String> {
    let mut node = node;
    for _ in 0..32 {
        if let Some(reference) = node.value.get("$ref").and_then(Value::as_str) {
            let Some(pointer) = reference.strip_prefix('#') else {
                return Err(format!("`$ref: {reference}` points outside the document"));
            };
            let value = raw
                .pointer(pointer)
                .ok_or_else(|| format!("`$ref: {reference}` does not resolve"))?;
            node = Node {
                pointer: pointer.to_owned(),
                value,
            };
        } else if let Some([only]) = node
            .value
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            node = Node {
                pointer: format!("{}/allOf/0", node.pointer),
                value: only,
            };
        } else {
            return Ok(node);
        }
    }
    Err(format!("`$ref`s in a loop at {}", node.pointer))
}

/// The success answer's JSON schema of `operation_id`, or why there is none.
fn success_schema<'a>(raw: &'a Value, operation_id: &str) -> Option<Result<Node<'a>, String>> {
    let paths = raw.get("paths")?.as_object()?;
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, operation) in item {
            if operation.get("operationId").and_then(Value::as_str) != Some(operation_id) {
                continue;
            }
            let at = format!("/paths/{}/{method}/responses", escape(path));
            let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
                return Some(Err(format!("{operation_id} has no responses")));
            };
            let mut codes: Vec<&String> = responses.keys().filter(|c| c.starts_with('2')).collect();
            codes.sort();
            for code in codes {
                let response = Node {
                    pointer: format!("{at}/{}", escape(code)),
                    value: &responses[code.as_str()],
                };
                let response = match resolve(raw, response) {
                    Ok(r) => r,
                    Err(e) => return Some(Err(e)),
                };
                if let Some(schema) = response.value.pointer("/content/application~1json/schema") {
                    return Some(Ok(Node {
                        pointer: format!("{}/content/application~1json/schema", response.pointer),
                        value: schema,
                    }));
                }
            }
            return Some(Err(format!("{operation_id} has no JSON success answer")));
        }
    }
    None
}

/// Takes one step from the (resolved) schema `node`.
fn step<'a>(raw: &'a Value, node: Node<'a>, step: &Step) -> Result<Node<'a>, String> {
    let node = resolve(raw, node)?;
    for union in ["anyOf", "oneOf", "allOf"] {
        if node.value.get(union).is_some() {
            return Err(format!(
                "goes through the union at {} (`{union}`: which branch is not known)",
                node.pointer
            ));
        }
    }
    let (key, what) = match step {
        Step::Name(name) => {
            let Some(value) = node.value.get("properties").and_then(|p| p.get(name)) else {
                return Err(format!("{} declares no property `{name}`", node.pointer));
            };
            return Ok(Node {
                pointer: format!("{}/properties/{}", node.pointer, escape(name)),
                value,
            });
        }
        Step::Items => ("items", "a list"),
        Step::Key => ("additionalProperties", "a map"),
    };
    match node.value.get(key) {
        Some(value) if value.is_object() => Ok(Node {
            pointer: format!("{}/{key}", node.pointer),
            value,
        }),
        _ => Err(format!("{} is not {what} (no `{key}`)", node.pointer)),
    }
}

fn walk<'a>(raw: &'a Value, start: Node<'a>, steps: &[Step]) -> Result<Node<'a>, String> {
    let mut node = start;
    for s in steps {
        node = step(raw, node, s)?;
    }
    Ok(node)
}

/// Whether the schema `node` already accepts a JSON value of type `seen`.
fn admits(raw: &Value, node: &Node<'_>, seen: JsonType) -> bool {
    let Ok(node) = resolve(raw, node.clone()) else {
        return false;
    };
    let value = node.value;
    if seen == JsonType::Null && value.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    for union in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = value.get(union).and_then(Value::as_array) {
            return branches.iter().enumerate().any(|(i, branch)| {
                let branch = Node {
                    pointer: format!("{}/{union}/{i}", node.pointer),
                    value: branch,
                };
                admits(raw, &branch, seen)
            });
        }
    }
    match value.get("type").and_then(Value::as_str) {
        Some("integer" | "number") => seen == JsonType::Number,
        Some("string") => seen == JsonType::String,
        Some("boolean") => seen == JsonType::Boolean,
        Some("array") => seen == JsonType::Array,
        Some("object") => seen == JsonType::Object,
        Some(_) => false,
        None if value.get("properties").is_some() => seen == JsonType::Object,
        None if value.get("items").is_some() => seen == JsonType::Array,
        None => true,
    }
}

// ---------------------------------------------------------------------------------------------
// The YAML text: finding a node's lines by JSON pointer

/// A mapping node in the text: the line of its key (none for the document), the lines below it
/// (`body`), and the indentation of its children.
#[derive(Debug, Clone)]
struct Block {
    key_line: Option<usize>,
    body: std::ops::Range<usize>,
    /// What follows `key:` on the key line (empty for a block value).
    inline: String,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The key of a `key: value` line (without its indentation), and what follows the colon.
fn split_key(content: &str) -> Option<(String, &str)> {
    let content = content.trim_end_matches(['\n', '\r']);
    if let Some(rest) = content.strip_prefix('\'') {
        let mut key = String::new();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                if chars.peek().map(|&(_, c)| c) == Some('\'') {
                    key.push('\'');
                    chars.next();
                    continue;
                }
                let after = rest[i + 1..].strip_prefix(':')?;
                return Some((key, after.trim()));
            }
            key.push(c);
        }
        return None;
    }
    if let Some(rest) = content.strip_prefix('"') {
        let end = rest.find('"')?;
        let after = rest[end + 1..].strip_prefix(':')?;
        return Some((rest[..end].to_owned(), after.trim()));
    }
    if content.starts_with("- ") || content == "-" {
        return None;
    }
    let colon = content
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| content[i + 1..].is_empty() || content[i + 1..].starts_with(' '))?;
    Some((
        content[..colon].trim_end().to_owned(),
        content[colon + 1..].trim(),
    ))
}

/// The value after a key without its comment.
fn value_text(after: &str) -> &str {
    match after.find(" #") {
        Some(i) if !after.starts_with(['\'', '"']) => after[..i].trim(),
        _ if after.starts_with('#') => "",
        _ => after.trim(),
    }
}

struct Text {
    lines: Vec<String>,
}

impl Text {
    fn new(text: &str) -> Self {
        Text {
            lines: text.split_inclusive('\n').map(str::to_owned).collect(),
        }
    }

    fn join(&self) -> String {
        self.lines.concat()
    }

    fn root(&self) -> Block {
        Block {
            key_line: None,
            body: 0..self.lines.len(),
            inline: String::new(),
        }
    }

    /// The indentation of `block`'s children: its first content line's.
    fn child_indent(&self, block: &Block) -> Option<usize> {
        self.lines[block.body.clone()]
            .iter()
            .find(|l| is_content(l))
            .map(|l| indent(l))
    }

    /// The last content line of `block` (its key line when its body has none).
    fn last_content(&self, block: &Block) -> Option<usize> {
        block
            .body
            .clone()
            .rev()
            .find(|&i| is_content(&self.lines[i]))
            .or(block.key_line)
    }

    /// The child of the mapping `block` with key `key`.
    fn child(&self, block: &Block, key: &str) -> Result<Option<Block>, String> {
        if !block.inline.is_empty() {
            return Err(format!(
                "`{}` is written in flow style (`{}`), which this tool does not edit",
                self.key_name(block),
                block.inline
            ));
        }
        let Some(child) = self.child_indent(block) else {
            return Ok(None);
        };
        let item = |line: &str| {
            let content = &line[child.min(line.len())..];
            content.starts_with("- ") || content.trim_end() == "-"
        };
        let mut keys = false;
        for i in block.body.clone() {
            let line = &self.lines[i];
            if !is_content(line) || indent(line) != child {
                continue;
            }
            if item(line) {
                // A list's item, or the item of a key's list written at the key's indentation
                // (`required:` then `- id` below it).
                if keys {
                    continue;
                }
                return Err(format!(
                    "`{}` is a list, which this tool does not edit",
                    self.key_name(block)
                ));
            }
            let Some((name, after)) = split_key(&line[child..]) else {
                continue;
            };
            keys = true;
            if name != key {
                continue;
            }
            let end = (i + 1..block.body.end)
                .find(|&j| {
                    let l = &self.lines[j];
                    !l.trim().is_empty() && (indent(l) < child || (indent(l) == child && !item(l)))
                })
                .unwrap_or(block.body.end);
            let value = value_text(after);
            let inline = if value.starts_with(['|', '>']) || value.starts_with('&') {
                String::new()
            } else {
                value.to_owned()
            };
            return Ok(Some(Block {
                key_line: Some(i),
                body: i + 1..end,
                inline,
            }));
        }
        Ok(None)
    }

    fn key_name(&self, block: &Block) -> String {
        block
            .key_line
            .and_then(|i| split_key(self.lines[i].trim_start()).map(|(k, _)| k))
            .unwrap_or_else(|| "the document".to_owned())
    }

    /// The block at `pointer` (a JSON pointer).
    fn locate(&self, pointer: &str) -> Result<Block, String> {
        let mut block = self.root();
        for token in pointer.split('/').skip(1) {
            let key = unescape(token);
            block = self
                .child(&block, &key)?
                .ok_or_else(|| format!("{pointer}: `{key}` not found in the text"))?;
        }
        Ok(block)
    }
}

// ---------------------------------------------------------------------------------------------
// The edits

const PREFIX: &str = "Not in the service's documentation; seen in live answers of ";

/// What was seen of one undeclared field, over the operations that had it.
#[derive(Debug, Clone, Default)]
struct FieldSeen {
    operations: BTreeSet<String>,
    seen: Seen,
}

fn date(d: Option<DateTime<Utc>>) -> Option<String> {
    d.map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true))
}

fn parse_date(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

fn code_list(names: &BTreeSet<String>) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn field_description(
    operations: &BTreeSet<String>,
    first: Option<String>,
    last: Option<String>,
) -> String {
    let mut text = format!("{PREFIX}{}", code_list(operations));
    match (first, last) {
        (Some(first), Some(last)) => {
            text.push_str(&format!(" (first seen {first}, last seen {last})."));
        }
        _ => text.push('.'),
    }
    text
}

/// When something was first and last seen.
type Span = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// Reads back a description [`field_description`] wrote: operations, first and last seen.
fn parse_field_description(text: &str) -> Option<(BTreeSet<String>, Span)> {
    let rest = text.strip_prefix(PREFIX)?;
    let (operations, dates) = match rest.split_once(" (first seen ") {
        Some((ops, dates)) => (ops, Some(dates)),
        None => (rest.strip_suffix('.')?, None),
    };
    let operations: BTreeSet<String> = operations
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    let (first, last) = match dates {
        Some(dates) => {
            let (first, last) = dates.strip_suffix(").")?.split_once(", last seen ")?;
            (Some(parse_date(first)?), Some(parse_date(last)?))
        }
        None => (None, None),
    };
    Some((operations, (first, last)))
}

/// The document's line width: a longer description is a `|` block wrapped at it.
const WIDTH: usize = 100;

/// `description: <text>` at indentation `at`: one line, or a `|` block wrapped at [`WIDTH`].
fn description_lines(at: usize, text: &str) -> Vec<String> {
    let pad = " ".repeat(at);
    if at + "description: ".len() + text.len() <= WIDTH {
        return vec![format!("{pad}description: {text}")];
    }
    let mut out = vec![format!("{pad}description: |")];
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && at + 2 + line.len() + 1 + word.len() > WIDTH {
            out.push(format!("{pad}  {line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push(format!("{pad}  {line}"));
    out
}

/// The schema lines of a new property of the types `types`, at indentation `at`.
fn type_lines(types: &[JsonType], at: &str) -> Vec<String> {
    let any_value = "'#/components/schemas/AnyValue'";
    let nullable = types.contains(&JsonType::Null);
    let others: Vec<JsonType> = types
        .iter()
        .copied()
        .filter(|t| *t != JsonType::Null)
        .collect();
    let mut out = Vec::new();
    match others.as_slice() {
        [one] => {
            out.push(format!("{at}type: {}", one.name()));
            if nullable {
                out.push(format!("{at}nullable: true"));
            }
            match one {
                JsonType::Array => {
                    out.push(format!("{at}items:"));
                    out.push(format!("{at}  $ref: {any_value}"));
                }
                JsonType::Object => {
                    out.push(format!("{at}additionalProperties:"));
                    out.push(format!("{at}  $ref: {any_value}"));
                }
                _ => {}
            }
        }
        [JsonType::Number, JsonType::String] if nullable => {
            // A nullable union is written inline (see the comment above `IntegerOrString`).
            out.push(format!("{at}nullable: true"));
            out.push(format!("{at}anyOf:"));
            out.push(format!("{at}  - type: number"));
            out.push(format!("{at}  - type: string"));
        }
        [JsonType::Number, JsonType::String] => {
            out.push(format!("{at}allOf:"));
            out.push(format!(
                "{at}  - $ref: '#/components/schemas/NumberOrString'"
            ));
        }
        _ => {
            out.push(format!("{at}allOf:"));
            out.push(format!("{at}  - $ref: {any_value}"));
        }
    }
    out
}

fn yaml_key(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !name.starts_with('-')
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
        && name.parse::<f64>().is_err();
    if plain { name.to_owned() } else { quote(name) }
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// One `x-assumed` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Assumed {
    habit: String,
    operation: String,
    first_seen: Option<DateTime<Utc>>,
    last_seen: Option<DateTime<Utc>>,
}

impl Assumed {
    fn from_value(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        if object
            .keys()
            .any(|k| !["habit", "operation", "first_seen", "last_seen"].contains(&k.as_str()))
        {
            return None;
        }
        let date = |key: &str| match object.get(key) {
            None => Some(None),
            Some(v) => parse_date(v.as_str()?).map(Some),
        };
        Some(Assumed {
            habit: object.get("habit")?.as_str()?.to_owned(),
            operation: object.get("operation")?.as_str()?.to_owned(),
            first_seen: date("first_seen")?,
            last_seen: date("last_seen")?,
        })
    }

    fn lines(&self, at: &str) -> Vec<String> {
        let mut out = vec![
            format!("{at}- habit: {}", quote(&self.habit)),
            format!("{at}  operation: {}", yaml_key(&self.operation)),
        ];
        if let Some(first) = date(self.first_seen) {
            out.push(format!("{at}  first_seen: '{first}'"));
        }
        if let Some(last) = date(self.last_seen) {
            out.push(format!("{at}  last_seen: '{last}'"));
        }
        out
    }
}

/// What `apply` did or did not do, line by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A property added: the schema's name (or pointer), the property, its types, operations.
    Added {
        schema: String,
        field: String,
        types: String,
        operations: String,
    },
    /// A property this tool added before: its description's operations or dates widened.
    Widened { schema: String, field: String },
    /// An `x-assumed` entry added or its dates widened, on the field at `at`.
    Assumed {
        at: String,
        habit: String,
        operation: String,
    },
    /// A habit the field's schema already admits.
    Admitted {
        operation: String,
        path: String,
        habit: String,
    },
    /// A field already declared (the report is older than the document).
    Declared { operation: String, path: String },
    /// What the tool cannot do, and why.
    Skipped {
        operation: String,
        path: String,
        what: String,
        reason: String,
    },
}

/// The result of [`apply`]: the new text and what changed.
pub struct Outcome {
    /// The document's new text.
    pub text: String,
    /// Each change, or why not.
    pub changes: Vec<Change>,
}

impl Outcome {
    /// The list printed by the command.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for change in &self.changes {
            let line = match change {
                Change::Added {
                    schema,
                    field,
                    types,
                    operations,
                } => {
                    format!("added     {schema}.{field} ({types}), seen in {operations}")
                }
                Change::Widened { schema, field } => {
                    format!("widened   {schema}.{field}: where and when it was seen")
                }
                Change::Assumed {
                    at,
                    habit,
                    operation,
                } => {
                    format!("assumed   {at}: {habit} ({operation})")
                }
                Change::Admitted {
                    operation,
                    path,
                    habit,
                } => {
                    format!(
                        "admitted  {operation} {path}: {habit} (the document already accepts it)"
                    )
                }
                Change::Declared { operation, path } => {
                    format!("declared  {operation} {path} (already in the document)")
                }
                Change::Skipped {
                    operation,
                    path,
                    what,
                    reason,
                } => {
                    format!("skipped   {operation} {path} ({what}): {reason}")
                }
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// The line to write in openapi/CHANGELOG.md.
    pub fn changelog_line(&self) -> String {
        let mut added = Vec::new();
        let mut assumed = BTreeSet::new();
        for change in &self.changes {
            match change {
                Change::Added { schema, field, .. } => added.push(format!("`{schema}.{field}`")),
                Change::Assumed { habit, .. } => {
                    assumed.insert(habit.clone());
                }
                _ => {}
            }
        }
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!(
                "optional {} seen in live answers and not in the service's documentation: {}",
                if added.len() == 1 {
                    "property"
                } else {
                    "properties"
                },
                added.join(", ")
            ));
        }
        if !assumed.is_empty() {
            let habits: Vec<String> = assumed.iter().map(|h| format!("\"{h}\"")).collect();
            parts.push(format!(
                "`x-assumed` records the service's habits seen in live answers ({})",
                habits.join(", ")
            ));
        }
        if parts.is_empty() {
            return "- (nothing to record: the dates of earlier drift entries widened)".to_owned();
        }
        format!("- Drift (`cargo xtask drift apply`): {}.", parts.join("; "))
    }
}

/// `Order` for `/components/schemas/Order`, `Order.id` for its property `id`; else the pointer.
fn schema_name(pointer: &str) -> String {
    match pointer.strip_prefix("/components/schemas/") {
        Some(rest) => {
            let name = rest.replace("/properties/", ".");
            match name.contains('/') {
                true => pointer.to_owned(),
                false => unescape(&name),
            }
        }
        None => pointer.to_owned(),
    }
}

/// Applies `report` to the document `text` (`name` names it in messages): the new text and
/// what changed. Fails on an operationId the document does not have, or a document that does not
/// parse (before, or after the edits).
pub fn apply(name: &str, text: &str, report: &Report) -> Result<Outcome> {
    let raw: Value =
        crate::yaml::from_str(text).with_context(|| format!("{name}: not valid YAML"))?;
    let mut changes = Vec::new();
    let mut fields: BTreeMap<(String, String), FieldSeen> = BTreeMap::new();
    let mut habits: BTreeMap<String, Vec<Assumed>> = BTreeMap::new();
    // The report's path of each field that gets `x-assumed` (in messages).
    let mut habit_paths: BTreeMap<String, String> = BTreeMap::new();
    let mut missing = Vec::new();
    for (operation, seen) in report {
        let Some(start) = success_schema(&raw, operation) else {
            missing.push(operation.clone());
            continue;
        };
        let skip = |path: &str, what: &str, reason: String| Change::Skipped {
            operation: operation.clone(),
            path: path.to_owned(),
            what: what.to_owned(),
            reason,
        };
        let start = match start {
            Ok(start) => start,
            Err(reason) => {
                for path in seen.unknown_fields.keys() {
                    changes.push(skip(path, "undeclared field", reason.clone()));
                }
                for (habit, paths) in &seen.habits {
                    for path in paths.keys() {
                        changes.push(skip(path, habit, reason.clone()));
                    }
                }
                continue;
            }
        };
        for (path, s) in &seen.unknown_fields {
            let mut steps = parse_path(path);
            let field = match steps.pop() {
                Some(Step::Name(field)) => field,
                Some(Step::Key) => {
                    let reason = "a key that looks like data, not a field's name".to_owned();
                    changes.push(skip(path, "undeclared field", reason));
                    continue;
                }
                _ => {
                    changes.push(skip(
                        path,
                        "undeclared field",
                        "not a field's path".to_owned(),
                    ));
                    continue;
                }
            };
            if s.types.is_empty() {
                let reason = "the report gives no JSON type (the mock's count only)".to_owned();
                changes.push(skip(path, "undeclared field", reason));
                continue;
            }
            let parent = walk(&raw, start.clone(), &steps).and_then(|n| resolve(&raw, n));
            let parent = match parent {
                Ok(parent) => parent,
                Err(reason) => {
                    changes.push(skip(path, "undeclared field", reason));
                    continue;
                }
            };
            if let Some(union) = ["anyOf", "oneOf", "allOf"]
                .into_iter()
                .find(|u| parent.value.get(*u).is_some())
            {
                let reason = format!(
                    "its record {} is a union (`{union}`: which branch is not known)",
                    parent.pointer
                );
                changes.push(skip(path, "undeclared field", reason));
                continue;
            }
            if parent
                .value
                .get("properties")
                .and_then(|p| p.get(&field))
                .is_some()
                && !declared_by_us(&parent, &field)
            {
                changes.push(Change::Declared {
                    operation: operation.clone(),
                    path: path.clone(),
                });
                continue;
            }
            let entry = fields.entry((parent.pointer.clone(), field)).or_default();
            entry.operations.insert(operation.clone());
            entry.seen.merge(s);
        }
        for (habit, paths) in &seen.habits {
            for (path, s) in paths {
                let field = match walk(&raw, start.clone(), &parse_path(path)) {
                    Ok(field) => field,
                    Err(reason) => {
                        changes.push(skip(path, habit, reason));
                        continue;
                    }
                };
                if !s.types.is_empty() && s.types.iter().all(|t| admits(&raw, &field, *t)) {
                    changes.push(Change::Admitted {
                        operation: operation.clone(),
                        path: path.clone(),
                        habit: habit.clone(),
                    });
                    continue;
                }
                if field.value.get("$ref").is_some() {
                    let reason = format!(
                        "{} is a bare `$ref` (OpenAPI 3.0 ignores keys beside it)",
                        field.pointer
                    );
                    changes.push(skip(path, habit, reason));
                    continue;
                }
                habit_paths
                    .entry(field.pointer.clone())
                    .or_insert_with(|| path.clone());
                let entries = habits.entry(field.pointer.clone()).or_default();
                let new = Assumed {
                    habit: habit.clone(),
                    operation: operation.clone(),
                    first_seen: s.first_seen,
                    last_seen: s.last_seen,
                };
                merge_assumed(entries, new);
            }
        }
    }
    if !missing.is_empty() {
        bail!(
            "{name} has no operation with operationId {}: is the report of another document?",
            code_list(&missing.into_iter().collect())
        );
    }
    let mut doc = Text::new(text);
    for ((pointer, field), seen) in &fields {
        let schema = schema_name(pointer);
        let operations = seen.operations.iter().next().cloned().unwrap_or_default();
        let result = add_field(&mut doc, pointer, field, seen);
        match result {
            Ok(Some(change)) => changes.push(match change {
                FieldEdit::Added => Change::Added {
                    schema,
                    field: field.clone(),
                    types: seen
                        .seen
                        .types
                        .iter()
                        .map(|t| t.name())
                        .collect::<Vec<_>>()
                        .join(" or "),
                    operations: code_list(&seen.operations),
                },
                FieldEdit::Widened => Change::Widened {
                    schema,
                    field: field.clone(),
                },
            }),
            Ok(None) => {}
            Err(reason) => changes.push(Change::Skipped {
                operation: operations,
                path: format!("{schema}.{field}"),
                what: "undeclared field".to_owned(),
                reason,
            }),
        }
    }
    for (pointer, entries) in &habits {
        match assume(&mut doc, pointer, entries) {
            Ok(changed) => {
                for entry in changed {
                    changes.push(Change::Assumed {
                        at: schema_name(pointer),
                        habit: entry.habit,
                        operation: entry.operation,
                    });
                }
            }
            Err(reason) => {
                for entry in entries {
                    changes.push(Change::Skipped {
                        operation: entry.operation.clone(),
                        path: habit_paths.get(pointer).cloned().unwrap_or_default(),
                        what: entry.habit.clone(),
                        reason: reason.clone(),
                    });
                }
            }
        }
    }
    let text = doc.join();
    let edited = Document::parse(name, text.clone()).with_context(|| {
        format!("{name}: the edited document does not parse (a bug of `drift apply`)")
    })?;
    let mut lost = Vec::new();
    kept(&raw, &edited.raw, "", &mut lost);
    if !lost.is_empty() {
        bail!(
            "{name}: the edit would change what the document says (a bug of `drift apply`): {}",
            lost.join(", ")
        );
    }
    Ok(Outcome { text, changes })
}

/// Adds to `lost` the pointer of each value of `before` that `after` does not keep: the edit
/// only adds keys (and turns an `x-assumed: true` into its list of entries, or a description
/// this tool wrote into a wider one).
fn kept(before: &Value, after: &Value, at: &str, lost: &mut Vec<String>) {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (key, value) in b {
                let here = format!("{at}/{}", escape(key));
                match a.get(key) {
                    Some(new) if key == "x-assumed" && value == &Value::Bool(true) => {
                        let entries = new.as_array().is_some_and(|l| !l.is_empty());
                        if new != value && !entries {
                            lost.push(here);
                        }
                    }
                    Some(Value::Array(new)) if key == "x-assumed" && value.is_array() => {
                        // Entries this tool wrote: kept in order, their dates only widened.
                        let old = value.as_array().map(Vec::as_slice).unwrap_or_default();
                        if new.len() < old.len() {
                            lost.push(here);
                        }
                    }
                    Some(Value::String(new)) if key == "description" => {
                        let widened = value
                            .as_str()
                            .is_some_and(|old| old.starts_with(PREFIX) && new.starts_with(PREFIX));
                        if !widened && value.as_str() != Some(new) {
                            lost.push(here);
                        }
                    }
                    Some(new) => kept(value, new, &here, lost),
                    None => lost.push(here),
                }
            }
        }
        (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
            for (i, (value, new)) in b.iter().zip(a).enumerate() {
                kept(value, new, &format!("{at}/{i}"), lost);
            }
        }
        (b, a) if b == a => {}
        _ => lost.push(if at.is_empty() {
            "/".to_owned()
        } else {
            at.to_owned()
        }),
    }
}

/// Whether the property `field` of `parent` was added by this tool (its description says so).
fn declared_by_us(parent: &Node<'_>, field: &str) -> bool {
    parent
        .value
        .pointer(&format!("/properties/{}/description", escape(field)))
        .and_then(Value::as_str)
        .is_some_and(|d| d.starts_with(PREFIX))
}

fn merge_assumed(entries: &mut Vec<Assumed>, new: Assumed) {
    match entries
        .iter_mut()
        .find(|e| e.habit == new.habit && e.operation == new.operation)
    {
        Some(old) => {
            old.first_seen = min_date(old.first_seen, new.first_seen);
            old.last_seen = old.last_seen.max(new.last_seen);
        }
        None => entries.push(new),
    }
}

enum FieldEdit {
    Added,
    Widened,
}

/// Adds the property `field` to the object schema at `pointer`, or widens the description this
/// tool wrote before. `None` when nothing changes.
fn add_field(
    doc: &mut Text,
    pointer: &str,
    field: &str,
    seen: &FieldSeen,
) -> Result<Option<FieldEdit>, String> {
    let object = doc.locate(pointer)?;
    if !object.inline.is_empty() {
        return Err(format!(
            "{pointer} is written in flow style, which this tool does not edit"
        ));
    }
    let properties = doc.child(&object, "properties")?;
    if let Some(properties) = &properties
        && let Some(existing) = doc.child(properties, field)?
    {
        // Added by an earlier run: widen where and when it was seen.
        let Some(description) = doc.child(&existing, "description")? else {
            return Ok(None);
        };
        let first_line = description.key_line.unwrap_or_default();
        let last_line = doc.last_content(&description).unwrap_or(first_line);
        let key_indent = indent(&doc.lines[first_line]);
        let text = if description.inline.is_empty() {
            // A block scalar: read back as YAML.
            let yaml: String = doc.lines[first_line..=last_line]
                .iter()
                .map(|l| l.get(key_indent..).unwrap_or(l.trim_start()).to_owned())
                .collect();
            let value: Value = crate::yaml::from_str(&yaml).unwrap_or_default();
            value["description"].as_str().unwrap_or_default().to_owned()
        } else {
            description.inline.clone()
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some((ops, (first, last))) = parse_field_description(&text) else {
            return Ok(None);
        };
        let mut operations = ops;
        operations.extend(seen.operations.iter().cloned());
        let first = min_date(first, seen.seen.first_seen);
        let last = last.max(seen.seen.last_seen);
        let text = field_description(&operations, date(first), date(last));
        let new: Vec<String> = description_lines(key_indent, &text)
            .into_iter()
            .map(|l| format!("{l}\n"))
            .collect();
        if doc.lines[first_line..=last_line] == new[..] {
            return Ok(None);
        }
        doc.lines.splice(first_line..=last_line, new);
        return Ok(Some(FieldEdit::Widened));
    }
    let description = field_description(
        &seen.operations,
        date(seen.seen.first_seen),
        date(seen.seen.last_seen),
    );
    let (insert_at, property_indent, mut lines) = match properties {
        Some(properties) => {
            if !properties.inline.is_empty() {
                return Err(format!(
                    "{pointer}/properties is written in flow style (`{}`), which this tool does not edit",
                    properties.inline
                ));
            }
            let key_indent = indent(&doc.lines[properties.key_line.unwrap_or_default()]);
            let child = doc.child_indent(&properties).unwrap_or(key_indent + 2);
            let last = doc.last_content(&properties).unwrap_or_default();
            (last + 1, child, Vec::new())
        }
        None => {
            if !pointer.starts_with("/components/schemas/") || pointer.matches('/').count() != 3 {
                return Err(format!(
                    "{pointer} has no `properties`, and an inline object schema is refused by the lint"
                ));
            }
            let key_indent = object.key_line.map(|i| indent(&doc.lines[i])).unwrap_or(0);
            let child = doc.child_indent(&object).unwrap_or(key_indent + 2);
            let last = doc.last_content(&object).unwrap_or_default();
            (
                last + 1,
                child + 2,
                vec![format!("{}properties:", " ".repeat(child))],
            )
        }
    };
    let at = " ".repeat(property_indent);
    let inner = " ".repeat(property_indent + 2);
    lines.push(format!("{at}{}:", yaml_key(field)));
    lines.extend(type_lines(&seen.seen.types, &inner));
    lines.extend(description_lines(property_indent + 2, &description));
    insert(doc, insert_at, lines);
    Ok(Some(FieldEdit::Added))
}

fn insert(doc: &mut Text, at: usize, lines: Vec<String>) {
    // A last line without a newline gets one before anything follows it.
    if at > 0 && at == doc.lines.len() && !doc.lines[at - 1].ends_with('\n') {
        doc.lines[at - 1].push('\n');
    }
    let new: Vec<String> = lines.into_iter().map(|l| format!("{l}\n")).collect();
    doc.lines.splice(at..at, new);
}

/// Records `entries` as `x-assumed` on the field at `pointer`: the entries added or widened.
fn assume(doc: &mut Text, pointer: &str, entries: &[Assumed]) -> Result<Vec<Assumed>, String> {
    let field = doc.locate(pointer)?;
    if !field.inline.is_empty() {
        return Err(format!(
            "{pointer} is written in flow style (`{}`), which this tool does not edit",
            field.inline
        ));
    }
    let key_indent = field.key_line.map(|i| indent(&doc.lines[i])).unwrap_or(0);
    let child = doc.child_indent(&field).unwrap_or(key_indent + 2);
    let existing_block = doc.child(&field, "x-assumed")?;
    let mut existing: Vec<Assumed> = Vec::new();
    if let Some(block) = &existing_block
        && block.inline.is_empty()
    {
        let first = block.key_line.unwrap_or_default();
        let last = doc.last_content(block).unwrap_or(first);
        let yaml: String = doc.lines[first..=last]
            .iter()
            .map(|l| l.get(child..).unwrap_or(l.trim_start()).to_owned())
            .collect();
        let value: Value = crate::yaml::from_str(&yaml)
            .map_err(|e| format!("{pointer}/x-assumed does not read back: {e}"))?;
        let list = value
            .get("x-assumed")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                format!("{pointer}/x-assumed is not a list of entries this tool reads")
            })?;
        for entry in list {
            existing.push(Assumed::from_value(entry).ok_or_else(|| {
                format!("{pointer}/x-assumed has an entry this tool does not read")
            })?);
        }
    } else if let Some(block) = &existing_block
        && block.inline != "true"
    {
        return Err(format!(
            "{pointer} has `x-assumed: {}`, which this tool does not extend",
            block.inline
        ));
    }
    let mut merged = existing.clone();
    for entry in entries {
        merge_assumed(&mut merged, entry.clone());
    }
    if merged == existing {
        return Ok(Vec::new());
    }
    let changed: Vec<Assumed> = merged
        .iter()
        .filter(|e| !existing.contains(e))
        .cloned()
        .collect();
    let at = " ".repeat(child);
    let inner = " ".repeat(child + 2);
    let mut lines = vec![format!("{at}x-assumed:")];
    for entry in &merged {
        lines.extend(entry.lines(&inner));
    }
    match existing_block {
        Some(block) => {
            let first = block.key_line.unwrap_or_default();
            let last = doc.last_content(&block).unwrap_or(first);
            doc.lines.drain(first..=last);
            insert(doc, first, lines);
        }
        None => {
            let last = doc.last_content(&field).unwrap_or_default();
            insert(doc, last + 1, lines);
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small document in the real one's layout: comments, a `$ref`'d list item, a `oneOf`, a
    /// flow-style property, a bare `$ref`, a field already `x-assumed: true`.
    const FIXTURE: &str = r#"openapi: 3.0.3
info:
  title: Fixture drift
  description: What `drift apply` edits.
  version: "1.0.0"
tags:
  - name: Things
paths:
  /things:
    get:
      operationId: list_things
      summary: List things
      tags: [Things]
      security:
        - oauth2: [things.read]
      responses:
        '200':
          description: The things.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/ThingList'
components:
  securitySchemes:
    oauth2:
      type: oauth2
      flows:
        authorizationCode:
          authorizationUrl: https://accounts.example.test/oauth2/auth
          tokenUrl: https://accounts.example.test/oauth2/token
          scopes:
            things.read: Read things
  schemas:
    # ------------------------------------------------ things
    ThingList:
      type: object
      required: [data]
      properties:
        data:
          type: array
          items:
            $ref: '#/components/schemas/Thing'
    Thing:
      type: object
      required: [id]
      properties:
        id:
          type: integer
          format: int64
          description: The thing's id.
        code:
          description: A code, integer or string.
          oneOf:
            - type: integer
            - type: string
        label: {type: string}
        weight:
          type: number
          x-assumed: true
          description: The weight (its unit is assumed to be grams).
        owner:
          $ref: '#/components/schemas/Owner'

    # ------------------------------------------------ owners
    Owner:
      type: object
      properties:
        name:
          type: string
"#;

    fn report(text: &str) -> Report {
        let mut report = Report::new();
        merge_report(&mut report, "report.json", text).expect("a drift report");
        report
    }

    fn seen(types: &str, first: &str, last: &str) -> String {
        format!(
            r#"{{"count": 4, "types": [{types}], "first_seen": "{first}", "last_seen": "{last}"}}"#
        )
    }

    /// The client's report (and one key of the mock's, `errors`, to be ignored).
    fn fixture_report(first: &str, last: &str) -> String {
        let string = seen(r#""string""#, first, last);
        format!(
            r#"{{"list_things": {{"calls": 3, "decoded": 3, "failed": 0, "errors": [], "errors_dropped": 0,
              "habits": {{
                "a number sent as a string": {{"answers": 2, "first_path": "data[].id", "paths": {{
                  "data[].id": {string}, "data[].code": {string},
                  "data[].weight": {string}, "data[].owner": {string}}}}},
                "null where the document has no null": {{"answers": 1, "first_path": "data[].id",
                  "paths": {{"data[].id": {null}, "data[].label": {null}}}}}}},
              "unknown_fields": {{
                "data[].warehouse_code": {ns},
                "data[].note": {nul},
                "data[].tags": {arr},
                "data[].owner.email": {string},
                "data[].code.extra": {string},
                "data[].<key>": {string}}}}}}}"#,
            null = seen(r#""null""#, first, last),
            ns = seen(r#""number", "string""#, first, last),
            nul = seen(r#""null", "string""#, first, last),
            arr = seen(r#""array""#, first, last),
        )
    }

    const FIRST: &str = "2026-11-01T10:00:00Z";
    const LAST: &str = "2026-11-02T10:00:00.123456789Z";

    fn apply_fixture(text: &str, report_text: &str) -> Outcome {
        apply("fixture.yaml", text, &report(report_text)).expect("applies")
    }

    #[test]
    fn undeclared_fields_and_habits_become_inserted_lines() {
        let outcome = apply_fixture(FIXTURE, &fixture_report(FIRST, LAST));
        let seen_in = "|\n            Not in the service's documentation; seen in live answers of `list_things` (first seen\n            2026-11-01T10:00:00Z, last seen 2026-11-02T10:00:00Z).";
        let expected = FIXTURE
            .replace(
                "        owner:\n          $ref: '#/components/schemas/Owner'\n",
                &format!(
                    "        owner:\n          $ref: '#/components/schemas/Owner'\n\
                     \x20       note:\n\
                     \x20         type: string\n\
                     \x20         nullable: true\n\
                     \x20         description: {seen_in}\n\
                     \x20       tags:\n\
                     \x20         type: array\n\
                     \x20         items:\n\
                     \x20           $ref: '#/components/schemas/AnyValue'\n\
                     \x20         description: {seen_in}\n\
                     \x20       warehouse_code:\n\
                     \x20         allOf:\n\
                     \x20           - $ref: '#/components/schemas/NumberOrString'\n\
                     \x20         description: {seen_in}\n"
                ),
            )
            .replace(
                "          description: The thing's id.\n",
                "          description: The thing's id.\n\
                 \x20         x-assumed:\n\
                 \x20           - habit: 'a number sent as a string'\n\
                 \x20             operation: list_things\n\
                 \x20             first_seen: '2026-11-01T10:00:00Z'\n\
                 \x20             last_seen: '2026-11-02T10:00:00Z'\n\
                 \x20           - habit: 'null where the document has no null'\n\
                 \x20             operation: list_things\n\
                 \x20             first_seen: '2026-11-01T10:00:00Z'\n\
                 \x20             last_seen: '2026-11-02T10:00:00Z'\n",
            )
            .replace(
                "          x-assumed: true\n",
                "          x-assumed:\n\
                 \x20           - habit: 'a number sent as a string'\n\
                 \x20             operation: list_things\n\
                 \x20             first_seen: '2026-11-01T10:00:00Z'\n\
                 \x20             last_seen: '2026-11-02T10:00:00Z'\n",
            )
            .replace(
                "        name:\n          type: string\n",
                &format!(
                    "        name:\n          type: string\n\
                     \x20       email:\n\
                     \x20         type: string\n\
                     \x20         description: {seen_in}\n"
                ),
            );
        assert_eq!(outcome.text, expected, "{}", outcome.listing());
        // The edited document parses as OpenAPI and its values are what the lines say.
        let doc = Document::parse("fixture.yaml", outcome.text.clone()).expect("parses");
        let thing = &doc.raw["components"]["schemas"]["Thing"];
        assert_eq!(thing["properties"]["note"]["nullable"], Value::Bool(true));
        assert_eq!(
            thing["properties"]["id"]["x-assumed"][0]["habit"],
            "a number sent as a string"
        );
        assert_eq!(
            thing["properties"]["id"]["type"], "integer",
            "the type is kept"
        );
        assert_eq!(
            thing["required"],
            serde_json::json!(["id"]),
            "nothing made required"
        );
        let listing = outcome.listing();
        for expected in [
            "admitted  list_things data[].code: a number sent as a string",
            "skipped   list_things data[].label (null where the document has no null): /components/schemas/Thing/properties/label is written in flow style (`{type: string}`), which this tool does not edit",
            "assumed   Thing.id: null where the document has no null (list_things)",
            "skipped   list_things data[].owner (a number sent as a string): /components/schemas/Thing/properties/owner is a bare `$ref` (OpenAPI 3.0 ignores keys beside it)",
            "skipped   list_things data[].code.extra (undeclared field): its record /components/schemas/Thing/properties/code is a union (`oneOf`: which branch is not known)",
            "skipped   list_things data[].<key> (undeclared field): a key that looks like data, not a field's name",
            "added     Thing.warehouse_code (number or string), seen in `list_things`",
            "added     Owner.email (string), seen in `list_things`",
        ] {
            assert!(listing.contains(expected), "{expected}\nnot in\n{listing}");
        }
        assert_eq!(
            outcome.changelog_line(),
            "- Drift (`cargo xtask drift apply`): optional properties seen in live answers and not in the service's documentation: `Owner.email`, `Thing.note`, `Thing.tags`, `Thing.warehouse_code`; `x-assumed` records the service's habits seen in live answers (\"a number sent as a string\", \"null where the document has no null\")."
        );
    }

    #[test]
    fn a_second_run_changes_nothing_and_newer_reports_only_widen_dates() {
        let once = apply_fixture(FIXTURE, &fixture_report(FIRST, LAST)).text;
        let twice = apply_fixture(&once, &fixture_report(FIRST, LAST));
        assert_eq!(twice.text, once, "byte-identical the second time");
        assert!(
            !twice.listing().contains("added") && !twice.listing().contains("assumed "),
            "{}",
            twice.listing()
        );
        // A newer report (and an older one merged with it): only dates move, outwards.
        let newer = apply_fixture(
            &once,
            &fixture_report("2026-11-05T00:00:00Z", "2026-11-09T00:00:00Z"),
        );
        let diff = similar::TextDiff::from_lines(once.as_str(), newer.text.as_str());
        let mut changed = 0;
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Equal => {}
                similar::ChangeTag::Delete => {
                    changed += 1;
                    assert!(
                        change.value().contains("last_seen")
                            || change.value().contains("last seen"),
                        "{change}"
                    );
                }
                similar::ChangeTag::Insert => {
                    assert!(change.value().contains("2026-11-09T00:00:00Z"), "{change}");
                }
            }
        }
        assert_eq!(changed, 7, "4 descriptions and 3 x-assumed entries widen");
        assert!(newer.text.contains(
            "(first seen\n            2026-11-01T10:00:00Z, last seen 2026-11-09T00:00:00Z).\n"
        ));
        let again = apply_fixture(&newer.text, &fixture_report(FIRST, LAST));
        assert_eq!(again.text, newer.text, "an older report narrows nothing");
    }

    #[test]
    fn the_edited_fixture_passes_the_lint() {
        // With the components the new properties use (unused before the edit).
        let with_any_value = FIXTURE.replace(
            "    # ------------------------------------------------ owners\n",
            "    AnyValue:\n      description: Any JSON value.\n    NumberOrString:\n      anyOf:\n        - type: number\n        - type: string\n    # ------------------------------------------------ owners\n",
        );
        let outcome = apply_fixture(&with_any_value, &fixture_report(FIRST, LAST));
        let after = Document::parse("fixture.yaml", outcome.text).expect("parses");
        after.lint().expect("lints");
        // And progenitor generates a client with the new fields, of the types the idioms give.
        let version =
            crate::generate::progenitor_version(&crate::document::workspace_root()).unwrap();
        let code = crate::render::render_client(&after, crate::render::Flavor::Fixture, &version)
            .expect("generates");
        let code: String = code.split_whitespace().collect();
        for field in [
            "pubwarehouse_code:::std::option::Option<NumberOrString>",
            "pubnote:::std::option::Option<::std::string::String>",
            "pubtags:::std::vec::Vec<AnyValue>",
            "pubemail:::std::option::Option<::std::string::String>",
        ] {
            assert!(code.contains(field), "{field} not in the generated code");
        }
    }

    #[test]
    fn bad_reports_and_unknown_operations_are_clear_errors() {
        let mut report = Report::new();
        for (text, expected) in [
            ("[1, 2]", "x.json: not a drift report"),
            (
                r#"{"list_things": {"habits": {}}}"#,
                "x.json: not a drift report",
            ),
            (
                r#"{"list_things": {"calls": 1, "colour": "red"}}"#,
                "x.json: not a drift report",
            ),
            ("not json", "x.json: not a drift report"),
        ] {
            let error = merge_report(&mut report, "x.json", text).expect_err(text);
            assert!(format!("{error:#}").starts_with(expected), "{error:#}");
        }
        let missing = std::env::temp_dir().join("xtask-drift-no-such-report.json");
        let error = read_reports(std::slice::from_ref(&missing)).expect_err("no such file");
        assert_eq!(error.to_string(), format!("reading {}", missing.display()));
        let error = run(
            &crate::document::workspace_root(),
            Command::Apply {
                reports: vec![PathBuf::from("Cargo.toml")],
                document: Some(missing.clone()),
                no_generate: true,
            },
        )
        .expect_err("no such document");
        assert_eq!(error.to_string(), format!("reading {}", missing.display()));
        let error = apply(
            "fixture.yaml",
            FIXTURE,
            &self::report(r#"{"get_widget": {"calls": 1}, "list_things": {"calls": 1}}"#),
        )
        .err()
        .expect("an unknown operation");
        assert_eq!(
            error.to_string(),
            "fixture.yaml has no operation with operationId `get_widget`: is the report of another document?"
        );
    }

    #[test]
    fn the_mock_format_counts_without_types_are_skipped_and_habits_read_at_their_first_path() {
        let mock = r#"{"list_things": {"calls": 2, "decoded": 2, "failed": 0, "errors": [], "errors_dropped": 0,
            "habits": {"a number sent as a string": {"answers": 2, "first_path": "data[].id"}},
            "unknown_fields": {"data[].colour": 2}, "unknown_fields_dropped": 0}}"#;
        let outcome = apply_fixture(FIXTURE, mock);
        assert!(outcome.listing().contains("skipped   list_things data[].colour (undeclared field): the report gives no JSON type"), "{}", outcome.listing());
        assert!(outcome.text.contains("          x-assumed:\n            - habit: 'a number sent as a string'\n              operation: list_things\n        code:"), "{}", outcome.text);
    }

    #[test]
    fn the_guard_names_any_value_the_edit_would_lose_or_change() {
        let before = serde_json::json!({
            "a": {"type": "integer", "x-assumed": true, "description": "Kept."},
            "b": [1, 2],
        });
        let added = serde_json::json!({
            "a": {"type": "integer", "x-assumed": [{"habit": "h", "operation": "o"}],
                  "description": "Kept.", "nullable": true},
            "b": [1, 2],
            "c": 3,
        });
        let mut lost = Vec::new();
        kept(&before, &added, "", &mut lost);
        assert!(lost.is_empty(), "{lost:?}");
        let changed = serde_json::json!({
            "a": {"type": "string", "x-assumed": false, "description": "Other."},
            "b": [1],
        });
        kept(&before, &changed, "", &mut lost);
        lost.sort();
        assert_eq!(lost, ["/a/description", "/a/type", "/a/x-assumed", "/b"]);
    }

    /// A top-level list, a map's values (`<key>`), a component without `properties` yet, a
    /// `2XX` answer given by `$ref`, and a last line without a newline.
    #[test]
    fn map_values_top_level_lists_and_records_without_properties() {
        let document = "openapi: 3.0.3
info: {title: Maps, version: '1.0.0'}
paths:
  /prices:
    get:
      operationId: 'list_prices'
      responses:
        '2XX':
          $ref: '#/components/responses/Prices'
components:
  responses:
    Prices:
      description: Prices by currency, per product.
      content:
        application/json:
          schema:
            type: array
            items:
              $ref: '#/components/schemas/PriceMap'
  schemas:
    PriceMap:
      type: object
      additionalProperties:
        $ref: '#/components/schemas/Price'
    Price:
      type: object
      description: A price (its fields are not documented)";
        let outcome = apply_fixture(
            document,
            &format!(
                r#"{{"list_prices": {{"calls": 1, "unknown_fields": {{"[].<key>.amount": {}}}}}}}"#,
                seen(r#""number""#, FIRST, LAST)
            ),
        );
        assert_eq!(
            outcome.text,
            format!(
                "{document}\n      properties:\n        amount:\n          type: number\n          \
                 description: |\n            Not in the service's documentation; seen in live answers of \
                 `list_prices` (first seen\n            2026-11-01T10:00:00Z, last seen 2026-11-02T10:00:00Z).\n"
            ),
            "{}",
            outcome.listing()
        );
        let value: Value = crate::yaml::from_str(&outcome.text).expect("parses");
        assert_eq!(
            value["components"]["schemas"]["Price"]["properties"]["amount"]["type"],
            "number"
        );
    }

    /// Lists written at their key's indentation (`required:` then `- id`) stay whole.
    #[test]
    fn lists_at_their_keys_indentation_stay_whole() {
        let document = "openapi: 3.0.3
info:
  title: Lists
  version: '1.0.0'
paths:
  /things:
    get:
      operationId: list_things
      responses:
        '200':
          description: The things.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Thing'
components:
  schemas:
    Thing:
      required:
      - id
      type: object
      properties:
        id:
          type: integer
        kind:
          type: string
          x-known-values:
          - small
          - large
";
        let outcome = apply_fixture(
            document,
            &format!(
                r#"{{"list_things": {{"calls": 1, "unknown_fields": {{"colour": {}}}}}}}"#,
                seen(r#""string""#, FIRST, LAST)
            ),
        );
        assert_eq!(
            outcome.text,
            format!(
                "{document}        colour:\n          type: string\n          description: |\n            \
                 Not in the service's documentation; seen in live answers of `list_things` (first seen\n            \
                 2026-11-01T10:00:00Z, last seen 2026-11-02T10:00:00Z).\n"
            ),
            "{}",
            outcome.listing()
        );
    }

    #[test]
    fn a_description_is_one_line_or_a_block_wrapped_at_the_documents_width() {
        assert_eq!(description_lines(4, "Short."), ["    description: Short."]);
        let long = "word ".repeat(40);
        let lines = description_lines(10, long.trim_end());
        assert_eq!(lines[0], "          description: |");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.len() <= WIDTH && l.starts_with("            word"))
        );
        assert_eq!(lines[1..].join(" ").split_whitespace().count(), 40);
    }

    #[test]
    fn the_changelog_goes_under_the_next_minor_version() {
        assert_eq!(
            next_minor(FIXTURE),
            Some(("1.0.0".to_owned(), "1.1.0".to_owned()))
        );
        assert_eq!(next_minor("info: {version: draft}"), None);
    }

    #[test]
    fn reports_merge_counts_types_and_dates() {
        let mut merged = report(&fixture_report(FIRST, LAST));
        merge_report(
            &mut merged,
            "b.json",
            &fixture_report("2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z"),
        )
        .unwrap();
        let field = &merged["list_things"].unknown_fields["data[].warehouse_code"];
        assert_eq!(field.count, 8);
        assert_eq!(field.types, [JsonType::Number, JsonType::String]);
        assert_eq!(
            date(field.first_seen).as_deref(),
            Some("2026-10-01T00:00:00Z")
        );
        assert_eq!(
            date(field.last_seen).as_deref(),
            Some("2026-11-02T10:00:00Z")
        );
    }

    /// The real document, copied: an undeclared field of an order and a habit on its id; the rest
    /// of the file byte-identical, the result parses and lints, a second run changes nothing.
    #[test]
    fn the_real_document_gets_lines_inserted_and_nothing_else() {
        let root = crate::document::workspace_root();
        let original = std::fs::read_to_string(root.join(SPEC)).expect("the document");
        let dir = std::env::temp_dir().join(format!("xtask-drift-apply-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join("store-admin.yaml");
        std::fs::write(&copy, &original).unwrap();
        let report_path = dir.join("report.json");
        let string = seen(r#""string""#, FIRST, LAST);
        std::fs::write(
            &report_path,
            format!(
                r#"{{"get_order": {{"calls": 1, "decoded": 1, "failed": 0,
                  "habits": {{"a number sent as a string": {{"answers": 1, "first_path": "data.id", "paths": {{"data.id": {string}}}}}}},
                  "unknown_fields": {{"data.gift_wrapping": {string}}}}}}}"#
            ),
        )
        .unwrap();
        let run_once = || {
            run(
                &root,
                Command::Apply {
                    reports: vec![report_path.clone()],
                    document: Some(copy.clone()),
                    no_generate: true,
                },
            )
            .expect("applies");
            std::fs::read_to_string(&copy).unwrap()
        };
        let edited = run_once();
        let diff = similar::TextDiff::from_lines(original.as_str(), edited.as_str());
        let inserted: String = diff
            .iter_all_changes()
            .filter(|c| c.tag() != similar::ChangeTag::Equal)
            .map(|c| {
                assert_eq!(c.tag(), similar::ChangeTag::Insert, "only insertions: {c}");
                c.value().to_owned()
            })
            .collect();
        assert_eq!(
            inserted,
            "          x-assumed:\n\
             \x20           - habit: 'a number sent as a string'\n\
             \x20             operation: get_order\n\
             \x20             first_seen: '2026-11-01T10:00:00Z'\n\
             \x20             last_seen: '2026-11-02T10:00:00Z'\n\
             \x20       gift_wrapping:\n\
             \x20         type: string\n\
             \x20         description: |\n\
             \x20           Not in the service's documentation; seen in live answers of `get_order` (first seen\n\
             \x20           2026-11-01T10:00:00Z, last seen 2026-11-02T10:00:00Z).\n"
        );
        let doc = Document::parse(SPEC, edited.clone()).expect("parses");
        crate::generate::lint_client(&doc).expect("lints");
        let details = &doc.raw["components"]["schemas"]["OrderDetails"]["properties"];
        assert_eq!(details["gift_wrapping"]["type"], "string");
        assert_eq!(details["id"]["x-assumed"][0]["operation"], "get_order");
        assert_eq!(run_once(), edited, "byte-identical the second time");
        std::fs::remove_dir_all(&dir).ok();
    }
}
