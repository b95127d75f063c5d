//! `cargo xtask openapi bundle|diff`: publish the document to teams in other languages.
//!
//! - `bundle [--out DIR]` writes `store-admin.yaml`, `store-admin.json` (every `$ref` internal) and
//!   `store-admin.html` (a reference that works offline) plus `SHA256SUMS` into one folder,
//!   `dist/openapi` by default. The same document gives the same bytes.
//! - `diff <git-ref> [--spec FILE]` lists the changes between the document at a git ref and the
//!   working copy, classed breaking or not, and fails when a breaking change comes without a major
//!   bump of `info.version` (or a new version without an entry in `CHANGELOG.md`).
//!
//! Both shell out to pinned npm tools (Redocly CLI, Optic) that `bash .ci/publish/tools` installs
//! under `target/tools/publish` (override the folder with `XTASK_PUBLISH_TOOLS`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};

use anyhow::{Context, Result, anyhow, bail};
use clap::Subcommand;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::document::{Document, SPEC};

/// Default output folder of `bundle`, relative to the workspace root.
pub const DEFAULT_OUT: &str = "dist/openapi";
/// The Redocly CLI configuration, relative to the workspace root.
pub const REDOCLY_CONFIG: &str = "openapi/redocly.yaml";
/// The Optic standard (ruleset) used by `diff`, relative to the workspace root.
pub const OPTIC_STANDARD: &str = "openapi/optic.yml";
/// Environment variable naming the tools folder (default `target/tools/publish`).
pub const TOOLS_ENV: &str = "XTASK_PUBLISH_TOOLS";

/// The Content-Security-Policy written into the HTML reference: the page may run its own inline
/// scripts and styles and show `data:` images, and can load nothing from anywhere.
pub const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
img-src data:; font-src data:; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'";

/// Remote images that Redoc's page references although it works without them (the "API docs by
/// Redocly" logo, which hides itself when it does not load): replaced by an empty `data:` URL.
const REMOTE_ASSETS: [&str; 2] = [
    "https://cdn.redoc.ly/redoc/logo-mini-full.svg",
    "https://cdn.redoc.ly/redoc/logo-mini.svg",
];

/// Elements whose `src`/`href`/`data`/`srcset` make the browser fetch something when the page loads.
const LOADING_ELEMENTS: [&str; 10] = [
    "script", "link", "img", "iframe", "source", "video", "audio", "embed", "object", "track",
];

/// The `openapi` subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Write store-admin.yaml, store-admin.json and an offline store-admin.html into one folder.
    Bundle {
        /// Output folder (default: dist/openapi in the workspace).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// List changes since a git ref, classed breaking or not; fail on a breaking change without
    /// a major bump of info.version.
    Diff {
        /// The git ref to compare with (a tag, a branch, a commit, `HEAD~1`).
        git_ref: String,
        /// The document's working copy (default: openapi/store-admin.yaml); the ref is read from
        /// the git repository that holds it, at the same path.
        #[arg(long, value_name = "FILE")]
        spec: Option<PathBuf>,
    },
}

/// Runs an `openapi` subcommand.
pub fn run(root: &Path, command: Command) -> Result<()> {
    let tools = Tools::locate(root);
    match command {
        Command::Bundle { out } => {
            let out = out.unwrap_or_else(|| root.join(DEFAULT_OUT));
            for (name, size) in bundle(root, &out, &tools)? {
                println!("wrote     {} ({size} bytes)", out.join(name).display());
            }
            Ok(())
        }
        Command::Diff { git_ref, spec } => {
            let spec = spec.unwrap_or_else(|| root.join(SPEC));
            let standard = root.join(OPTIC_STANDARD);
            let summary = diff(&spec, &git_ref, &standard, &tools)?;
            println!("{summary}");
            Ok(())
        }
    }
}

// ------------------------------------------------------------------------------------------ tools

/// Where the pinned npm tools of `.ci/publish/tools` live.
pub struct Tools {
    dir: PathBuf,
}

impl Tools {
    /// `$XTASK_PUBLISH_TOOLS`, or `target/tools/publish` in the workspace.
    pub fn locate(root: &Path) -> Self {
        let dir = std::env::var_os(TOOLS_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/tools/publish"));
        Self { dir }
    }

    /// The executable of an npm tool, or an error saying how to install it.
    pub fn bin(&self, name: &str) -> Result<PathBuf> {
        let path = self.dir.join("node/node_modules/.bin").join(name);
        if path.is_file() {
            Ok(path)
        } else {
            bail!(
                "`{name}` is not installed at {}: run `bash .ci/publish/tools` (or point {TOOLS_ENV} at a folder where it ran)",
                path.display()
            )
        }
    }
}

/// Runs a tool with telemetry, update checks and colours off; returns its output whatever its
/// exit status (callers decide what a failure means).
fn run_tool(program: &Path, args: &[&str], cwd: &Path) -> Result<Output> {
    Process::new(program)
        .args(args)
        .current_dir(cwd)
        .env("REDOCLY_TELEMETRY", "off")
        .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
        .env("OPTIC_TELEMETRY_LEVEL", "off")
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0")
        .output()
        .with_context(|| format!("running {}", program.display()))
}

/// Runs a tool and fails, with its output, unless it exits 0.
fn run_tool_ok(program: &Path, args: &[&str], cwd: &Path) -> Result<Output> {
    let output = run_tool(program, args, cwd)?;
    if !output.status.success() {
        bail!(
            "{} {} failed ({}):\n{}{}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

// ----------------------------------------------------------------------------------------- bundle

/// Writes the bundle into `out`; returns each file name with its size.
pub fn bundle(root: &Path, out: &Path, tools: &Tools) -> Result<Vec<(String, usize)>> {
    let source = Document::load(root, SPEC)?;
    source.lint()?;
    let redocly = tools.bin("redocly")?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let out = out
        .canonicalize()
        .with_context(|| format!("resolving {}", out.display()))?;
    let config = root.join(REDOCLY_CONFIG);
    let config = config.to_string_lossy();
    let spec = root.join(SPEC);
    let spec = spec.to_string_lossy();

    // The YAML and JSON documents: Redocly CLI resolves any external `$ref` into components.
    let yaml_path = out.join("store-admin.yaml");
    let json_path = out.join("store-admin.json");
    for path in [&yaml_path, &json_path] {
        let path = path.to_string_lossy();
        run_tool_ok(
            &redocly,
            &["bundle", &spec, "--config", &config, "-o", &path],
            root,
        )?;
    }
    let yaml = read(&yaml_path)?;
    let json = read(&json_path)?;
    check_bundle(&source.raw, &yaml, &json)?;

    // The HTML reference, with the Redoc scripts inlined, then locked down to work offline.
    let html_path = out.join("store-admin.html");
    let html_arg = html_path.to_string_lossy();
    let yaml_arg = yaml_path.to_string_lossy();
    run_tool_ok(
        &redocly,
        &[
            "build-docs",
            &yaml_arg,
            "--config",
            &config,
            "--inlineBundle",
            "-o",
            &html_arg,
        ],
        root,
    )?;
    let html = make_offline(&read(&html_path)?)?;
    write(&html_path, &html)?;

    let mut files = vec![
        ("store-admin.yaml".to_owned(), yaml),
        ("store-admin.json".to_owned(), json),
        ("store-admin.html".to_owned(), html),
    ];
    let sums = sha256sums(&files);
    write(&out.join("SHA256SUMS"), &sums)?;
    files.push(("SHA256SUMS".to_owned(), sums));
    Ok(files
        .into_iter()
        .map(|(name, text)| (name, text.len()))
        .collect())
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// `sha256sum`-compatible lines for the files, in the order given.
pub fn sha256sums(files: &[(String, String)]) -> String {
    let mut out = String::new();
    for (name, text) in files {
        let digest = Sha256::digest(text.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(out, "{hex}  {name}");
    }
    out
}

/// Checks the bundled YAML and JSON: both parse, hold the same document, have only internal
/// `$ref`s that resolve, and (when the source has no external `$ref`) equal the source.
pub fn check_bundle(source: &Value, yaml: &str, json: &str) -> Result<()> {
    let from_yaml: Value =
        crate::yaml::from_str(yaml).context("the bundled YAML does not parse")?;
    let from_json: Value = serde_json::from_str(json).context("the bundled JSON does not parse")?;
    if from_yaml != from_json {
        bail!("the bundled YAML and JSON hold different documents");
    }
    let problems = ref_problems(&from_json);
    if !problems.is_empty() {
        bail!(
            "the bundle has unresolvable $refs:\n{}",
            problems.join("\n")
        );
    }
    if ref_problems(source).is_empty() && &from_json != source {
        bail!(
            "the bundle differs from openapi/store-admin.yaml although that has only internal $refs"
        );
    }
    Ok(())
}

/// Every `$ref` that is not internal (`#/...`) or does not resolve, as `<pointer>: <ref>: <why>`.
pub fn ref_problems(document: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_refs(document, document, String::new(), &mut out);
    out
}

fn walk_refs(document: &Value, node: &Value, at: String, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "$ref" {
                    match value.as_str() {
                        Some(target) if target.starts_with("#/") => {
                            if document.pointer(&target[1..]).is_none() {
                                out.push(format!("{at}: {target}: resolves to nothing"));
                            }
                        }
                        Some(target) => out.push(format!("{at}: {target}: not internal")),
                        None => out.push(format!("{at}: $ref is not a string")),
                    }
                } else {
                    let child = format!("{at}/{}", crate::lint::escape(key));
                    walk_refs(document, value, child, out);
                }
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                walk_refs(document, value, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// Makes Redoc's page work offline: a Content-Security-Policy that forbids every load from
/// outside the file, and the remote logo replaced by an empty image. Fails if something on the
/// page would still be fetched.
pub fn make_offline(html: &str) -> Result<String> {
    let head = html
        .find("<head>")
        .ok_or_else(|| anyhow!("the HTML reference has no <head>"))?
        + "<head>".len();
    let meta = format!("\n  <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">");
    let mut out = String::with_capacity(html.len() + meta.len());
    out.push_str(&html[..head]);
    out.push_str(&meta);
    out.push_str(&html[head..]);
    for asset in REMOTE_ASSETS {
        out = out.replace(asset, "data:,");
    }
    let problems = offline_problems(&out);
    if !problems.is_empty() {
        bail!(
            "the HTML reference would load things from the network:\n{}",
            problems.join("\n")
        );
    }
    Ok(out)
}

/// What in `html` would make the browser fetch something from outside the file: elements that
/// load a remote URL, remote `@import`/`url()` in `<style>`, the known remote assets, or a missing
/// Content-Security-Policy.
pub fn offline_problems(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
    )) {
        out.push("no Content-Security-Policy <meta> that forbids remote loads".to_owned());
    }
    for asset in REMOTE_ASSETS {
        if html.contains(asset) {
            out.push(format!("references {asset}"));
        }
    }
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(offset) = lower[at..].find('<') {
        let start = at + offset;
        let Some(end) = lower[start..].find('>').map(|e| start + e + 1) else {
            break;
        };
        let tag = &lower[start..end];
        let name: String = tag[1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if LOADING_ELEMENTS.contains(&name.as_str()) {
            for url in attribute_urls(tag) {
                if is_remote(&url) {
                    out.push(format!("<{name}> loads {url}"));
                }
            }
        }
        at = end;
        // The bodies of scripts and styles are not markup: skip them (styles are checked).
        for raw in ["script", "style"] {
            if name == raw {
                let close = format!("</{raw}");
                let body_end = lower[at..].find(&close).map_or(lower.len(), |e| at + e);
                if raw == "style" {
                    out.extend(style_problems(&lower[at..body_end]));
                }
                at = body_end;
            }
        }
    }
    out
}

/// The values of `src`, `href`, `data` and `srcset` attributes in one start tag.
fn attribute_urls(tag: &str) -> Vec<String> {
    let mut urls = Vec::new();
    for attribute in ["src=", "href=", "data=", "srcset="] {
        let mut from = 0;
        while let Some(found) = tag[from..].find(attribute) {
            let start = from + found;
            from = start + attribute.len();
            let preceded_by_space = tag[..start].ends_with(|c: char| c.is_ascii_whitespace());
            if !preceded_by_space {
                continue;
            }
            let rest = &tag[from..];
            let value = match rest.chars().next() {
                Some(quote @ ('"' | '\'')) => rest[1..].split(quote).next().unwrap_or_default(),
                _ => rest
                    .split(|c: char| c.is_ascii_whitespace() || c == '>')
                    .next()
                    .unwrap_or_default(),
            };
            urls.extend(value.split(',').map(|part| part.trim().to_owned()));
        }
    }
    urls
}

fn is_remote(url: &str) -> bool {
    let url = url.trim_start_matches(['"', '\'', ' ']);
    url.starts_with("http:") || url.starts_with("https:") || url.starts_with("//")
}

fn style_problems(css: &str) -> Vec<String> {
    let mut out = Vec::new();
    if css.contains("@import") {
        out.push("a <style> uses @import".to_owned());
    }
    let mut from = 0;
    while let Some(found) = css[from..].find("url(") {
        let start = from + found + "url(".len();
        from = start;
        if is_remote(&css[start..]) {
            let end = css[start..].find(')').map_or(css.len(), |e| start + e);
            out.push(format!("a <style> loads {}", &css[start..end]));
        }
    }
    out
}

// ------------------------------------------------------------------------------------------- diff

/// One change Optic reports, with the checks it failed (empty: not breaking).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Where, e.g. `GET /products/quantities › query parameter warehouse`.
    pub location: String,
    /// `added`, `removed` or `changed`.
    pub kind: String,
    /// The failed checks, `[rule] message`: a change with any is breaking.
    pub breaking: Vec<String>,
}

/// What Optic's terminal report says.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DiffReport {
    /// Every change, in Optic's order.
    pub changes: Vec<Change>,
}

impl DiffReport {
    /// The breaking changes.
    pub fn breaking(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| !c.breaking.is_empty())
    }
}

const CHANGE_KINDS: [&str; 3] = ["added", "removed", "changed"];
const HTTP_METHODS: [&str; 8] = [
    "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE",
];

/// Splits `label: kind`, `label kind` or `label:` into the label and the change kind, if any.
fn split_kind(text: &str) -> (String, Option<String>) {
    let text = text.trim_end();
    for kind in CHANGE_KINDS {
        for sep in [": ", " "] {
            if let Some(label) = text.strip_suffix(&format!("{sep}{kind}")) {
                return (label.trim_end().to_owned(), Some(kind.to_owned()));
            }
        }
    }
    (text.trim_end_matches(':').trim_end().to_owned(), None)
}

/// Removes ANSI colour sequences, should a terminal setting bring them back.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for next in chars.by_ref() {
                if next.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads Optic's terminal report (`optic diff A B --check`): every change (`- label: added`
/// under an operation) and the failed checks (`x [rule] message`) under it.
pub fn parse_optic(text: &str) -> DiffReport {
    let mut report = DiffReport::default();
    let mut scope = String::new();
    // (indent, label) of the enclosing `- label:` lines.
    let mut stack: Vec<(usize, String)> = Vec::new();
    let location = |scope: &str, stack: &[(usize, String)]| {
        std::iter::once(scope)
            .chain(stack.iter().map(|(_, l)| l.as_str()))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" › ")
    };
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let unmarked = trimmed
            .strip_prefix("x ")
            .or_else(|| trimmed.strip_prefix("✔ "))
            .or_else(|| trimmed.strip_prefix("✓ "))
            .unwrap_or(trimmed);
        if let Some(check) = trimmed.strip_prefix("x [") {
            let here = location(&scope, &stack);
            let message = format!("[{check}");
            let owner =
                report.changes.iter_mut().rev().find(|c| {
                    here == c.location || here.starts_with(&format!("{} › ", c.location))
                });
            match owner {
                Some(change) => change.breaking.push(message),
                None => report.changes.push(Change {
                    location: here,
                    kind: "changed".to_owned(),
                    breaking: vec![message],
                }),
            }
        } else if indent == 0
            && HTTP_METHODS
                .iter()
                .any(|m| unmarked.starts_with(&format!("{m} /")))
        {
            let (label, kind) = split_kind(unmarked);
            scope = label;
            stack.clear();
            if let Some(kind) = kind {
                report.changes.push(Change {
                    location: scope.clone(),
                    kind,
                    breaking: Vec::new(),
                });
            }
        } else if indent == 0 && trimmed.starts_with("specification details") {
            scope = "specification".to_owned();
            stack.clear();
        } else if let Some(item) = trimmed.strip_prefix("- ") {
            let (label, kind) = split_kind(item);
            while stack.last().is_some_and(|(i, _)| *i >= indent) {
                stack.pop();
            }
            stack.push((indent, label));
            if let Some(kind) = kind {
                report.changes.push(Change {
                    location: location(&scope, &stack),
                    kind,
                    breaking: Vec::new(),
                });
            }
        }
    }
    report
}

/// The major number of a `MAJOR.MINOR.PATCH` version (a leading `v` is allowed).
pub fn major(version: &str) -> Result<u64> {
    let trimmed = version.trim().trim_start_matches('v');
    let first = trimmed.split(['.', '-', '+']).next().unwrap_or_default();
    first.parse().map_err(|_| {
        anyhow!("info.version `{version}` is not a semantic version (MAJOR.MINOR.PATCH)")
    })
}

/// Whether breaking changes are allowed between the two versions: only with a higher major.
pub fn check_version(base: &str, head: &str, breaking: usize) -> Result<()> {
    let (from, to) = (major(base)?, major(head)?);
    if breaking > 0 && to <= from {
        bail!(
            "{breaking} breaking change(s), but info.version goes {base} -> {head}: bump the major \
             version (to {}.0.0) and record it in openapi/CHANGELOG.md",
            from + 1
        );
    }
    Ok(())
}

/// Whether a changelog has a `## <version>` (or `## [<version>]`) heading.
pub fn changelog_records(changelog: &str, version: &str) -> bool {
    changelog.lines().any(|line| {
        line.strip_prefix("## ").is_some_and(|title| {
            let title = title.trim().trim_start_matches('[');
            title
                .strip_prefix(version)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([']', ' ', '\t']))
        })
    })
}

fn info_version(document: &Value, what: &str) -> Result<String> {
    document
        .pointer("/info/version")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| anyhow!("{what} has no info.version"))
}

/// Compares `spec` (a working copy) with the same file at `git_ref`; returns the printed report,
/// or fails when the versions do not fit the changes.
pub fn diff(spec: &Path, git_ref: &str, standard: &Path, tools: &Tools) -> Result<String> {
    let spec = spec
        .canonicalize()
        .with_context(|| format!("{}: no such document", spec.display()))?;
    let dir = spec
        .parent()
        .ok_or_else(|| anyhow!("{} has no folder", spec.display()))?;
    let file_name = spec
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let shown = Process::new("git")
        .arg("-C")
        .arg(dir)
        .arg("show")
        .arg(format!("{git_ref}:./{file_name}"))
        .output()
        .context("running git")?;
    if !shown.status.success() {
        bail!(
            "cannot read {file_name} at `{git_ref}`: {}",
            String::from_utf8_lossy(&shown.stderr).trim()
        );
    }
    let base_text = String::from_utf8(shown.stdout)
        .with_context(|| format!("{file_name} at {git_ref} is not UTF-8"))?;
    let head_text = read(&spec)?;
    let base: Value = crate::yaml::from_str(&base_text)
        .with_context(|| format!("{file_name} at {git_ref} is not valid YAML"))?;
    let head: Value = crate::yaml::from_str(&head_text)
        .with_context(|| format!("{} is not valid YAML", spec.display()))?;
    let base_version = info_version(&base, &format!("{file_name} at {git_ref}"))?;
    let head_version = info_version(&head, &spec.display().to_string())?;

    // A new version needs its changelog entry (checked first: it needs no tool).
    if base_version != head_version {
        let changelog_path = dir.join("CHANGELOG.md");
        let changelog = std::fs::read_to_string(&changelog_path).unwrap_or_default();
        if !changelog_records(&changelog, &head_version) {
            bail!(
                "info.version goes {base_version} -> {head_version}, but {} has no `## {head_version}` entry",
                changelog_path.display()
            );
        }
    }

    let optic = tools.bin("optic")?;
    let scratch = std::env::temp_dir().join(format!("xtask-openapi-diff-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let base_path = scratch.join(format!("base-{file_name}"));
    write(&base_path, &base_text)?;
    let output = run_tool(
        &optic,
        &[
            "diff",
            &base_path.to_string_lossy(),
            &spec.to_string_lossy(),
            "--check",
            "--standard",
            &standard.to_string_lossy(),
        ],
        dir,
    );
    let _ = std::fs::remove_dir_all(&scratch);
    let output = output?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = parse_optic(&text);
    let breaking = report.breaking().count();
    if !output.status.success() && breaking == 0 {
        bail!(
            "optic diff failed ({}) without reporting a failed check:\n{text}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let mut summary = format!(
        "{file_name}: {git_ref} (info.version {base_version}) -> working copy ({head_version})\n"
    );
    for change in &report.changes {
        let class = if change.breaking.is_empty() {
            "ok      "
        } else {
            "BREAKING"
        };
        let _ = writeln!(summary, "{class}  {}: {}", change.location, change.kind);
        for check in &change.breaking {
            let _ = writeln!(summary, "            {check}");
        }
    }
    let _ = write!(
        summary,
        "{} change(s), {breaking} breaking",
        report.changes.len()
    );
    if let Err(e) = check_version(&base_version, &head_version, breaking) {
        bail!("{summary}\n{e}");
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn internal_refs_that_resolve_are_accepted() {
        let doc = json!({
            "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Ok"}}}}},
            "components": {"responses": {"Ok": {"description": "ok"}}}
        });
        assert!(ref_problems(&doc).is_empty());
    }

    #[test]
    fn external_and_dangling_refs_are_reported_where_written() {
        let doc = json!({
            "paths": {"/a~b": {"get": {"responses": {
                "200": {"$ref": "other.yaml#/components/responses/Ok"},
                "404": {"$ref": "#/components/responses/Missing"}
            }}}},
            "components": {"responses": {}}
        });
        let problems = ref_problems(&doc);
        assert_eq!(
            problems,
            vec![
                "/paths/~1a~0b/get/responses/200: other.yaml#/components/responses/Ok: not internal",
                "/paths/~1a~0b/get/responses/404: #/components/responses/Missing: resolves to nothing",
            ]
        );
    }

    #[test]
    fn bundle_whose_yaml_and_json_differ_is_refused() {
        let source = json!({"openapi": "3.0.3"});
        let err = check_bundle(&source, "openapi: 3.0.3\n", r#"{"openapi": "3.0.2"}"#)
            .expect_err("different documents");
        assert!(err.to_string().contains("different documents"), "{err}");
    }

    #[test]
    fn bundle_that_loses_part_of_the_source_is_refused() {
        let source = json!({"openapi": "3.0.3", "paths": {}});
        let err = check_bundle(&source, "openapi: 3.0.3\n", r#"{"openapi": "3.0.3"}"#)
            .expect_err("lost paths");
        assert!(err.to_string().contains("differs"), "{err}");
        assert!(
            check_bundle(
                &source,
                "openapi: 3.0.3\npaths: {}\n",
                r#"{"openapi": "3.0.3", "paths": {}}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn offline_html_gets_the_policy_and_loses_the_remote_logo() {
        let page = "<html><head><title>t</title></head><body><script>var s=`https://cdn.redoc.ly/redoc/logo-mini.svg`;</script></body></html>";
        let offline = make_offline(page).expect("made offline");
        assert!(
            offline.starts_with("<html><head>\n  <meta http-equiv=\"Content-Security-Policy\"")
        );
        assert!(!offline.contains("cdn.redoc.ly"));
        assert!(offline.contains("var s=`data:,`"));
        assert!(offline_problems(&offline).is_empty());
    }

    #[test]
    fn remote_scripts_stylesheets_images_and_css_urls_are_reported() {
        let page = format!(
            "<html><head><meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
             <LINK rel=stylesheet href=https://fonts.googleapis.com/css>\
             <script src=\"//cdn.example/redoc.js\"></script>\
             <style>body{{background:url('https://x.example/a.png')}} @import 'y.css';</style>\
             </head><body><img alt=x srcset=\"a.png 1x, https://x.example/b.png 2x\">\
             <a href=\"https://example.com\">a link is not a load</a>\
             <script>const markup = '<img src=\"https://in.a.string/\">';</script></body></html>"
        );
        let problems = offline_problems(&page);
        assert_eq!(
            problems,
            vec![
                "<link> loads https://fonts.googleapis.com/css",
                "<script> loads //cdn.example/redoc.js",
                "a <style> uses @import",
                "a <style> loads 'https://x.example/a.png'",
                "<img> loads https://x.example/b.png 2x",
            ]
        );
    }

    #[test]
    fn page_without_the_policy_is_reported() {
        assert_eq!(
            offline_problems("<html><head></head></html>"),
            vec!["no Content-Security-Policy <meta> that forbids remote loads"]
        );
        assert!(make_offline("<html><body></body></html>").is_err());
    }

    /// Optic 1.0.9's terminal report for a removed response field, a new required query
    /// parameter, a removed operation and an added response field (trimmed).
    const OPTIC_REPORT: &str = "\
x Store Administration API base.yaml
Operations: 2 operations changed, 1 removed
x  Checks: 4/40 passed 

specification details:
- /info/version changed

x GET /webhooks/events: removed
  
  x [prevent operation removal] cannot remove an operation. This is a breaking change.
  at base.yaml:873:30129
  
  - response 200: 
    x [prevent response status code removal] must not remove response status code 200. This is a breaking change.
    at base.yaml:884:30528
    
x GET /products/quantities: 
  - query parameter warehouse: added
    
    x [prevent new required query parameters] cannot add required query parameter warehouse to an existing operation. This is a breaking change.
    at head.yaml:107:4746
    
  - response 200: 
    - body application/json: 
      - property /schema/properties/data/items/properties/sold_quantity: removed
      
        x [prevent removing response property] cannot remove response property 'sold_quantity'. This is a breaking change.
        at base.yaml:1614:57049
        
\u{1b}[32m✔\u{1b}[39m GET /orders: 
  - response 200: 
    - body application/json: 
      - property /schema/properties/data/items/properties/note: added
Rerun this command with the --web flag to view the detailed changes in your browser
";

    #[test]
    fn optic_report_is_classed_into_breaking_and_other_changes() {
        let report = parse_optic(OPTIC_REPORT);
        let lines: Vec<(String, String, usize)> = report
            .changes
            .iter()
            .map(|c| (c.location.clone(), c.kind.clone(), c.breaking.len()))
            .collect();
        assert_eq!(
            lines,
            vec![
                ("specification › /info/version".into(), "changed".into(), 0),
                ("GET /webhooks/events".into(), "removed".into(), 2),
                (
                    "GET /products/quantities › query parameter warehouse".into(),
                    "added".into(),
                    1
                ),
                (
                    "GET /products/quantities › response 200 › body application/json › property /schema/properties/data/items/properties/sold_quantity".into(),
                    "removed".into(),
                    1
                ),
                (
                    "GET /orders › response 200 › body application/json › property /schema/properties/data/items/properties/note".into(),
                    "added".into(),
                    0
                ),
            ]
        );
        assert_eq!(report.breaking().count(), 3);
        assert_eq!(
            report.changes[2].breaking,
            vec![
                "[prevent new required query parameters] cannot add required query parameter warehouse to an existing operation. This is a breaking change."
            ]
        );
    }

    #[test]
    fn failed_check_outside_any_change_still_counts_as_breaking() {
        let report = parse_optic("x GET /a: \n  - response 200: \n    x [rule] broken\n");
        assert_eq!(report.breaking().count(), 1);
        assert_eq!(report.changes[0].location, "GET /a › response 200");
    }

    #[test]
    fn breaking_change_needs_a_higher_major_version() {
        assert!(check_version("2.0.0", "2.1.0", 0).is_ok());
        assert!(check_version("2.0.0", "3.0.0", 2).is_ok());
        assert!(check_version("v2.3.1", "v10.0.0", 1).is_ok());
        let err = check_version("2.0.0", "2.1.0", 2).expect_err("minor bump");
        assert!(
            err.to_string()
                .contains("bump the major version (to 3.0.0)"),
            "{err}"
        );
        assert!(check_version("2.0.0", "2.0.0", 1).is_err());
        assert!(check_version("3.0.0", "2.0.0", 1).is_err());
    }

    #[test]
    fn version_that_is_not_semantic_is_a_clear_error() {
        let err = major("two").expect_err("not a number");
        assert!(
            err.to_string().contains("`two` is not a semantic version"),
            "{err}"
        );
        assert_eq!(major("2.0.0-rc.1").ok(), Some(2));
    }

    #[test]
    fn changelog_headings_name_versions_exactly() {
        let changelog = "# Changelog\n\n## [2.1.0] - 2026-12-01\n- x\n\n## 2.0.0\n- first\n";
        assert!(changelog_records(changelog, "2.1.0"));
        assert!(changelog_records(changelog, "2.0.0"));
        assert!(!changelog_records(changelog, "2.0"));
        assert!(!changelog_records(changelog, "1.0.0"));
        assert!(!changelog_records("- 3.0.0\n", "3.0.0"));
    }

    #[test]
    fn changelog_records_the_documents_current_version() {
        let root = crate::document::workspace_root();
        let document = Document::load(&root, SPEC).expect("document loads");
        let version = info_version(&document.raw, SPEC).expect("info.version");
        let changelog =
            std::fs::read_to_string(root.join("openapi/CHANGELOG.md")).expect("CHANGELOG.md");
        assert!(
            changelog_records(&changelog, &version),
            "openapi/CHANGELOG.md has no `## {version}` entry"
        );
    }

    #[test]
    fn checksums_are_sha256sum_lines() {
        let sums = sha256sums(&[("a.txt".into(), "abc".into())]);
        assert_eq!(
            sums,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a.txt\n"
        );
    }
}
