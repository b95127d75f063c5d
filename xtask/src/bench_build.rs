//! `cargo xtask bench-build`: how long the generated client takes to build, as ratios against the
//! document 2.0.0 measured in the same run.
//!
//! Two copies are built side by side in a temporary directory, sharing one target directory (so
//! that third-party dependencies are built once, before anything is timed): the baseline, a git
//! worktree of `--baseline` (default: main before the whole API was written, document 2.0.0), and
//! the current workspace as it is on disk (committed or not: copy a merged document over
//! `openapi/store-admin.yaml` in a scratch worktree to measure it). For each copy:
//!
//! - clean build, two ways, each for `cargo build -p store-admin-client` and for
//!   `cargo build -p store-admin`:
//!   - from nothing: a target directory of the copy's own, emptied by `cargo clean`, so the
//!     dependencies are built too (what a fresh clone and CI pay: the issue's "clean debug
//!     build");
//!   - the workspace's crates only: the package built once untimed (so every dependency exists with
//!     the features this package unifies to), its workspace crates removed (`cargo clean -p`), then
//!     built again (what the generated code itself costs);
//! - the workspace's crates only, for a service that uses one area: `store-admin` with
//!   `--no-default-features --features orders` against the baseline's whole `store-admin`;
//! - one-line change: one property added to one schema of the document, `cargo xtask generate`,
//!   then `cargo build -p store-admin` timed; once for a schema of one area and once for a shared
//!   (core) schema (the baseline has one crate: the same schema names when it has them);
//! - `cargo xtask generate`: the time the generator reports for itself.
//!
//! Targets (issue 13, on a 2-core machine): clean build at most 2x the baseline's (the verdict is
//! printed for both ways), a one-line
//! rebuild at most 30 s, generate under 2 s. The numbers are wall-clock seconds: run it on a quiet
//! machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::document::{Document, SPEC};
use crate::{hand_written, split};

/// main before the whole API was written (document 2.0.0, 29 operations, one generated crate).
pub const BASELINE_2_0_0: &str = "b18f548073453614aa09fed254dc654a283e3a13";

/// The options of `cargo xtask bench-build`.
pub struct Options {
    /// The git revision to compare with.
    pub baseline: String,
    /// The shared target directory (default: `target/bench-build` of this workspace, kept
    /// between runs so that dependencies are built once).
    pub target_dir: Option<PathBuf>,
}

/// Wall-clock and CPU time (user + system of cargo and every compiler it ran) of one step. The
/// CPU time hardly depends on what else the machine runs, so its ratio is the one to trust on a
/// busy machine; wall-clock is what a person waits for.
#[derive(Debug, Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

/// The CPU time of this process's waited-for children so far (`cutime` + `cstime` of
/// `/proc/self/stat`, in clock ticks of `getconf CLK_TCK`); zero where there is no `/proc`.
fn children_cpu() -> Duration {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    let ticks = *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0)
    });
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // The fields after the command name (which is in parentheses and may hold spaces).
    let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // cutime and cstime are fields 16 and 17 of the whole line: 14 and 15 after the name.
    let ticks_used: f64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<f64>().ok()))
        .sum();
    Duration::from_secs_f64(ticks_used / ticks)
}

/// What a clean build removes before it is timed.
#[derive(Debug, Clone, Copy)]
enum Clean {
    /// Everything: dependencies are built too.
    Everything,
    /// The workspace's own crates: dependencies are already built.
    OwnCrates,
}

/// One copy of the workspace being measured.
struct Copy {
    name: &'static str,
    dir: PathBuf,
    target: PathBuf,
}

impl Copy {
    fn cargo(&self, args: &[&str]) -> Result<Timing> {
        let started = Instant::now();
        let cpu_before = children_cpu();
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("running cargo {}", args.join(" ")))?;
        if !status.success() {
            bail!(
                "{}: `cargo {}` failed (run it in {} to see why)",
                self.name,
                args.join(" "),
                self.dir.display()
            );
        }
        Ok(Timing {
            wall: started.elapsed(),
            cpu: children_cpu().saturating_sub(cpu_before),
        })
    }

    /// Runs this copy's own xtask (built here: it knows its workspace by its manifest path) and
    /// returns the time `generate` reports for itself.
    fn generate(&self) -> Result<Duration> {
        self.cargo(&["build", "-q", "-p", "xtask"])?;
        let output = Command::new(self.target.join("debug/xtask"))
            .arg("generate")
            .current_dir(&self.dir)
            .output()
            .context("running xtask generate")?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            bail!(
                "{}: cargo xtask generate failed:\n{}",
                self.name,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        reported_time(&stdout).with_context(|| {
            format!(
                "{}: no \"file(s) in <time>\" line from generate:\n{stdout}",
                self.name
            )
        })
    }

    /// The workspace's own packages (what a clean build rebuilds).
    fn packages(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(self.dir.join("crates"))? {
            let manifest = entry?.path().join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            if let Some(name) = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.strip_suffix('"'))
            {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Times `cargo build -q <build>` after the clean `clean` says.
    fn clean_build(&self, clean: Clean, build: &[&str]) -> Result<Timing> {
        let mut args = vec!["build", "-q"];
        args.extend(build);
        match clean {
            Clean::Everything => {
                let own = Copy {
                    name: self.name,
                    dir: self.dir.clone(),
                    target: self.target.join(format!("from-nothing-{}", self.name)),
                };
                own.cargo(&["clean", "-q"])?;
                own.cargo(&args)
            }
            Clean::OwnCrates => {
                self.cargo(&args)?;
                let packages = self.packages()?;
                let mut clean = vec!["clean", "-q"];
                for p in &packages {
                    clean.push("-p");
                    clean.push(p);
                }
                self.cargo(&clean)?;
                self.cargo(&args)
            }
        }
    }

    /// Adds one property to `schema`, regenerates, times `cargo build -p store-admin`, then puts
    /// the document back (and rebuilds, untimed).
    fn one_line_rebuild(&self, schema: &str) -> Result<Timing> {
        let path = self.dir.join(SPEC);
        let original = std::fs::read_to_string(&path)?;
        let edited = add_property(&original, schema)
            .with_context(|| format!("{}: no schema `{schema}` with properties", self.name))?;
        self.cargo(&["build", "-q", "-p", "store-admin"])?;
        std::fs::write(&path, edited)?;
        let timed = self
            .generate()
            .and_then(|_| self.cargo(&["build", "-q", "-p", "store-admin"]));
        std::fs::write(&path, original)?;
        self.generate()?;
        self.cargo(&["build", "-q", "-p", "store-admin"])?;
        timed
    }
}

/// The duration in generate's last line, `15 file(s) in 1.27s` (or `812.3ms`).
fn reported_time(stdout: &str) -> Option<Duration> {
    let line = stdout.lines().rev().find(|l| l.contains(" file(s) in "))?;
    let value = line.rsplit(" in ").next()?.trim();
    let (number, scale) = if let Some(ms) = value.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(us) = value.strip_suffix("µs") {
        (us, 1e-6)
    } else {
        (value.strip_suffix('s')?, 1.0)
    };
    number
        .parse::<f64>()
        .ok()
        .map(|n| Duration::from_secs_f64(n * scale))
}

/// The document with one optional property added at the top of `schema`'s `properties`: a
/// one-line change of one schema, as a person makes it.
pub fn add_property(yaml: &str, schema: &str) -> Option<String> {
    let lines: Vec<&str> = yaml.lines().collect();
    let schemas = lines.iter().position(|l| *l == "  schemas:")?;
    let start = schemas
        + 1
        + lines[schemas + 1..]
            .iter()
            .position(|l| *l == format!("    {schema}:"))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.trim().is_empty() && !l.starts_with("      "))
        .map_or(lines.len(), |i| start + 1 + i);
    let properties = start
        + lines[start..end]
            .iter()
            .position(|l| *l == "      properties:")?;
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out.insert(
        properties + 1,
        "        bench_build_probe: { type: string, description: A one-line change made by cargo xtask bench-build. }"
            .to_owned(),
    );
    let mut text = out.join("\n");
    if yaml.ends_with('\n') {
        text.push('\n');
    }
    Some(text)
}

/// The schemas to change: one that only one area uses (of the area with the most schemas) and one
/// of the core, both objects with properties.
fn probes(doc: &Document) -> Result<(String, String, String)> {
    let hand = hand_written::hand_written(&doc.spec);
    let split = split::split(&doc.spec, &doc.raw, &hand);
    let has_properties = |name: &str| add_property(&doc.text, name).is_some();
    let area = split
        .areas
        .iter()
        .max_by_key(|a| a.schemas.len())
        .context("no area")?;
    let area_schema = area
        .schemas
        .iter()
        .find(|s| has_properties(s))
        .with_context(|| format!("no schema with properties in the `{}` area", area.name))?;
    let core_schema = split
        .core
        .iter()
        .filter(|s| !split::FORCED_CORE.contains(&s.as_str()))
        .chain(split.core.iter())
        .find(|s| has_properties(s))
        .context("no core schema with properties")?;
    Ok((
        area.name.to_owned(),
        area_schema.clone(),
        core_schema.clone(),
    ))
}

fn git(root: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .context("running git")?;
    if !output.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Copies the workspace's files (tracked and untracked, not ignored) to `to`.
fn copy_workspace(root: &Path, to: &Path) -> Result<()> {
    let list = git(root, &["ls-files", "-co", "--exclude-standard"])?;
    for rel in list.lines() {
        let from = root.join(rel);
        if !from.is_file() {
            continue; // deleted but still in the index
        }
        let target = to.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(&from, &target).with_context(|| format!("copying {rel}"))?;
    }
    Ok(())
}

fn seconds(d: Duration) -> String {
    format!("{:6.1} s", d.as_secs_f64())
}

fn ratio(current: Duration, base: Duration) -> f64 {
    current.as_secs_f64() / base.as_secs_f64().max(1e-9)
}

/// `cargo xtask bench-build`.
pub fn run(root: &Path, options: &Options) -> Result<()> {
    let scratch = std::env::temp_dir().join(format!("bench-build-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let target = options
        .target_dir
        .clone()
        .unwrap_or_else(|| root.join("target/bench-build"));
    let base_dir = scratch.join("base");
    let base_sha = git(root, &["rev-parse", &options.baseline])?;
    git(
        root,
        &[
            "worktree",
            "add",
            "--detach",
            &base_dir.to_string_lossy(),
            &base_sha,
        ],
    )?;
    let result = (|| {
        let current_dir = scratch.join("current");
        copy_workspace(root, &current_dir)?;
        let base = Copy {
            name: "baseline",
            dir: base_dir.clone(),
            target: target.clone(),
        };
        let current = Copy {
            name: "current",
            dir: current_dir,
            target: target.clone(),
        };
        measure(root, &base, &current, &base_sha)
    })();
    let _ = git(
        root,
        &["worktree", "remove", "--force", &base_dir.to_string_lossy()],
    );
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn measure(root: &Path, base: &Copy, current: &Copy, base_sha: &str) -> Result<()> {
    let doc = Document::load(&current.dir, SPEC)?;
    let base_doc = Document::load(&base.dir, SPEC)?;
    let count = |d: &Document| crate::lint::operations(&d.spec).count();
    println!(
        "bench-build: baseline {} ({} operations) against {} ({} operations), {} CPU(s)",
        &base_sha[..base_sha.len().min(10)],
        count(&base_doc),
        root.display(),
        count(&doc),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let (area, area_schema, core_schema) = probes(&doc)?;
    let base_schema = |name: &str| -> Result<String> {
        if add_property(&base_doc.text, name).is_some() {
            return Ok(name.to_owned());
        }
        base_doc
            .spec
            .components
            .iter()
            .flat_map(|c| c.schemas.keys())
            .find(|s| add_property(&base_doc.text, s).is_some())
            .cloned()
            .context("the baseline has no schema with properties")
    };

    println!("building dependencies (not timed)...");
    base.cargo(&["build", "-q", "-p", "store-admin", "-p", "xtask"])?;
    current.cargo(&["build", "-q", "-p", "store-admin", "-p", "xtask"])?;

    let mut rows: Vec<Row> = Vec::new();
    let orders_only = [
        "-p",
        "store-admin",
        "--no-default-features",
        "--features",
        "orders",
    ];
    let cases: [(Clean, &str, &[&str], &[&str]); 5] = [
        (
            Clean::Everything,
            "from nothing: clean build of store-admin-client",
            &["-p", "store-admin-client"],
            &["-p", "store-admin-client"],
        ),
        (
            Clean::Everything,
            "from nothing: clean build of store-admin",
            &["-p", "store-admin"],
            &["-p", "store-admin"],
        ),
        (
            Clean::OwnCrates,
            "workspace crates only: clean build of store-admin-client",
            &["-p", "store-admin-client"],
            &["-p", "store-admin-client"],
        ),
        (
            Clean::OwnCrates,
            "workspace crates only: clean build of store-admin",
            &["-p", "store-admin"],
            &["-p", "store-admin"],
        ),
        (
            Clean::OwnCrates,
            "workspace crates only: store-admin, orders area alone",
            &["-p", "store-admin"],
            &orders_only,
        ),
    ];
    for (clean, what, base_build, current_build) in cases {
        let b = base.clean_build(clean, base_build)?;
        let c = current.clean_build(clean, current_build)?;
        let verdict = verdict(ratio(c.wall, b.wall) <= 2.0);
        rows.push(Row {
            what: what.to_owned(),
            base: b,
            current: c,
            verdict: format!(
                "wall ratio {:.2}, CPU ratio {:.2} (target <= 2: {verdict})",
                ratio(c.wall, b.wall),
                ratio(c.cpu, b.cpu)
            ),
        });
        print_row(rows.last());
    }
    for (label, schema) in [
        (format!("area `{area}`"), area_schema.clone()),
        ("core".to_owned(), core_schema.clone()),
    ] {
        let base_name = base_schema(&schema)?;
        let b = base.one_line_rebuild(&base_name)?;
        let c = current.one_line_rebuild(&schema)?;
        rows.push(Row {
            what: format!("one-line change of `{schema}` ({label}), build -p store-admin"),
            base: b,
            current: c,
            verdict: format!(
                "wall ratio {:.2}; target <= 30 s: {}",
                ratio(c.wall, b.wall),
                verdict(c.wall.as_secs_f64() <= 30.0)
            ),
        });
        print_row(rows.last());
    }
    let b = base.generate()?;
    let c = current.generate()?;
    rows.push(Row {
        what: "cargo xtask generate (its own timing)".to_owned(),
        base: Timing { wall: b, cpu: b },
        current: Timing { wall: c, cpu: c },
        verdict: format!(
            "ratio {:.2}; target < 2 s: {}",
            ratio(c, b),
            verdict(c.as_secs_f64() < 2.0)
        ),
    });
    print_row(rows.last());
    Ok(())
}

/// One line of the report.
struct Row {
    what: String,
    base: Timing,
    current: Timing,
    verdict: String,
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

fn print_row(row: Option<&Row>) {
    if let Some(row) = row {
        println!(
            "{:<68} baseline {} ({} CPU)  current {} ({} CPU)  {}",
            row.what,
            seconds(row.base.wall),
            seconds(row.base.cpu),
            seconds(row.current.wall),
            seconds(row.current.cpu),
            row.verdict
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "openapi: 3.0.3\ncomponents:\n  schemas:\n    Money:\n      type: object\n      description: x\n      properties:\n        amount: { type: number }\n    Order:\n      type: object\n      properties:\n        id: { type: integer }\n";

    #[test]
    fn one_property_is_added_to_the_named_schema_only() {
        let edited = add_property(DOC, "Order").expect("edited");
        assert_eq!(edited.lines().count(), DOC.lines().count() + 1);
        assert!(edited.contains("      properties:\n        bench_build_probe: { type: string, description: A one-line change made by cargo xtask bench-build. }\n        id: { type: integer }\n"));
        assert!(edited.contains("    Money:\n      type: object\n      description: x\n      properties:\n        amount:"));
        assert_eq!(add_property(DOC, "Missing"), None);
        let spec: openapiv3::OpenAPI = crate::yaml::from_str(&format!(
            "{edited}info: {{ title: T, version: '1' }}\npaths: {{}}\n"
        ))
        .expect("still a document");
        assert!(spec.components.is_some());
    }

    #[test]
    fn the_generator_reports_its_time_in_its_last_line() {
        assert_eq!(
            reported_time("wrote a\n15 file(s) in 1.27s\n"),
            Some(Duration::from_secs_f64(1.27))
        );
        assert_eq!(
            reported_time("9 file(s) in 743.49ms"),
            Some(Duration::from_secs_f64(0.74349))
        );
        assert_eq!(reported_time("nothing"), None);
    }
}
