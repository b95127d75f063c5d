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
    let yaml: Value = yaml(&std::fs::read_to_string(first.join("store-admin.yaml")).expect("yaml"))
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

/// Opens `url` in headless Chromium with every network request sent to a closed local port and
/// no name resolution; returns the DOM once scripts have had `budget_ms` of (virtual, fast-forwarded)
/// time, and the browser's log.
fn open_in_chromium(url: &str, profile: &Path, budget_ms: usize) -> (String, String) {
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
        ])
        .arg(format!("--virtual-time-budget={budget_ms}"))
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

/// What one route of the reference showed: its text as a person reads it (the text outside
/// scripts and styles, whitespace collapsed) and the `href` of every link.
struct Shown {
    route: String,
    text: String,
    hrefs: Vec<String>,
}

/// The script added to a copy of the reference by [`open_routes`]: once the page has loaded, it
/// shows each route in turn as a click on one of the page's links does (`location.hash`), reads
/// what it shows, and writes all of it into a JSON element of the `<head>`.
const ROUTES_SCRIPT: &str = r#"<script>
(function () {
  var routes = ROUTES;
  var shown = [];
  function visible() {
    var parts = [];
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var parent = node.parentNode ? node.parentNode.nodeName : "";
        return parent === "SCRIPT" || parent === "STYLE" ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
    });
    while (walker.nextNode()) parts.push(walker.currentNode.nodeValue);
    return parts.join(" ");
  }
  function step(i) {
    if (i === routes.length) {
      var out = document.createElement("script");
      out.type = "application/json";
      out.id = "routes-shown";
      out.textContent = JSON.stringify(shown).replace(/</g, "\\u003c");
      document.head.appendChild(out);
      return;
    }
    if (routes[i] !== "") location.hash = routes[i];
    setTimeout(function () {
      var hrefs = Array.prototype.map.call(document.querySelectorAll("a[href]"), function (a) {
        return a.getAttribute("href");
      });
      shown.push({ route: routes[i], text: visible(), hrefs: hrefs });
      step(i + 1);
    }, ROUTE_MS);
  }
  window.addEventListener("load", function () { setTimeout(function () { step(0); }, ROUTE_MS); });
})();
</script>"#;

/// Virtual milliseconds a route has to render in [`open_routes`] (time is fast-forwarded: a route
/// costs what its rendering costs).
const ROUTE_MS: usize = 1000;

/// Opens the reference `html` once in headless Chromium ([`open_in_chromium`]: network off) and
/// shows each of `routes` (`#/orders`; `""` for the page as it loads) in turn, in one browser:
/// a browser costs about 3 s of CPU to start, and the reference has 60-odd pages. Returns what
/// each route showed, in order, and the browser's log.
fn open_routes(html: &Path, routes: &[String], name: &str) -> (Vec<Shown>, String) {
    let source = std::fs::read_to_string(html).expect("the reference");
    let end = source
        .rfind("</body>")
        .expect("the reference has a </body>");
    let script = ROUTES_SCRIPT
        .replace(
            "ROUTES",
            &serde_json::to_string(routes).expect("routes as JSON"),
        )
        .replace("ROUTE_MS", &ROUTE_MS.to_string());
    let copy = html.with_file_name(format!("{name}.html"));
    std::fs::write(
        &copy,
        format!("{}{script}{}", &source[..end], &source[end..]),
    )
    .expect("write the copy");
    let budget = ROUTE_MS * (routes.len() + 2) + 10_000;
    let (dom, log) = open_in_chromium(
        &format!("file://{}", copy.display()),
        &html.with_file_name(format!("profile-{name}")),
        budget,
    );
    let start = r#"<script type="application/json" id="routes-shown">"#;
    let json = dom
        .find(start)
        .map(|at| &dom[at + start.len()..])
        .and_then(|rest| rest.find("</script>").map(|end| &rest[..end]))
        .unwrap_or_else(|| {
            panic!("the routes were not all shown within {budget} ms of virtual time:\n{log}")
        });
    let read: Value = serde_json::from_str(json).expect("the routes' JSON");
    let text = |page: &Value, key: &str| page[key].as_str().expect("a text").to_owned();
    let shown: Vec<Shown> = read
        .as_array()
        .expect("a list of routes")
        .iter()
        .map(|page| Shown {
            route: text(page, "route"),
            text: text(page, "text")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            hrefs: page["hrefs"]
                .as_array()
                .expect("the links")
                .iter()
                .map(|h| h.as_str().expect("an href").to_owned())
                .collect(),
        })
        .collect();
    assert_eq!(
        shown.iter().map(|s| s.route.as_str()).collect::<Vec<_>>(),
        routes.iter().map(String::as_str).collect::<Vec<_>>(),
        "every route was shown, in order"
    );
    (shown, log)
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

    // The page as it loads, then each tag's page (the sidebar names all its operations; the page
    // shows the first few with method and path, and "Show N more"), in one browser. An operation
    // whose method and path are not on its tag's page is looked for on its own page,
    // `#/<tag>/<operationId>`, in a second one.
    let routes: Vec<String> = std::iter::once(String::new())
        .chain(by_tag.iter().map(|(tag, _)| format!("#/{}", slug(tag))))
        .collect();
    let (pages, log) = open_routes(&html, &routes, "tags");
    assert_eq!(page_problems(&log), Vec::<&str>::new(), "on the tag pages");
    let landing = &pages[0];
    let title = spec["info"]["title"].as_str().expect("title");
    assert!(
        landing.text.contains(title),
        "the landing page shows {title}"
    );
    let mut seen = 0;
    let mut own: Vec<(String, String, String, String)> = Vec::new();
    for ((tag, operations), page) in by_tag.iter().zip(&pages[1..]) {
        let route = slug(tag);
        assert!(
            landing
                .hrefs
                .iter()
                .any(|h| *h == format!("/{route}") || *h == format!("#/{route}")),
            "the sidebar links tag {tag} to #/{route}"
        );
        // Method and path: `get /a` in lists, `GET /a` on an operation's page; lowercased on both
        // sides, as paths may have capitals (`/products/prices/bulkPrice`).
        let shown_lower = page.text.to_lowercase();
        for Operation {
            id,
            summary,
            method_path,
        } in operations
        {
            assert!(
                page.text.contains(summary.as_str()),
                "{tag}: `{summary}` is not on the page"
            );
            assert!(
                page.hrefs.contains(&format!("#/{route}/{id}")),
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
    let own_routes: Vec<String> = own
        .iter()
        .map(|(route, id, _, _)| format!("#/{route}/{id}"))
        .collect();
    let (own_pages, log) = open_routes(&html, &own_routes, "operations");
    assert_eq!(
        page_problems(&log),
        Vec::<&str>::new(),
        "on the operation pages"
    );
    for ((_, id, summary, method_path), page) in own.iter().zip(&own_pages) {
        assert!(
            page.text.contains(summary.as_str()),
            "{id}: `{summary}` is not on its page"
        );
        assert!(
            page.text
                .to_lowercase()
                .contains(method_path.to_lowercase().as_str()),
            "{id}: `{method_path}` is not on its page"
        );
    }
    assert_eq!(
        seen, count,
        "every operation was looked for on its tag's page"
    );
    println!(
        "{seen} operations found on {} tag pages and {} operation pages, no request left the file",
        by_tag.len(),
        own_pages.len()
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
            .as_object_mut()
            .expect("the document has paths");
        paths.retain(|path, _| path.starts_with(DIFF_PATHS));
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

fn edit_yaml(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut doc: serde_json::Value =
        yaml(&std::fs::read_to_string(path).expect("read")).expect("yaml");
    edit(&mut doc);
    std::fs::write(path, serde_saphyr::to_string(&doc).expect("serialize")).expect("write");
}

/// Removes the first property of `ProductQuantity` (a field of a response) and adds a required
/// query parameter to `GET /products/quantities`; returns the removed property's name.
fn make_breaking_edits(spec: &Path) -> String {
    let mut removed = String::new();
    edit_yaml(spec, |doc| {
        let schema = &mut doc["components"]["schemas"]["ProductQuantity"];
        let properties = schema["properties"]
            .as_object_mut()
            .expect("ProductQuantity has properties");
        let first = properties.keys().next().cloned().expect("a property");
        properties.remove(&first);
        removed.clone_from(&first);
        if let Some(required) = schema["required"].as_array_mut() {
            required.retain(|r| r.as_str() != Some(removed.as_str()));
        }
        let parameter: serde_json::Value = yaml(
            "{name: warehouse, in: query, required: true, description: A new required filter., schema: {type: string}}",
        )
        .expect("parameter");
        doc["paths"]["/products/quantities"]["get"]["parameters"]
            .as_array_mut()
            .expect("parameters")
            .push(parameter);
    });
    removed
}

/// The document's `info.version` as committed, and the next minor and major versions.
fn versions() -> (String, String, String) {
    let text = std::fs::read_to_string(workspace().join("openapi/store-admin.yaml")).expect("read");
    let doc: serde_json::Value = yaml(&text).expect("yaml");
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
        doc["info"]["version"] = serde_json::Value::String(version.to_owned());
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

/// YAML as the xtask reads it (`document::from_yaml`): only YAML 1.2's booleans are booleans.
fn yaml(text: &str) -> Result<serde_json::Value, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(text, serde_saphyr::options! { strict_booleans: true })
}
