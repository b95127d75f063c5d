//! The publishing commands end to end: `cargo xtask openapi bundle` (deterministic, self-contained,
//! an HTML reference that shows every operation in headless Chromium with the network off) and
//! `cargo xtask openapi diff` (breaking edits reported, a major bump required).
//!
//! The tests marked `#[ignore]` need the pinned tools of `.ci/publish/tools` (Redocly CLI, Optic)
//! and Debian's `chromium`; `bash .ci/publish/run` installs them and runs these tests with
//! `cargo test -p xtask --test publish -- --include-ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("xtask runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn bundle_into(dir: &Path) {
    let output = xtask(&["openapi", "bundle", "--out", &dir.to_string_lossy()]);
    assert!(output.status.success(), "bundle failed:\n{}", text(&output));
}

fn collect_refs(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
#[ignore = "needs .ci/publish/tools and chromium; bash .ci/publish/run runs it"]
fn bundle_is_deterministic_and_every_ref_is_internal() {
    let (first, second) = (scratch("bundle-a"), scratch("bundle-b"));
    bundle_into(&first);
    bundle_into(&second);
    for name in [
        "store-admin.yaml",
        "store-admin.json",
        "store-admin.html",
        "SHA256SUMS",
    ] {
        let a = std::fs::read(first.join(name)).expect("first bundle file");
        let b = std::fs::read(second.join(name)).expect("second bundle file");
        assert!(!a.is_empty(), "{name} is empty");
        assert!(
            a == b,
            "{name} differs between two bundles of the same document"
        );
    }
    let json: Value =
        serde_json::from_slice(&std::fs::read(first.join("store-admin.json")).expect("json"))
            .expect("the JSON parses");
    let yaml: Value =
        serde_yaml::from_slice(&std::fs::read(first.join("store-admin.yaml")).expect("yaml"))
            .expect("the YAML parses");
    assert_eq!(json, yaml, "the YAML and the JSON hold the same document");
    let mut refs = Vec::new();
    collect_refs(&json, &mut refs);
    assert!(refs.len() > 100, "the document uses its components");
    for target in refs {
        let pointer = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{target} is not internal"));
        assert!(
            json.pointer(pointer).is_some(),
            "{target} resolves to nothing"
        );
    }
}

/// The page's text as a person sees it: without scripts, styles and tags.
fn visible_text(dom: &str) -> String {
    let mut out = String::new();
    let mut rest = dom;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        let tag = &rest[open..];
        let head: String = tag.chars().take(7).collect::<String>().to_ascii_lowercase();
        let end = if head.starts_with("<script") {
            closing(tag, "</script>")
        } else if head.starts_with("<style") {
            closing(tag, "</style>")
        } else {
            tag.find('>').map(|e| e + 1)
        };
        rest = end.map_or("", |e| &tag[e..]);
    }
    out.push_str(rest);
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The offset just past `close` (ASCII, any case) in `text`.
fn closing(text: &str, close: &str) -> Option<usize> {
    text.to_ascii_lowercase()
        .find(close)
        .map(|at| at + close.len())
}

/// Opens `url` in headless Chromium with every network request sent to a closed local port and
/// no name resolution; returns the DOM after scripts ran, and the browser's log.
fn open_in_chromium(url: &str, profile: &Path) -> (String, String) {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let output = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {chromium} (apt-get install chromium): {e}"));
    assert!(
        output.status.success(),
        "{chromium} failed on {url}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// [`open_in_chromium`] for every `(url, profile)`, a few at a time (a load mostly waits, about
/// 0.7 s of CPU in 4 s), the answers in order.
fn open_all_in_chromium(pages: &[(String, PathBuf)]) -> Vec<(String, String)> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()) * 3;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<(String, String)>>> =
        pages.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers.min(pages.len()) {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((url, profile)) = pages.get(at) else {
                        break;
                    };
                    let answer = open_in_chromium(url, profile);
                    *results[at].lock().expect("not poisoned") = Some(answer);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .expect("not poisoned")
                .expect("every page was opened")
        })
        .collect()
}

/// Console lines that show the page tried to load something, or broke.
fn page_problems(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains(":CONSOLE"))
        .filter(|l| {
            l.contains("Content Security Policy")
                || l.contains("Uncaught")
                || l.contains("net::ERR")
        })
        .collect()
}

/// An operation of the document, as the reference should show it.
struct Operation {
    id: String,
    summary: String,
    /// `get /products/quantities`.
    method_path: String,
}

/// Redoc's route of a tag: `/products` for `Products`.
fn slug(tag: &str) -> String {
    let lower: String = tag
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    lower.trim_matches('-').to_owned()
}

#[test]
#[ignore = "needs .ci/publish/tools and chromium; bash .ci/publish/run runs it"]
fn bundled_reference_shows_every_operation_without_network() {
    let dir = scratch("reference");
    bundle_into(&dir);
    let html = dir.join("store-admin.html");
    let spec: Value =
        serde_json::from_slice(&std::fs::read(dir.join("store-admin.json")).expect("json"))
            .expect("the JSON parses");

    let mut by_tag: Vec<(String, Vec<Operation>)> = Vec::new();
    let paths = spec["paths"].as_object().expect("paths");
    let mut count = 0;
    for (path, item) in paths {
        for (method, op) in item.as_object().expect("path item") {
            let Some(summary) = op.get("summary").and_then(Value::as_str) else {
                continue;
            };
            let tag = op["tags"][0].as_str().expect("every operation has a tag");
            let id = op["operationId"].as_str().expect("operationId");
            let entry = Operation {
                id: id.to_owned(),
                summary: summary.to_owned(),
                method_path: format!("{method} {path}"),
            };
            match by_tag.iter_mut().find(|(t, _)| t == tag) {
                Some((_, ops)) => ops.push(entry),
                None => by_tag.push((tag.to_owned(), vec![entry])),
            }
            count += 1;
        }
    }
    let source =
        std::fs::read_to_string(workspace().join("openapi/store-admin.yaml")).expect("document");
    let operation_ids = source.matches("operationId:").count();
    assert!(count > 0, "no operation found in the bundle");
    assert_eq!(
        count, operation_ids,
        "the bundle has every operation of the document"
    );

    let page = format!("file://{}", html.display());
    let (landing, log) = open_in_chromium(&page, &dir.join("profile-landing"));
    assert_eq!(
        page_problems(&log),
        Vec::<&str>::new(),
        "on the landing page"
    );
    let landing_text = visible_text(&landing);
    let title = spec["info"]["title"].as_str().expect("title");
    assert!(
        landing_text.contains(title),
        "the landing page shows {title}"
    );

    // Each tag's page lists its operations (the sidebar names them all; the page shows the first
    // few with method and path, and "Show N more"). An operation whose method and path are not on
    // its tag's page is looked for on its own page, `#/<tag>/<operationId>`.
    // Chromium runs a few pages at a time (each load is one process).
    let tag_urls: Vec<(String, PathBuf)> = by_tag
        .iter()
        .map(|(tag, _)| {
            let route = slug(tag);
            (
                format!("{page}#/{route}"),
                dir.join(format!("profile-{route}")),
            )
        })
        .collect();
    let tag_pages = open_all_in_chromium(&tag_urls);
    let mut seen = 0;
    let mut own: Vec<(String, String, String, String)> = Vec::new();
    for ((tag, operations), (dom, log)) in by_tag.iter().zip(&tag_pages) {
        let route = slug(tag);
        assert!(
            landing.contains(&format!("href=\"/{route}\""))
                || landing.contains(&format!("href=\"#/{route}\"")),
            "the sidebar links tag {tag} to #/{route}"
        );
        assert_eq!(
            page_problems(log),
            Vec::<&str>::new(),
            "on the page of {tag}"
        );
        let shown = visible_text(dom);
        // Method and path: `get /a` in lists, `GET /a` on an operation's page; lowercased on both
        // sides, as paths may have capitals (`/products/prices/bulkPrice`).
        let shown_lower = shown.to_lowercase();
        for Operation {
            id,
            summary,
            method_path,
        } in operations
        {
            assert!(
                shown.contains(summary.as_str()),
                "{tag}: `{summary}` is not on the page"
            );
            assert!(
                dom.contains(&format!("href=\"#/{route}/{id}\"")),
                "{tag}: no link to the page of {id}"
            );
            if !shown_lower.contains(method_path.to_lowercase().as_str()) {
                own.push((
                    route.clone(),
                    id.clone(),
                    summary.clone(),
                    method_path.clone(),
                ));
            }
            seen += 1;
        }
    }
    let own_urls: Vec<(String, PathBuf)> = own
        .iter()
        .map(|(route, id, _, _)| {
            (
                format!("{page}#/{route}/{id}"),
                dir.join(format!("profile-{id}")),
            )
        })
        .collect();
    let own_pages = open_all_in_chromium(&own_urls);
    for ((_, id, summary, method_path), (dom, log)) in own.iter().zip(&own_pages) {
        assert_eq!(
            page_problems(log),
            Vec::<&str>::new(),
            "on the page of {id}"
        );
        let text = visible_text(dom);
        assert!(
            text.contains(summary.as_str()),
            "{id}: `{summary}` is not on its page"
        );
        assert!(
            text.to_lowercase()
                .contains(method_path.to_lowercase().as_str()),
            "{id}: `{method_path}` is not on its page"
        );
    }
    let own_pages = own_pages.len();
    assert_eq!(
        seen, count,
        "every operation was looked for on its tag's page"
    );
    println!(
        "{seen} operations found on {} tag pages and {own_pages} operation pages, no request left the file",
        by_tag.len()
    );
}

/// The paths the diff tests keep of the document (those their edits touch), with every component.
/// Optic takes about 70 s on the whole document (232 operations) and 3 s on these: the tests are
/// about what the xtask makes of Optic's report, and the edits are the same either way.
const DIFF_PATHS: &str = "/products/quantities";

/// A git repository in a scratch folder holding the project's changelog and document (its
/// [`DIFF_PATHS`] operations and all its components), committed.
fn repository_with_document(name: &str) -> PathBuf {
    let dir = scratch(name);
    let root = workspace();
    std::fs::copy(root.join("openapi/CHANGELOG.md"), dir.join("CHANGELOG.md")).expect("copy");
    let spec = dir.join("store-admin.yaml");
    std::fs::copy(root.join("openapi/store-admin.yaml"), &spec).expect("copy");
    edit_yaml(&spec, |doc| {
        let paths = doc["paths"]
            .as_mapping_mut()
            .expect("the document has paths");
        paths.retain(|path, _| path.as_str().is_some_and(|p| p.starts_with(DIFF_PATHS)));
        assert!(!paths.is_empty(), "the document has no {DIFF_PATHS} paths");
    });
    for args in [
        vec!["init", "-q"],
        vec!["add", "."],
        vec![
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "base",
        ],
    ] {
        let status = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(&args)
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    }
    dir
}

fn edit_yaml(path: &Path, edit: impl FnOnce(&mut serde_yaml::Value)) {
    let mut doc: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).expect("read")).expect("yaml");
    edit(&mut doc);
    std::fs::write(path, serde_yaml::to_string(&doc).expect("serialize")).expect("write");
}

/// Removes the first property of `ProductQuantity` (a field of a response) and adds a required
/// query parameter to `GET /products/quantities`; returns the removed property's name.
fn make_breaking_edits(spec: &Path) -> String {
    let mut removed = String::new();
    edit_yaml(spec, |doc| {
        let schema = &mut doc["components"]["schemas"]["ProductQuantity"];
        let properties = schema["properties"]
            .as_mapping_mut()
            .expect("ProductQuantity has properties");
        let first = properties.keys().next().cloned().expect("a property");
        properties.remove(&first);
        removed = first.as_str().expect("a name").to_owned();
        if let Some(required) = schema["required"].as_sequence_mut() {
            required.retain(|r| r.as_str() != Some(removed.as_str()));
        }
        let parameter: serde_yaml::Value = serde_yaml::from_str(
            "{name: warehouse, in: query, required: true, description: A new required filter., schema: {type: string}}",
        )
        .expect("parameter");
        doc["paths"]["/products/quantities"]["get"]["parameters"]
            .as_sequence_mut()
            .expect("parameters")
            .push(parameter);
    });
    removed
}

/// The document's `info.version` as committed, and the next minor and major versions.
fn versions() -> (String, String, String) {
    let text = std::fs::read_to_string(workspace().join("openapi/store-admin.yaml")).expect("read");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
    let version = doc["info"]["version"]
        .as_str()
        .expect("info.version")
        .to_owned();
    let parts: Vec<u64> = version
        .split('.')
        .map(|p| p.parse().expect("a semver number"))
        .collect();
    let minor = format!("{}.{}.0", parts[0], parts[1] + 1);
    let major = format!("{}.0.0", parts[0] + 1);
    (version, minor, major)
}

fn set_version(spec: &Path, version: &str) {
    edit_yaml(spec, |doc| {
        doc["info"]["version"] = serde_yaml::Value::String(version.to_owned());
    });
}

fn diff(spec: &Path, git_ref: &str) -> Output {
    xtask(&[
        "openapi",
        "diff",
        git_ref,
        "--spec",
        &spec.to_string_lossy(),
    ])
}

#[test]
#[ignore = "needs .ci/publish/tools and chromium; bash .ci/publish/run runs it"]
fn diff_reports_removed_response_field_and_new_required_parameter() {
    let repo = repository_with_document("diff-breaking");
    let spec = repo.join("store-admin.yaml");
    let removed = make_breaking_edits(&spec);
    let (current, _, major) = versions();

    let output = diff(&spec, "HEAD");
    let report = text(&output);
    assert!(
        !output.status.success(),
        "a breaking change without a major bump fails:\n{report}"
    );
    let breaking: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("BREAKING"))
        .collect();
    assert!(
        breaking
            .iter()
            .any(|l| l.contains("GET /products/quantities › query parameter warehouse: added")),
        "the new required parameter is breaking:\n{report}"
    );
    assert!(
        breaking
            .iter()
            .any(|l| l.contains(&format!("/properties/{removed}: removed"))),
        "the removed response field `{removed}` is breaking:\n{report}"
    );
    assert!(
        report.contains("cannot add required query parameter warehouse"),
        "{report}"
    );
    assert!(
        report.contains(&format!("cannot remove response property '{removed}'")),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "but info.version goes {current} -> {current}: bump the major version (to {major})"
        )),
        "{report}"
    );
}

#[test]
#[ignore = "needs .ci/publish/tools and chromium; bash .ci/publish/run runs it"]
fn diff_accepts_breaking_changes_with_a_major_bump_and_its_changelog_entry() {
    let repo = repository_with_document("diff-major");
    let spec = repo.join("store-admin.yaml");
    make_breaking_edits(&spec);
    let (current, _, major) = versions();
    set_version(&spec, &major);
    let changelog = repo.join("CHANGELOG.md");
    let old = std::fs::read_to_string(&changelog).expect("changelog");
    std::fs::write(
        &changelog,
        old.replacen(
            &format!("## {current}"),
            &format!("## {major}\n\n- Breaking.\n\n## {current}"),
            1,
        ),
    )
    .expect("write changelog");

    let output = diff(&spec, "HEAD");
    let report = text(&output);
    assert!(
        output.status.success(),
        "a major bump allows breaking changes:\n{report}"
    );
    assert!(
        report.contains(&format!(
            "(info.version {current}) -> working copy ({major})"
        )),
        "{report}"
    );
    assert!(
        report.lines().filter(|l| l.starts_with("BREAKING")).count() >= 2,
        "{report}"
    );
}

#[test]
fn diff_refuses_a_new_version_without_a_changelog_entry() {
    let repo = repository_with_document("diff-changelog");
    let spec = repo.join("store-admin.yaml");
    let (current, minor, _) = versions();
    set_version(&spec, &minor);
    let output = diff(&spec, "HEAD");
    let report = text(&output);
    assert!(!output.status.success(), "{report}");
    assert!(
        report.contains(&format!("info.version goes {current} -> {minor}, but"))
            && report.contains(&format!("has no `## {minor}` entry")),
        "{report}"
    );
}

#[test]
fn diff_names_a_ref_that_does_not_exist() {
    let repo = repository_with_document("diff-bad-ref");
    let output = diff(&repo.join("store-admin.yaml"), "no-such-ref");
    let report = text(&output);
    assert!(!output.status.success());
    assert!(
        report.contains("cannot read store-admin.yaml at `no-such-ref`"),
        "{report}"
    );
}
