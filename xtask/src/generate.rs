//! `cargo xtask generate [--check]`: progenitor over the document and the fixtures. This module
//! orchestrates (which documents, which outputs, writing them or checking them: `--check`); what
//! each output holds is rendered by [`crate::render`] and the modules it calls.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::areas::{self, AREAS, area_dir};
use crate::document::{Document, SPEC};
use crate::model::{FIXTURES_DIR, FIXTURES_OUT, Output};
use crate::render::{Flavor, render_client, render_split};

/// Fixture documents (`openapi/fixtures/*.yaml`), sorted, relative to the workspace root.
pub fn fixtures(root: &Path) -> Result<Vec<String>> {
    let dir = root.join(FIXTURES_DIR);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {FIXTURES_DIR}"))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".yaml") {
            names.push(format!("{FIXTURES_DIR}/{name}"));
        }
    }
    names.sort();
    Ok(names)
}

/// The generated file of a fixture document: `generated_<stem>.rs`.
pub fn fixture_output(fixture: &str) -> String {
    let stem = Path::new(fixture)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{FIXTURES_OUT}/generated_{stem}.rs")
}

/// Lints the main document of the workspace at `root`: [`lint_client`], and the rules that read
/// the files beside it (CI's validators' exemptions).
pub fn lint_main(root: &Path, doc: &Document) -> Result<()> {
    lint_client(doc)?;
    let read = |rel_path: &str| -> Result<serde_json::Value> {
        let text = std::fs::read_to_string(root.join(rel_path))
            .with_context(|| format!("reading {rel_path}"))?;
        crate::yaml::from_str(&text).with_context(|| format!("{rel_path}: not valid YAML"))
    };
    let ruleset = read(crate::conventions::SPECTRAL_RULESET)?;
    let ignore = read(crate::conventions::REDOCLY_IGNORE)?;
    let mut problems = Vec::new();
    crate::conventions::event_schema_exemptions(&doc.raw, &ruleset, &ignore, &mut problems);
    doc.refuse(&problems)
}

/// Lints the main document: the shared rules, and that every tag has an area.
pub fn lint_client(doc: &Document) -> Result<()> {
    doc.lint()?;
    // The document's own conventions (what CI's validators and the mock refuse).
    let mut problems = crate::conventions::lint(&doc.spec, &doc.raw);
    areas::unmapped_tags(&doc.spec, &mut problems);
    doc.refuse(&problems)
}

/// Generates every output in memory: the client (core, areas, operation table) and each fixture.
/// Fails if a document is missing, does not lint, or progenitor fails on it.
pub fn outputs(root: &Path) -> Result<Vec<Output>> {
    let version = progenitor_version(root)?;
    let mut outputs = Vec::new();
    let mut failures = Vec::new();
    for fixture in fixtures(root)? {
        let generated = Document::load(root, &fixture).and_then(|doc| {
            doc.lint()?;
            render_client(&doc, Flavor::Fixture, &version)
        });
        match generated {
            Ok(content) => outputs.push(Output {
                rel_path: fixture_output(&fixture),
                content,
            }),
            Err(e) => failures.push(format!("{e:#}")),
        }
    }
    let client = Document::load(root, SPEC).and_then(|doc| {
        lint_main(root, &doc)?;
        check_crates(root)?;
        let mut client = render_split(&doc, &version)?;
        // Readers of the client code: the command line; and the document's open value sets.
        let cli = crate::cli_gen::outputs(&doc, &client)?;
        client.extend(cli);
        client.extend(crate::values::outputs(&doc)?);
        client.extend(crate::uploads::outputs(&doc)?);
        client.extend(crate::modify::outputs(&doc)?);
        client.extend(crate::readmes::outputs(&doc)?);
        Ok(client)
    });
    match client {
        Ok(client) => outputs.extend(client),
        Err(e) => failures.push(format!("{e:#}")),
    }
    match failures.is_empty() {
        true => Ok(outputs),
        false => bail!("{}", failures.join("\n\n")),
    }
}

/// Every area of [`AREAS`] has its crate, and a cargo feature of the same name in the facade
/// (`store-admin-client`) and in `store-admin`, on by default, and the facade's `decoders` feature
/// turns each on: the table is the one place areas are named.
pub fn check_crates(root: &Path) -> Result<()> {
    let mut problems = Vec::new();
    for manifest in [
        "crates/store-admin-client/Cargo.toml",
        "crates/store-admin/Cargo.toml",
    ] {
        let text = std::fs::read_to_string(root.join(manifest))
            .with_context(|| format!("reading {manifest}"))?;
        let features = text
            .split("\n[features]\n")
            .nth(1)
            .map(|rest| rest.split("\n[").next().unwrap_or_default())
            .unwrap_or_default();
        for area in AREAS {
            if !features
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{} = ", area.name)))
            {
                problems.push(format!(
                    "{manifest}: no feature `{}` (one per area of xtask/src/areas.rs)",
                    area.name
                ));
            }
        }
        // The areas a feature of the manifest does not turn on (every one when it is missing).
        let not_turned_on = |feature: &str| {
            let line = features
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{feature} = ")))
                .unwrap_or_default();
            AREAS
                .iter()
                .filter(move |area| !line.contains(&format!("\"{}\"", area.name)))
        };
        for area in not_turned_on("default") {
            problems.push(format!(
                "{manifest}: the default features do not include `{}`",
                area.name
            ));
        }
        // The facade's decoder table names the types of every area: its feature turns them on.
        if manifest == "crates/store-admin-client/Cargo.toml" {
            for area in not_turned_on("decoders") {
                problems.push(format!(
                    "{manifest}: the feature `decoders` does not turn on `{}`",
                    area.name
                ));
            }
        }
    }
    for area in AREAS {
        let manifest = format!("{}/Cargo.toml", area_dir(area.name));
        if !root.join(&manifest).exists() {
            problems.push(format!(
                "{manifest} is missing: every area of xtask/src/areas.rs is a crate"
            ));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => bail!("{}", problems.join("\n")),
    }
}

/// `cargo xtask generate [--check]`.
pub fn run(root: &Path, check: bool) -> Result<()> {
    let started = Instant::now();
    let outputs = outputs(root)?;
    let mut stale = Vec::new();
    for output in &outputs {
        let path = root.join(&output.rel_path);
        let current = std::fs::read_to_string(&path).ok();
        let fresh = current.as_deref() == Some(output.content.as_str());
        match (fresh, check) {
            (true, _) => println!("unchanged {}", output.rel_path),
            (false, true) => {
                println!("stale     {}", output.rel_path);
                stale.push(diff(
                    &output.rel_path,
                    current.as_deref().unwrap_or(""),
                    &output.content,
                ));
            }
            (false, false) => {
                std::fs::write(&path, &output.content)
                    .with_context(|| format!("writing {}", output.rel_path))?;
                println!("wrote     {}", output.rel_path);
            }
        }
    }
    println!("{} file(s) in {:.2?}", outputs.len(), started.elapsed());
    if !stale.is_empty() {
        for d in &stale {
            eprintln!("{d}");
        }
        bail!(
            "{} generated file(s) are stale; run `cargo xtask generate` and commit the result",
            stale.len()
        );
    }
    Ok(())
}

/// The first lines of a unified diff from `old` to `new`.
fn diff(rel_path: &str, old: &str, new: &str) -> String {
    const MAX_LINES: usize = 40;
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{rel_path}"), &format!("b/{rel_path}"))
        .to_string();
    let total = text.lines().count();
    let mut shown: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let more = format!("... ({} more diff lines)", total.saturating_sub(MAX_LINES));
    if total > MAX_LINES {
        shown.push(&more);
    }
    shown.join("\n")
}

/// The progenitor version recorded in the workspace's Cargo.lock.
pub fn progenitor_version(root: &Path) -> Result<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"progenitor\""
            && let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
                .and_then(|v| v.strip_suffix('"'))
        {
            return Ok(version.to_owned());
        }
    }
    bail!("Cargo.lock has no `progenitor` package")
}
