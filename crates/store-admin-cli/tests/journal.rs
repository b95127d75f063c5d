//! `--resume FILE` continues only its own export, into its own output: every way a journal was
//! found to damage a file or mix exports (issue 37) is refused before the output is touched, and
//! a finished export short of its list's total says so. Each test runs the real binary against
//! the mock store, killing an export half-way as a user's interrupted one would be.

use std::fs::OpenOptions;
use std::path::Path;
use std::process::Stdio;

use sha2::{Digest, Sha256};

use crate::common::store_admin_process;
use crate::exports::{
    TOKEN, assert_lasting_once, export, files, lines, mock, product_ids, wait, wait_for_lines,
    written,
};

/// An export of `server`'s products with `--resume journal`, killed once `at_least` lines are
/// written.
async fn killed(
    server: &store_admin_mock::MockServer,
    out: &Path,
    err: &Path,
    journal: &Path,
    at_least: usize,
) {
    let mut first = export(server, out, err, &["--resume", journal.to_str().unwrap()]);
    wait_for_lines(out, at_least, &mut first).await;
    first.kill().expect("killed");
    let _ = wait(first).await;
}

/// Runs `products list --all -o ndjson --per-page 5 --resume journal [extra]` against `base_url`
/// with standard output appended to `out`; its exit code and standard error.
async fn resume_into(base_url: &str, out: &Path, journal: &Path, extra: &[&str]) -> (i32, String) {
    let output = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .expect("output file");
    let mut command = store_admin_process();
    command
        .env("STORE_ADMIN_TOKEN", TOKEN)
        .args(["--base-url", base_url, "--retries", "0"])
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
        .arg("--resume")
        .arg(journal)
        .stdout(Stdio::from(output))
        .stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || {
        let output = command.output().expect("store-admin runs");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    })
    .await
    .expect("joined")
}

/// The journal's lines, and the last page line's number in it.
fn journal_lines(journal: &Path) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(journal).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let last = lines
        .iter()
        .rposition(|l| l.contains("\"keys\":"))
        .expect("a page line");
    (lines, last)
}

fn write_lines(journal: &Path, lines: &[String]) {
    std::fs::write(journal, lines.join("\n") + "\n").unwrap();
}

/// `line` with the number after `"field":` replaced by `f(number)`.
fn edit_number(line: &str, field: &str, f: impl Fn(u64) -> u64) -> String {
    let key = format!("\"{field}\":");
    let at = line.find(&key).expect("the field") + key.len();
    let end = at + line[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let number: u64 = line[at..end].parse().unwrap();
    format!("{}{}{}", &line[..at], f(number), &line[end..])
}

/// The journal's lines sealed again as store-admin seals them (each line's `sum` the SHA-256 of
/// the previous line's sum and of the line without it): a forger who knows the format.
fn reseal(lines: &mut [String]) {
    let mut previous = String::new();
    for line in lines.iter_mut() {
        let body = match line.strip_prefix("{\"sum\":\"") {
            Some(rest) => format!("{{{}", &rest[66..]),
            None => line.clone(),
        };
        let mut hasher = Sha256::new();
        hasher.update(previous.as_bytes());
        hasher.update(body.as_bytes());
        let sum = hex::encode(hasher.finalize());
        *line = format!("{{\"sum\":\"{sum}\",{}", &body[1..]);
        previous = sum;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn resuming_into_another_file_is_refused_and_leaves_that_file_whole() {
    let server = mock(150, 20).await;
    let (dir, out, err, journal) = files();
    killed(&server, &out, &err, &journal, 40).await;

    // Another NDJSON file, longer than the export's output: the old journal cut it back to its
    // offset (mid-record) and appended to it.
    let other = dir.path().join("other.ndjson");
    let text: String = (0..2000)
        .map(|n| format!("{{\"id\":\"other-{n}\",\"name\":\"a record of another export\"}}\n"))
        .collect();
    std::fs::write(&other, &text).unwrap();
    let (code, stderr) = resume_into(server.base_url(), &other, &journal, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not the file the export"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), text, "untouched");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_journal_changed_by_hand_is_refused_and_the_output_left_whole() {
    let server = mock(150, 20).await;
    for (field, change) in [
        ("output", (|n| n - 100) as fn(u64) -> u64),
        ("page", |n| n + 20),
        ("yielded", |n| n + 1),
    ] {
        let (_dir, out, err, journal) = files();
        killed(&server, &out, &err, &journal, 40).await;
        let (mut lines, last) = journal_lines(&journal);
        lines[last] = edit_number(&lines[last], field, change);
        write_lines(&journal, &lines);
        let before = std::fs::read(&out).unwrap();
        let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
        assert_eq!(code, 2, "{field} edited: {stderr}");
        assert!(stderr.contains("changed by hand"), "{field}: {stderr}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            before,
            "{field}: the output untouched"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_offset_edited_with_its_seals_still_does_not_match_the_output() {
    let server = mock(150, 20).await;
    let (_dir, out, err, journal) = files();
    killed(&server, &out, &err, &journal, 40).await;
    let (mut lines, last) = journal_lines(&journal);
    lines[last] = edit_number(&lines[last], "output", |n| n - 100);
    reseal(&mut lines);
    write_lines(&journal, &lines);
    let before = std::fs::read(&out).unwrap();
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("does not hold what the export"), "{stderr}");
    assert_eq!(std::fs::read(&out).unwrap(), before, "nothing cut");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_journal_that_skips_pages_ends_short_of_the_total_and_says_so() {
    let server = mock(150, 20).await;
    let (_dir, out, err, journal) = files();
    killed(&server, &out, &err, &journal, 40).await;
    // Every page line after the first says it was 15 pages further (sealed again, so only the
    // list's own total can tell).
    let (mut lines, last) = journal_lines(&journal);
    for line in lines.iter_mut().take(last + 1).skip(1) {
        *line = edit_number(line, "page", |n| n + 15);
    }
    reseal(&mut lines);
    write_lines(&journal, &lines);
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 5, "{stderr}");
    assert!(stderr.contains("but the list's total is 150"), "{stderr}");
    assert!(lines_of(&out) < 150, "pages were skipped");
}

fn lines_of(out: &Path) -> usize {
    lines(out)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_journal_cannot_be_the_output() {
    let server = mock(20, 0).await;
    let (_dir, out, _err, _journal) = files();
    // `--resume out.ndjson >> out.ndjson`: the old journal wrote its lines among the records.
    let (code, stderr) = resume_into(server.base_url(), &out, &out, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is standard output itself"), "{stderr}");
    assert_eq!(std::fs::read(&out).unwrap(), b"", "nothing written");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_process_on_a_journal_in_use_is_refused_with_the_first_ones_pid() {
    // Half a second a page: the first export must still be running when the second process has
    // started (at 20 ms a page it finished first on CI's loaded two cores).
    let server = mock(150, 500).await;
    let (_dir, out, err, journal) = files();
    let before = product_ids(&server).await;
    let journal_arg = journal.to_str().unwrap();
    let mut first = export(&server, &out, &err, &["--resume", journal_arg]);
    wait_for_lines(&out, 20, &mut first).await;
    let pid = first.id();
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(&format!("in use by pid {pid}")), "{stderr}");
    assert_eq!(
        wait(first).await,
        0,
        "{}",
        std::fs::read_to_string(&err).unwrap()
    );
    assert_lasting_once(&written(&out), &before);
    assert_eq!(lines(&out), before.len(), "each product once");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_journal_of_another_store_or_query_is_refused() {
    let server = mock(150, 20).await;
    let other = mock(150, 0).await;
    let (_dir, out, err, journal) = files();
    killed(&server, &out, &err, &journal, 40).await;
    let before = std::fs::read(&out).unwrap();

    let (code, stderr) = resume_into(other.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 2, "another store: {stderr}");
    assert!(stderr.contains("another export (store"), "{stderr}");

    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &["--keyword", "a"]).await;
    assert_eq!(code, 2, "another query: {stderr}");
    assert!(
        stderr.contains(r#"(query keyword="a", not (no filter))"#)
            || stderr.contains(r#"query (no filter), not keyword="a""#),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), before, "the output untouched");

    // The same query continues.
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_lasting_once(&written(&out), &product_ids(&server).await);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_journal_beside_a_written_output_does_not_start_over() {
    let server = mock(150, 20).await;
    let (_dir, out, err, journal) = files();
    killed(&server, &out, &err, &journal, 40).await;
    std::fs::write(&journal, b"").unwrap();
    let before = std::fs::read(&out).unwrap();
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("has no header"), "{stderr}");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "nothing written twice"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_version_1_journal_is_refused() {
    let server = mock(20, 0).await;
    let (_dir, out, _err, journal) = files();
    std::fs::write(&out, "{\"id\":1}\n").unwrap();
    std::fs::write(
        &journal,
        "{\"store_admin_export\":1,\"operation\":\"list_products\",\"format\":\"ndjson\",\
         \"per_page\":5,\"output_start\":0}\n",
    )
    .unwrap();
    let (code, stderr) = resume_into(server.base_url(), &out, &journal, &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("(version 1)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"id\":1}\n");
}
