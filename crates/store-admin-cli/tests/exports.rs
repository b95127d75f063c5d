//! `--all` as an export: every record once while the store changes under it (records created and
//! deleted move the others between pages), and `--resume FILE` continuing an export whose
//! process was killed, or that stopped on a failure, with no record lost or repeated.
//!
//! The exports run as processes of the real binary against the mock store over HTTP, slowed by
//! the mock's latency so that the store can be changed while they read.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use store_admin_mock::{FaultConfig, MockConfig, MockServer};

use crate::common::{run, store_admin, store_admin_process};

pub(crate) const TOKEN: &str = "T";

pub(crate) async fn mock(products: usize, latency_millis: u64) -> MockServer {
    let server = MockServer::start(
        MockConfig::new()
            .seed(7)
            .products(products)
            .token_all_scopes(TOKEN),
    )
    .await
    .expect("the mock starts");
    slow(&server, latency_millis);
    server
}

pub(crate) fn slow(server: &MockServer, millis: u64) {
    let faults: FaultConfig = serde_json::from_value(json!({
        "latency": {"millis": millis, "operations": ["list_products"]}
    }))
    .expect("a fault configuration");
    server.set_faults(faults).expect("faults set");
}

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

/// The ids of every product now, read page by page while nothing changes.
pub(crate) async fn product_ids(server: &MockServer) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for page in 1.. {
        let body: Value = client()
            .get(format!(
                "{}/products?per_page=60&page={page}",
                server.base_url()
            ))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("listed")
            .json()
            .await
            .expect("JSON");
        let data = body["data"].as_array().expect("data");
        ids.extend(data.iter().map(|p| id_text(&p["id"])));
        if data.len() < 60 {
            break;
        }
    }
    ids
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Creates a product; returns its id.
async fn create(server: &MockServer) -> String {
    let body = server.sample_body("create_product").expect("a sample body");
    let answer: Value = client()
        .post(format!("{}/products", server.base_url()))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .expect("created")
        .json()
        .await
        .expect("JSON");
    id_text(&answer["data"]["id"])
}

async fn delete(server: &MockServer, id: &str) {
    let status = client()
        .delete(format!("{}/products/{id}", server.base_url()))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("deleted")
        .status();
    assert!(status.is_success(), "delete {id}: {status}");
}

/// `store-admin products list --all -o ndjson --per-page 5 [extra]`, its output appended to
/// `out`, standard error to `err`.
pub(crate) fn export(server: &MockServer, out: &Path, err: &Path, extra: &[&str]) -> Child {
    let append = |path: &Path| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("output file")
    };
    store_admin_process()
        .env("STORE_ADMIN_TOKEN", TOKEN)
        .args(["--base-url", server.base_url(), "--retries", "0"])
        .args([
            "products",
            "list",
            "--all",
            "-o",
            "ndjson",
            "--per-page",
            "5",
        ])
        .args(extra)
        .stdout(Stdio::from(append(out)))
        .stderr(Stdio::from(append(err)))
        .spawn()
        .expect("store-admin starts")
}

/// The ids in an NDJSON output, with how many times each is there.
pub(crate) fn written(out: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(out).expect("output");
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let record: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        *counts.entry(id_text(&record["id"])).or_default() += 1;
    }
    counts
}

pub(crate) fn lines(out: &Path) -> usize {
    std::fs::read_to_string(out).map_or(0, |t| t.lines().count())
}

pub(crate) async fn wait_for_lines(out: &Path, at_least: usize, child: &mut Child) {
    let start = Instant::now();
    while lines(out) < at_least {
        assert!(
            child.try_wait().expect("child").is_none(),
            "the export ended before writing {at_least} lines"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the export is stuck"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub(crate) async fn wait(child: Child) -> i32 {
    tokio::task::spawn_blocking(move || {
        let mut child = child;
        child.wait().expect("waited").code().unwrap_or(-1)
    })
    .await
    .expect("joined")
}

/// A directory for one export: its output, its standard error and its journal (the directory
/// goes with the first value).
pub(crate) fn files() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let (out, err, journal) = (path("out.ndjson"), path("err.txt"), path("export.journal"));
    (dir, out, err, journal)
}

/// Every record that existed throughout is written exactly once, no record twice.
pub(crate) fn assert_lasting_once(counts: &BTreeMap<String, usize>, lasting: &BTreeSet<String>) {
    let repeated: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "records written twice: {repeated:?}");
    let missing: Vec<_> = lasting
        .iter()
        .filter(|id| !counts.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} record(s) that existed throughout are missing: {missing:?}",
        missing.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_while_products_are_created_and_deleted_has_every_lasting_record_once() {
    let server = mock(150, 25).await;
    let before = product_ids(&server).await;
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out.ndjson"), dir.path().join("err.txt"));
    let mut child = export(&server, &out, &err, &["--concurrency", "1"]);

    // Newest first: the first pages hold the newest products. Once the export is past them,
    // deleting them pulls every later record one place forward (into pages already read), and
    // creating products pushes every record back (into pages still to read).
    let newest: Vec<String> = {
        let body: Value = client()
            .get(format!("{}/products?per_page=20", server.base_url()))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| id_text(&p["id"]))
            .collect()
    };
    let mut deleted = BTreeSet::new();
    for (round, id) in newest.iter().take(8).enumerate() {
        wait_for_lines(&out, 25 + round * 10, &mut child).await;
        delete(&server, id).await;
        deleted.insert(id.clone());
        create(&server).await;
    }
    let code = wait(child).await;
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert_eq!(code, 0, "{stderr}");
    let lasting: BTreeSet<String> = before.difference(&deleted).cloned().collect();
    let counts = written(&out);
    assert_lasting_once(&counts, &lasting);
    for id in &deleted {
        // Deleted after their page was read: written once, as they were then.
        assert_eq!(counts.get(id), Some(&1), "deleted product {id}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_export_resumes_with_no_record_lost_or_repeated() {
    let server = mock(150, 20).await;
    let (_dir, out, err, journal) = files();
    let journal_arg = journal.to_str().unwrap();
    let before = product_ids(&server).await;

    let mut first = export(&server, &out, &err, &["--resume", journal_arg]);
    wait_for_lines(&out, 60, &mut first).await;
    first.kill().expect("killed");
    let _ = wait(first).await;
    let written_first = lines(&out);
    assert!(
        written_first < before.len(),
        "killed before the end ({written_first} of {})",
        before.len()
    );

    // Meanwhile the store changes: 3 of the products already written are deleted (the later
    // ones move forward, some into pages written before the kill) and one is created.
    let done: Vec<String> = written(&out).into_keys().take(3).collect();
    for id in &done {
        delete(&server, id).await;
    }
    create(&server).await;

    let second = export(&server, &out, &err, &["--resume", journal_arg]);
    let code = wait(second).await;
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert_eq!(code, 0, "{stderr}");
    let counts = written(&out);
    assert_lasting_once(&counts, &before);
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    assert!(
        journal_text
            .lines()
            .last()
            .unwrap()
            .contains(r#""done":true"#),
        "the journal ends with the export's end: {journal_text}"
    );

    // A third run of a finished export writes nothing and says so.
    let length = std::fs::metadata(&out).unwrap().len();
    let third = export(&server, &out, &err, &["--resume", journal_arg]);
    assert_eq!(wait(third).await, 0);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), length);
    assert!(
        std::fs::read_to_string(&err)
            .unwrap()
            .contains("has finished already"),
        "{}",
        std::fs::read_to_string(&err).unwrap()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_that_fails_says_what_was_written_and_resumes_after_it() {
    let server = mock(100, 15).await;
    let (_dir, out, err, journal) = files();
    let journal_arg = journal.to_str().unwrap();
    let before = product_ids(&server).await;

    let mut first = export(&server, &out, &err, &["--resume", journal_arg]);
    wait_for_lines(&out, 30, &mut first).await;
    let failing: FaultConfig = serde_json::from_value(json!({
        "errors": {"rate": 1.0, "statuses": [503], "operations": ["list_products"]}
    }))
    .unwrap();
    server.set_faults(failing).unwrap();
    let code = wait(first).await;
    let stderr = std::fs::read_to_string(&err).unwrap();
    assert_eq!(code, 4, "the service failed: exit 4\n{stderr}");
    let written_first = lines(&out);
    assert!(
        stderr.contains(&format!(
            "{written_first} record(s) were written before the export stopped"
        )),
        "says how many were written ({written_first}): {stderr}"
    );
    assert!(
        stderr.contains("run the same command again") && stderr.contains(journal_arg),
        "says how to continue: {stderr}"
    );

    slow(&server, 5);
    let second = export(&server, &out, &err, &["--resume", journal_arg]);
    assert_eq!(
        wait(second).await,
        0,
        "{}",
        std::fs::read_to_string(&err).unwrap()
    );
    assert_lasting_once(&written(&out), &before);
    assert_eq!(lines(&out), before.len(), "nothing more than the products");
}

#[test]
fn resume_needs_a_file_to_append_to_and_a_line_format() {
    // Standard output is a pipe here.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j");
    let refused = |args: &[&str]| {
        let mut command = store_admin();
        command.args(["--sandbox", "products", "list"]).args(args);
        command.arg("--resume").arg(&journal);
        run(command, 2).1
    };
    let err = refused(&["--all", "-o", "ndjson"]);
    assert!(err.contains("redirected to a file"), "{err}");
    let err = refused(&["--all", "-o", "json"]);
    assert!(err.contains("--output ndjson"), "{err}");
    let err = refused(&[]);
    assert!(err.contains("--all"), "--resume without --all: {err}");
}
