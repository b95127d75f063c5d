//! The defects a new user met when running the CLI (issue 10): each test failed before its fix.

use crate::common::{json, ok, run, sandbox, store_admin};

#[test]
fn the_sandbox_ignores_the_users_token_from_the_environment_and_the_flag() {
    let mut cmd = sandbox(&["orders", "list", "-o", "json"]);
    cmd.env("STORE_ADMIN_TOKEN", "a-live-token-of-the-user");
    let (out, err) = run(cmd, 0);
    assert!(
        json(&out).as_array().is_some_and(|a| !a.is_empty()),
        "{err}"
    );
    let (out, _) = run(
        sandbox(&[
            "--token",
            "another-live-token",
            "orders",
            "list",
            "-o",
            "json",
        ]),
        0,
    );
    assert!(json(&out).is_array());
}

#[test]
fn api_refuses_a_full_url_of_another_origin_even_when_it_starts_with_the_base_text() {
    // The sandbox's base URL is http://127.0.0.1:<port>/admin/v2; a host that merely starts with
    // the same text is another origin, and the token must not go there.
    for url in [
        "http://127.0.0.1.nip.io/admin/v2/orders",
        "https://127.0.0.1/admin/v2/orders",
        "http://example.com/admin/v2/orders",
    ] {
        let (out, err) = run(sandbox(&["api", "GET", url]), 2);
        assert!(out.is_empty());
        assert!(err.contains("is not under the base URL"), "{url}: {err}");
    }
    // The issue's case: the base URL's text is a prefix of another host's URL. Refused before
    // any connection is tried.
    for url in [
        "https://store.example.evil.com/orders",
        "https://store.example/admin/v2.evil/orders",
    ] {
        let mut cmd = store_admin();
        cmd.args([
            "--base-url",
            "https://store.example/admin/v2",
            "--token",
            "t",
            "--retries",
            "0",
            "api",
            "GET",
            url,
        ]);
        let (_, err) = run(cmd, 2);
        assert!(err.contains("is not under the base URL"), "{url}: {err}");
    }
}

const HOSTILE: &str = "Shoes\u{1b}]0;owned\u{7}\u{1b}[31mRED\u{1b}[2J";

#[test]
fn table_output_escapes_terminal_control_sequences_from_data() {
    let out = ok(&["categories", "create", "--name", HOSTILE, "-o", "table"]);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("Shoes\\u{1b}]0;owned\\u{7}"), "{out}");
}

/// A one-shot HTTP server on 127.0.0.1 that answers every request with `status` and `body`.
fn serve_forever(status: &'static str, body: &'static str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 8192];
            let _ = stream.read(&mut buffer);
            let response = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    format!("http://{address}/admin/v2")
}

#[test]
fn error_messages_from_the_service_escape_terminal_control_sequences() {
    let base = serve_forever(
        "422 Unprocessable Entity",
        r#"{"status":422,"success":false,"error":{"code":"error","message":"bad \u001b]0;owned\u0007\u001b[2J name","fields":{"name\u001b[31m":["x\u001b[1m"]}}}"#,
    );
    let mut cmd = store_admin();
    cmd.args(["--base-url", &base, "--token", "t", "orders", "statuses"]);
    let (_, err) = run(cmd, 3);
    assert!(err.contains("bad \\u{1b}]0;owned"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

#[test]
fn csv_cells_are_neutralised_against_formula_injection() {
    let out = ok(&[
        "categories",
        "create",
        "--name",
        "=HYPERLINK(\"http://evil.example\",\"x\")",
        "-o",
        "csv",
    ]);
    assert!(out.contains("'=HYPERLINK"), "{out}");
    let help = ok(&["--help"]);
    assert!(help.contains("formulas"), "--help says so: {help}");
}

#[test]
fn custom_webhook_header_values_are_secrets_and_never_printed() {
    for format in ["json", "table", "csv", "ndjson"] {
        let (out, err) = run(
            sandbox(&[
                "webhooks",
                "subscribe",
                "--name",
                "Orders",
                "--event",
                "order.created",
                "--url",
                "https://hooks.example/new",
                "--header",
                "Authorization: Bearer hdr-secret-123",
                "-o",
                format,
            ]),
            0,
        );
        assert!(
            !out.contains("hdr-secret-123") && !err.contains("hdr-secret-123"),
            "{format}: {out}"
        );
    }
}

#[test]
fn a_body_with_an_unknown_field_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let body = dir.path().join("category.json");
    std::fs::write(&body, r#"{"name": "Shoes", "stauts": "active"}"#).expect("write");
    let body = body.to_string_lossy().into_owned();
    let (out, err) = run(sandbox(&["categories", "create", "--body", &body]), 2);
    assert!(out.is_empty(), "nothing was sent: {out}");
    assert!(
        err.contains("`stauts`") && err.contains("--allow-unknown-fields"),
        "{err}"
    );
    let (out, err) = run(
        sandbox(&[
            "categories",
            "create",
            "--body",
            &body,
            "--allow-unknown-fields",
            "-o",
            "json",
        ]),
        0,
    );
    assert_eq!(json(&out)["name"], "Shoes");
    assert!(err.contains("`stauts`"), "{err}");
}

#[test]
fn verbose_logs_one_line_per_attempt_and_rust_log_is_honoured() {
    let (_, err) = run(sandbox(&["-v", "orders", "statuses", "-o", "json"]), 0);
    let attempts: Vec<&str> = err.lines().filter(|l| l.contains("attempt=")).collect();
    assert_eq!(attempts.len(), 1, "{err}");
    assert!(
        attempts[0].contains("status=200") && attempts[0].contains("list_order_statuses"),
        "{err}"
    );
    assert_eq!(attempts[0].matches("attempt=").count(), 1, "{err}");

    let mut cmd = sandbox(&["orders", "statuses", "-o", "json"]);
    cmd.env("RUST_LOG", "store_admin=info");
    let (_, err) = run(cmd, 0);
    assert!(err.contains("attempt=1"), "RUST_LOG without -v: {err}");

    let mut cmd = sandbox(&["-v", "orders", "statuses", "-o", "json"]);
    cmd.env("RUST_LOG", "off");
    let (_, err) = run(cmd, 0);
    assert!(err.is_empty(), "RUST_LOG wins over -v: {err}");
}

#[test]
fn a_base_url_that_is_not_http_or_has_a_query_is_a_usage_error() {
    for (url, says) in [
        ("ftp://store.example/admin/v2", "http or https"),
        ("https://store.example/admin/v2?x=1", "no query"),
        ("not a url", "not a URL"),
    ] {
        let mut cmd = store_admin();
        cmd.args(["--base-url", url, "--token", "t", "orders", "list"]);
        let (_, err) = run(cmd, 2);
        assert!(err.contains(says), "{url}: {err}");
    }
}

#[test]
fn page_zero_says_what_is_allowed() {
    let (_, err) = run(sandbox(&["orders", "list", "--page", "0"]), 2);
    assert!(err.contains("numbered from 1"), "{err}");
    assert!(!err.contains("non-zero type"), "{err}");
}

#[test]
fn money_is_printed_with_two_places_in_tables_and_csv() {
    let table = ok(&["orders", "list", "-o", "table"]);
    let amounts: Vec<&str> = table
        .split_whitespace()
        .zip(table.split_whitespace().skip(1))
        .filter(|(_, currency)| *currency == "SAR")
        .map(|(amount, _)| amount)
        .collect();
    assert!(!amounts.is_empty(), "{table}");
    for amount in amounts {
        let (_, cents) = amount.split_once('.').unwrap_or((amount, ""));
        assert!(cents.len() >= 2, "{amount} in {table}");
    }
    let csv = ok(&["orders", "list", "-o", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let at = reader
        .headers()
        .expect("a header line")
        .iter()
        .position(|h| h == "total.amount")
        .expect("a total.amount column");
    let mut rows = 0;
    for record in reader.records() {
        let record = record.expect("a CSV row");
        let cell = record.get(at).unwrap_or_default();
        let (_, cents) = cell.split_once('.').unwrap_or((cell, ""));
        assert!(cents.len() >= 2, "{cell} in {record:?}");
        rows += 1;
    }
    assert!(rows > 0, "{csv}");
}
