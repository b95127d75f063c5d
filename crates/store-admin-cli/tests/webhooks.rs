//! `webhooks verify` and `webhooks listen`: deliveries signed as the service signs them.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use secrecy::SecretString;
use store_admin::webhooks::sign;

use crate::common::{json, run, store_admin};

const SECRET: &str = "whsec-test-1234";
const BODY: &str = r#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":7,"total":{"amount":10,"currency":"SAR"}}}"#;

fn signature(body: &[u8]) -> String {
    sign(&SecretString::from(SECRET), body)
}

/// Writes a delivery's headers and body to files; returns (dir, headers path, body path).
fn delivery(body: &[u8], signature: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let headers = dir.path().join("headers.txt");
    std::fs::write(
        &headers,
        format!(
            "POST /webhooks HTTP/1.1\nContent-Type: application/json\n\
             X-Salla-Security-Strategy: Signature\nX-Salla-Signature: {signature}\n"
        ),
    )
    .unwrap();
    let body_path = dir.path().join("body.json");
    std::fs::write(&body_path, body).unwrap();
    let h = headers.to_str().unwrap().to_string();
    let b = body_path.to_str().unwrap().to_string();
    (dir, h, b)
}

fn verify(args: &[&str], code: i32) -> (String, String) {
    let mut cmd = store_admin();
    cmd.env("STORE_ADMIN_WEBHOOK_SECRET", SECRET)
        .args(["webhooks", "verify"])
        .args(args);
    run(cmd, code)
}

#[test]
fn verify_accepts_a_correctly_signed_delivery() {
    let (_dir, headers, body) = delivery(BODY.as_bytes(), &signature(BODY.as_bytes()));
    let (out, _) = verify(&["--headers", &headers, "--body", &body, "-o", "table"], 0);
    insta::assert_snapshot!(out);
    let (out, _) = verify(&["--headers", &headers, "--body", &body, "-o", "json"], 0);
    let report = json(&out);
    assert_eq!(report["valid"], true);
    assert_eq!(report["strategy"], "Signature");
    assert_eq!(report["event"]["event"], "order.created");
}

#[test]
fn verify_rejects_a_tampered_body_with_exit_1() {
    let tampered = BODY.replace("\"id\":7", "\"id\":8");
    let (_dir, headers, body) = delivery(tampered.as_bytes(), &signature(BODY.as_bytes()));
    let (out, err) = verify(&["--headers", &headers, "--body", &body, "-o", "table"], 1);
    insta::assert_snapshot!(out);
    assert!(err.is_empty(), "{err}");
    assert!(!out.contains(SECRET) && !out.contains(&signature(tampered.as_bytes())));
}

#[test]
fn verify_lays_out_a_valid_and_an_invalid_report_alike() {
    let tampered = BODY.replace("\"id\":7", "\"id\":8");
    let (_dir, headers, body) = delivery(BODY.as_bytes(), &signature(BODY.as_bytes()));
    let (_bad_dir, bad_headers, bad_body) =
        delivery(tampered.as_bytes(), &signature(BODY.as_bytes()));
    // -o json pretty-prints both; -o ndjson writes each on one line.
    let (valid, _) = verify(&["--headers", &headers, "--body", &body, "-o", "json"], 0);
    let (invalid, _) = verify(
        &["--headers", &bad_headers, "--body", &bad_body, "-o", "json"],
        1,
    );
    for out in [&valid, &invalid] {
        assert!(out.trim_end().lines().count() > 1, "pretty-printed: {out}");
        assert_eq!(out.lines().next(), Some("{"), "{out}");
    }
    assert_eq!(json(&invalid)["valid"], false);
    let (valid, _) = verify(&["--headers", &headers, "--body", &body, "-o", "ndjson"], 0);
    let (invalid, _) = verify(
        &[
            "--headers",
            &bad_headers,
            "--body",
            &bad_body,
            "-o",
            "ndjson",
        ],
        1,
    );
    for out in [&valid, &invalid] {
        assert_eq!(out.trim_end().lines().count(), 1, "one line: {out}");
    }
}

#[test]
fn verify_explains_a_trailing_newline_added_to_the_body_file() {
    let with_newline = format!("{BODY}\n");
    let (_dir, headers, body) = delivery(with_newline.as_bytes(), &signature(BODY.as_bytes()));
    let (out, _) = verify(&["--headers", &headers, "--body", &body], 1);
    assert!(out.contains("trailing newline"), "{out}");
}

#[test]
fn verify_reads_a_whole_request_from_standard_input() {
    let raw = format!(
        "POST /hook HTTP/1.1\r\nX-Salla-Security-Strategy: Signature\r\nX-Salla-Signature: {}\r\n\r\n{BODY}",
        signature(BODY.as_bytes())
    );
    let mut cmd = store_admin();
    cmd.env("STORE_ADMIN_WEBHOOK_SECRET", SECRET)
        .args(["webhooks", "verify", "--request", "-", "-o", "ndjson"])
        .write_stdin(raw);
    let (out, _) = run(cmd, 0);
    assert_eq!(json(&out)["valid"], true);
}

#[test]
fn verify_accepts_the_token_strategy_from_header_flags() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, BODY).unwrap();
    let auth = format!("Authorization: {SECRET}");
    let (out, _) = verify(
        &[
            "-H",
            "X-Salla-Security-Strategy: Token",
            "-H",
            &auth,
            "--body",
            body.to_str().unwrap(),
            "-o",
            "table",
        ],
        0,
    );
    assert!(out.starts_with("valid: the Token strategy"), "{out}");
}

#[test]
fn verify_without_security_headers_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, BODY).unwrap();
    let (out, _) = verify(&["--body", body.to_str().unwrap(), "-o", "table"], 1);
    assert!(out.contains("missing X-Salla-Security-Strategy"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_prints_verified_events_and_rejects_forged_ones() {
    let binary = assert_cmd::cargo::cargo_bin("store-admin");
    let mut child = std::process::Command::new(binary)
        .args([
            "webhooks",
            "listen",
            "--port",
            "0",
            "--max-events",
            "2",
            "-o",
            "ndjson",
        ])
        .env("STORE_ADMIN_WEBHOOK_SECRET", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let address = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .trim_end_matches('/')
        .to_string();
    assert!(!first.contains(SECRET));

    let client = reqwest::Client::new();
    let post = |body: String, signature: String| {
        client
            .post(format!("{address}/webhooks"))
            .header("X-Salla-Security-Strategy", "Signature")
            .header("X-Salla-Signature", signature)
            .body(body)
            .send()
    };
    let forged = post(BODY.to_string(), signature(b"something else"))
        .await
        .unwrap();
    assert_eq!(forged.status(), 401);
    let first_ok = post(BODY.to_string(), signature(BODY.as_bytes()))
        .await
        .unwrap();
    assert_eq!(first_ok.status(), 200);
    let second = BODY.replace("order.created", "order.updated");
    let second_ok = post(second.clone(), signature(second.as_bytes()))
        .await
        .unwrap();
    assert_eq!(second_ok.status(), 200);

    let output = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(output.status.success(), "stops after --max-events");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let events: Vec<serde_json::Value> = stdout.lines().map(json).collect();
    assert_eq!(events.len(), 2, "{stdout}");
    assert_eq!(events[0]["event"], "order.created");
    assert_eq!(events[1]["event"], "order.updated");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(rest.contains("rejected a delivery to /webhooks"), "{rest}");
    assert!(!stdout.contains(SECRET) && !rest.contains(SECRET));
}

#[test]
fn verify_escapes_the_events_text_in_tables_and_csv() {
    let hostile = r#"{"event":"order.created\u001b]0;pwned\u0007","merchant":1,"created_at":"2022\u001b[2J","data":{}}"#;
    let (_dir, headers, body) = delivery(hostile.as_bytes(), &signature(hostile.as_bytes()));
    for format in ["table", "csv"] {
        let (out, _) = verify(&["--headers", &headers, "--body", &body, "-o", format], 0);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{format}: {out:?}"
        );
        assert!(out.contains("\\u{1b}"), "{format}: {out}");
    }
}

/// `BODY` as `order.updated`, drifted: the merchant as a string, and a field the document does not
/// declare (its value hostile).
fn drifted_body() -> String {
    BODY.replace("order.created", "order.updated")
        .replace("1234509876", "\"1234509876\"")
        .replace(
            r#""data":{"#,
            r#""trace_note":"=cmd|' /C calc'!A0","data":{"#,
        )
}

/// A drift report of `BODY` and `drifted_body()`: per event, the habit and the undeclared field,
/// never a value.
fn assert_drifted_report(text: &str) {
    let drift = json(text);
    assert_eq!(drift["webhook:order.created"]["decoded"], 1, "{text}");
    let updated = &drift["webhook:order.updated"];
    assert_eq!(
        updated["habits"]["a number sent as a string"]["paths"]["merchant"]["count"], 1,
        "{text}"
    );
    assert_eq!(
        updated["unknown_fields"]["trace_note"]["types"][0], "string",
        "{text}"
    );
    assert!(
        !text.contains("calc") && !text.contains("1234509876"),
        "{text}"
    );
}

/// A `webhooks listen` process on a free port, with its address (read from its first line).
fn start_listener(
    args: &[&str],
) -> (
    std::process::Child,
    String,
    BufReader<std::process::ChildStderr>,
) {
    let binary = assert_cmd::cargo::cargo_bin("store-admin");
    let mut child = std::process::Command::new(binary)
        .args(["webhooks", "listen", "--port", "0", "-o", "ndjson"])
        .args(args)
        .env("STORE_ADMIN_WEBHOOK_SECRET", SECRET)
        .env_remove("STORE_ADMIN_WEBHOOK_REDIS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let address = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, address, stderr)
}

/// Posts `body`, signed, to `address`; the status.
async fn deliver(address: &str, body: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{address}/webhooks"))
        .header("X-Salla-Security-Strategy", "Signature")
        .header("X-Salla-Signature", signature(body.as_bytes()))
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// The events a finished listener printed.
async fn printed(child: std::process::Child) -> Vec<serde_json::Value> {
    let output = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(output.status.success(), "stops after --max-events");
    let stdout = String::from_utf8(output.stdout).unwrap();
    stdout.lines().map(json).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_prints_a_replayed_delivery_once() {
    let (child, address, mut stderr) = start_listener(&["--max-events", "2"]);
    assert_eq!(deliver(&address, BODY).await, 200);
    // The service resends a delivery it thinks was lost: the same bytes, the same signature.
    assert_eq!(deliver(&address, BODY).await, 200, "acknowledged again");
    let second = BODY.replace("order.created", "order.updated");
    assert_eq!(deliver(&address, &second).await, 200);
    let events = printed(child).await;
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["order.created", "order.updated"], "{events:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(rest.contains("received before"), "{rest}");
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_writes_the_drift_of_its_deliveries_by_event_and_never_a_value() {
    let dir = tempfile::tempdir().expect("a directory");
    let report = dir.path().join("drift.json");
    let (child, address, _stderr) =
        start_listener(&["--max-events", "2", "--drift", report.to_str().unwrap()]);
    // The file is there (empty) from the start: a path that cannot be written fails at once.
    assert_eq!(std::fs::read_to_string(&report).unwrap().trim(), "{}");
    assert_eq!(deliver(&address, BODY).await, 200);
    // The merchant as a string, and a field the document does not declare (its value hostile).
    let drifted = drifted_body();
    assert_eq!(deliver(&address, &drifted).await, 200);
    assert_eq!(printed(child).await.len(), 2);
    let text = std::fs::read_to_string(&report).unwrap();
    assert_drifted_report(&text);

    // A --drift file that cannot be written is a usage error before anything listens.
    let mut command = store_admin();
    command
        .args(["webhooks", "listen", "--port", "0", "--drift"])
        .arg(dir.path().join("no/such/dir/drift.json"))
        .env("STORE_ADMIN_WEBHOOK_SECRET", SECRET);
    let (_, err) = run(command, 2);
    assert!(err.contains("--drift"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_saves_deliveries_that_drift_reads_by_event_and_never_the_store_tokens() {
    let dir = tempfile::tempdir().expect("a directory");
    let saved = dir.path().join("deliveries");
    let (child, address, _stderr) =
        start_listener(&["--max-events", "3", "--save", saved.to_str().unwrap()]);
    assert_eq!(deliver(&address, BODY).await, 200);
    // Resent: acknowledged, not handled again, not saved again.
    assert_eq!(deliver(&address, BODY).await, 200);
    let drifted = drifted_body();
    assert_eq!(deliver(&address, &drifted).await, 200);
    let authorize = r#"{"event":"app.store.authorize","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"access_token":"at-never-on-disk","expires":1634819484,"refresh_token":"rt-never-on-disk","scope":"settings.read offline_access","token_type":"bearer"}}"#;
    assert_eq!(deliver(&address, authorize).await, 200);
    assert_eq!(printed(child).await.len(), 3);

    // Two files, byte for byte, named by event; the tokens' event is not written.
    let mut files: Vec<_> = std::fs::read_dir(&saved)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 2, "{names:?}");
    assert!(names[0].starts_with("order.created.") && names[1].starts_with("order.updated."));
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), BODY);
    assert_eq!(std::fs::read_to_string(&files[1]).unwrap(), drifted);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&saved), 0o700);
        assert_eq!(mode(&files[0]), 0o600);
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(!text.contains("never-on-disk"), "{text}");
    }

    // `drift --deliveries DIR`: per event, the habit and the undeclared field, never a value.
    let mut command = store_admin();
    command.args(["drift", "--deliveries"]).arg(&saved);
    let (text, _) = run(command, 0);
    assert_drifted_report(&text);

    // A file that is not a delivery: named, counted as failed, exit 1; the others still count.
    std::fs::write(saved.join("junk.json"), r#"{"hello":"world"}"#).unwrap();
    let mut command = store_admin();
    command.args(["drift", "--deliveries"]).arg(&saved);
    let (text, err) = run(command, 1);
    assert!(
        err.contains("junk.json") && err.contains("not a delivery"),
        "{err}"
    );
    assert_eq!(json(&text)["webhook:order.created"]["decoded"], 1, "{text}");

    // --save on a file is a usage error before anything listens.
    let mut command = store_admin();
    command
        .args(["webhooks", "listen", "--port", "0", "--save"])
        .arg(&files[0])
        .env("STORE_ADMIN_WEBHOOK_SECRET", SECRET);
    let (_, err) = run(command, 2);
    assert!(err.contains("--save"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn listeners_sharing_a_redis_print_a_delivery_once_between_them() {
    let redis = store_admin_tests::RedisServer::start();
    let url = redis.url();
    let (first, first_address, _first_err) =
        start_listener(&["--max-events", "1", "--redis", &url]);
    let (second, second_address, mut second_err) =
        start_listener(&["--max-events", "1", "--redis", &url]);
    // The same delivery reaches both listeners (the service resent it to another replica).
    assert_eq!(deliver(&first_address, BODY).await, 200);
    assert_eq!(deliver(&second_address, BODY).await, 200);
    let other = BODY.replace("order.created", "order.updated");
    assert_eq!(deliver(&second_address, &other).await, 200);
    let mut events = printed(first).await;
    events.extend(printed(second).await);
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["order.created", "order.updated"], "{events:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut second_err, &mut rest).unwrap();
    assert!(rest.contains("received before"), "{rest}");
    assert!(!rest.contains(SECRET));
}

#[test]
fn listen_refuses_a_redis_password_on_the_command_line_without_showing_it() {
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_WEBHOOK_SECRET", SECRET)
        .args(["webhooks", "listen", "--port", "0"])
        .args(["--redis", "redis://:listen-redis-pw-93@127.0.0.1:1/0"]);
    let (out, err) = run(command, 2);
    assert!(err.contains("STORE_ADMIN_WEBHOOK_REDIS"), "{err}");
    assert!(!err.contains("listen-redis-pw-93") && !out.contains("listen-redis-pw-93"));
}
