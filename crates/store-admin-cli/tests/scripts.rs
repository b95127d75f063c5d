//! What scripts rely on (issue 25): every command honours `-o`, output failures have exit codes
//! (a closed pipe 0, a full disk or a closed stream 1, never a panic), standard input is read by
//! one option only, parser faults are told in sentences, uploads too large are told so, `decode`
//! reads the CLI's own output, a 401 names the token's source, profiles fail one at a time,
//! webhook secrets stay off the command line, and `api` keeps the token below the base URL.

use std::io::Write;
use std::process::Stdio;

use store_admin_mock::{Limits, MockConfig, MockServer};

use crate::common::{json, ok, run, sandbox, store_admin, store_admin_process};

/// The id of the first product of the sandbox.
fn a_product() -> String {
    let rows = json(&ok(&[
        "products",
        "quantities",
        "--per-page",
        "1",
        "-o",
        "json",
    ]));
    rows[0]["id"].to_string()
}

// ---------------------------------------------------------------------------------------------
// -o holds for every command

#[test]
fn commands_whose_body_has_no_record_type_print_the_record_in_every_format() {
    let id = a_product();
    let out = ok(&["products", "get", &id, "-o", "json"]);
    let record = json(&out);
    assert_eq!(
        record["id"].to_string(),
        id,
        "the record, not the envelope: {out}"
    );
    assert!(
        record.get("success").is_none() && record.get("data").is_none(),
        "{out}"
    );

    let out = ok(&["products", "get", &id, "-o", "ndjson"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(json(&out)["id"].to_string(), id);

    let out = ok(&["products", "get", &id, "-o", "csv"]);
    let mut lines = out.lines();
    let header = lines.next().expect("a header");
    assert!(header.starts_with("id,"), "{out}");
    assert!(
        lines.next().expect("a row").starts_with(&format!("{id},")),
        "{out}"
    );

    let out = ok(&["products", "get", &id, "-o", "table"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("id ") && l.trim_end().ends_with(&id)),
        "field/value lines: {out}"
    );
    assert!(!out.trim_start().starts_with('{'), "{out}");
}

#[test]
fn api_follows_o_too_json_is_the_response_table_and_csv_its_records() {
    let out = ok(&["api", "GET", "/orders", "-f", "per_page=2", "-o", "csv"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two orders: {out}");
    assert!(lines[0].starts_with("id,"), "{out}");
    let out = ok(&["api", "GET", "/orders", "-f", "per_page=2", "-o", "table"]);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.trim_start().starts_with("id"), "{out}");
    let out = ok(&["api", "GET", "/orders", "-f", "per_page=2", "-o", "ndjson"]);
    assert_eq!(out.lines().count(), 1, "the response on one line: {out}");
    assert!(json(&out)["pagination"].is_object());
}

// ---------------------------------------------------------------------------------------------
// output failures

fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

#[test]
fn a_full_disk_on_standard_output_is_exit_1_for_every_kind_of_command() {
    let decode_input = tempfile::NamedTempFile::new().expect("a file");
    std::fs::write(decode_input.path(), "[]").expect("write");
    let decode_path = decode_input.path().to_str().expect("UTF-8").to_owned();
    for args in [
        vec!["--help"],
        vec!["completions", "bash"],
        vec!["decode", "list_product_quantities", &decode_path],
        vec!["--sandbox", "orders", "statuses", "-o", "json"],
        vec!["--sandbox", "products", "quantities", "--all", "-o", "csv"],
        vec!["--sandbox", "api", "GET", "/orders"],
    ] {
        let output = store_admin_process()
            .args(&args)
            .stdout(dev_full())
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_full_disk_on_standard_error_is_a_failure_and_no_panic() {
    // A message that cannot be written is a failure (1); a command that failed already keeps
    // its own code (3: the order does not exist).
    for (args, code) in [
        (vec!["--no-such-flag"], 1),
        (vec!["--sandbox", "orders", "get", "999999999"], 3),
    ] {
        let output = store_admin_process()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(dev_full())
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(code), "{args:?}");
    }
}

#[test]
fn a_reader_that_stops_reading_is_exit_0_quietly() {
    for args in [
        vec!["completions", "bash"],
        vec![
            "--sandbox",
            "products",
            "quantities",
            "--all",
            "-o",
            "ndjson",
        ],
    ] {
        let mut child = store_admin_process()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        // `| head -c 0`: the reader goes away at once.
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("ends");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

// ---------------------------------------------------------------------------------------------
// standard input, uploads

#[test]
fn two_options_reading_standard_input_are_a_usage_error_naming_both() {
    let (out, err) = run(
        sandbox(&[
            "brands", "create", "--name", "A", "--logo", "-", "--banner", "-",
        ]),
        2,
    );
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("--logo -") && err.contains("--banner -"),
        "{err}"
    );
    let (_, err) = run(
        sandbox(&["--token", "-", "categories", "create", "--body", "-"]),
        2,
    );
    assert!(
        err.contains("--token -") && err.contains("--body -"),
        "{err}"
    );
}

#[test]
fn an_empty_file_is_not_uploaded() {
    let dir = tempfile::tempdir().expect("a directory");
    let empty = dir.path().join("logo.png");
    std::fs::write(&empty, b"").expect("write");
    let (out, err) = run(
        sandbox(&[
            "brands",
            "create",
            "--name",
            "A",
            "--logo",
            empty.to_str().unwrap(),
        ]),
        2,
    );
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("logo.png is empty"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_too_large_is_told_so_whether_answered_413_or_cut_off() {
    let server = MockServer::start(MockConfig::new().token_all_scopes("T").limits(Limits {
        body_bytes: 4 * 1024,
        ..Limits::default()
    }))
    .await
    .expect("the mock starts");
    let dir = tempfile::tempdir().expect("a directory");
    let logo = dir.path().join("logo.png");
    std::fs::write(&logo, vec![7u8; 4 * 1024 * 1024]).expect("write");
    let mut command = store_admin();
    command.env("STORE_ADMIN_TOKEN", "T").args([
        "--base-url",
        server.base_url(),
        "--retries",
        "0",
        "brands",
        "create",
        "--name",
        "A",
        "--logo",
        logo.to_str().unwrap(),
    ]);
    let (_, err) = tokio::task::spawn_blocking(move || run(command, 3))
        .await
        .expect("joins");
    assert!(err.contains("too large"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// parser messages

#[test]
fn parser_faults_are_told_in_sentences() {
    let (_, err) = run(sandbox(&["--rate-limit", "0", "orders", "statuses"]), 2);
    assert!(err.contains("from 1") && !err.contains("non-zero"), "{err}");
    let (_, err) = run(sandbox(&["--timeout", "1e20", "orders", "statuses"]), 2);
    assert!(err.contains("too long"), "{err}");

    let mut command = sandbox(&["categories", "create", "--body", "-"]);
    command.write_stdin("");
    let (_, err) = run(command, 2);
    assert!(err.contains("standard input is empty"), "{err}");

    let mut command = sandbox(&["categories", "create", "--body", "-"]);
    command.write_stdin("{\"name\": ");
    let (_, err) = run(command, 2);
    assert!(
        err.contains("ends before") && err.contains("line 1"),
        "{err}"
    );
}

#[test]
fn what_people_write_is_read_as_meant_bom_and_spaces_after_commas() {
    let mut command = sandbox(&["categories", "create", "--body", "-", "-o", "json"]);
    command.write_stdin("\u{feff}{\"name\": \"Bags\"}");
    let (out, _) = run(command, 0);
    assert_eq!(json(&out)["name"], "Bags");

    let quoted = json(&ok(&["orders", "list", "--status", "1, 2", "-o", "json"]));
    let split = json(&ok(&[
        "orders", "list", "--status", "1,", "2", "-o", "json",
    ]));
    let plain = json(&ok(&["orders", "list", "--status", "1,2", "-o", "json"]));
    assert_eq!(quoted, plain);
    assert_eq!(split, plain);
}

// ---------------------------------------------------------------------------------------------
// decode

#[test]
fn decode_reads_the_clis_own_output_and_says_what_it_expected() {
    let dir = tempfile::tempdir().expect("a directory");
    let list = dir.path().join("list.json");
    std::fs::write(
        &list,
        ok(&["products", "quantities", "--per-page", "3", "-o", "json"]),
    )
    .expect("write");
    let (out, _) = run(
        {
            let mut c = store_admin();
            c.args(["decode", "list_product_quantities", list.to_str().unwrap()]);
            c
        },
        0,
    );
    assert!(out.starts_with("ok"), "{out}");
    let lines = dir.path().join("lines.ndjson");
    std::fs::write(
        &lines,
        ok(&["products", "quantities", "--per-page", "3", "-o", "ndjson"]),
    )
    .expect("write");
    let mut command = store_admin();
    command.args(["decode", "list_product_quantities", lines.to_str().unwrap()]);
    let (out, _) = run(command, 0);
    assert!(out.starts_with("ok"), "{out}");

    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, r#"[{"id": "not a number", "quantity": true}]"#).expect("write");
    let mut command = store_admin();
    command.args(["decode", "list_product_quantities", wrong.to_str().unwrap()]);
    let (out, _) = run(command, 1);
    assert!(
        out.contains("expected the response of list_product_quantities"),
        "{out}"
    );
}

#[test]
fn decode_drift_names_habits_and_undeclared_fields_by_path_and_never_a_value() {
    let dir = tempfile::tempdir().expect("a directory");
    let list = dir.path().join("list.json");
    std::fs::write(
        &list,
        ok(&["products", "quantities", "--per-page", "3", "-o", "json"]),
    )
    .expect("write");
    let mut rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&list).expect("read")).expect("JSON");
    for row in rows.as_array_mut().expect("a list") {
        let id = row["id"].as_i64().expect("an id");
        row["id"] = serde_json::Value::String(id.to_string());
        row["warehouse_code"] = serde_json::Value::String("secret-\u{1b}[31m-value".into());
    }
    let drifted = dir.path().join("drifted.json");
    std::fs::write(&drifted, rows.to_string()).expect("write");
    let mut command = store_admin();
    command.args([
        "decode",
        "list_product_quantities",
        "--drift",
        drifted.to_str().unwrap(),
    ]);
    let (out, _) = run(command, 0);
    let report = json(&out);
    let drift = &report["list_product_quantities"];
    assert_eq!(drift["decoded"], 1, "{out}");
    let ids = &drift["habits"]["a number sent as a string"]["paths"]["data[].id"];
    assert_eq!(ids["count"], 3, "{out}");
    assert_eq!(ids["types"], serde_json::json!(["string"]), "{out}");
    let field = &drift["unknown_fields"]["data[].warehouse_code"];
    assert_eq!(field["count"], 3, "{out}");
    assert!(!out.contains("secret") && !out.contains('\u{1b}'), "{out}");

    // A body that does not decode is exit 1 with its mismatch, as without --drift.
    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, r#"[{"id": "not a number"}]"#).expect("write");
    let mut command = store_admin();
    command.args([
        "decode",
        "list_product_quantities",
        "--drift",
        wrong.to_str().unwrap(),
    ]);
    run(command, 1);
}

#[test]
fn drift_of_a_directory_of_captures_is_one_report_by_operation_and_names_what_did_not_decode() {
    let dir = tempfile::tempdir().expect("a directory");
    let captures = dir.path().join("captures");
    let quantities = captures.join("list_product_quantities");
    std::fs::create_dir_all(&quantities).expect("mkdir");
    let page = ok(&["products", "quantities", "--per-page", "2", "-o", "json"]);
    let mut rows = json(&page);
    // One capture as it came, one with ids as strings and a field the document lacks (its value
    // hostile), one that does not decode.
    std::fs::write(quantities.join("1.json"), &page).expect("write");
    for row in rows.as_array_mut().expect("a list") {
        let id = row["id"].as_i64().expect("an id");
        row["id"] = serde_json::Value::String(id.to_string());
        row["warehouse_code"] = serde_json::Value::String("=cmd|' /C calc'!A0\u{1b}[31m".into());
    }
    std::fs::write(quantities.join("2.json"), rows.to_string()).expect("write");
    std::fs::write(
        captures.join("list_product_quantities.broken.json"),
        r#"[{"id": "not a number"}]"#,
    )
    .expect("write");
    std::fs::write(captures.join("notes.txt"), "not a capture").expect("write");
    let mut command = store_admin();
    command.args(["drift", captures.to_str().unwrap()]);
    let (out, err) = run(command, 1);
    let report = json(&out);
    let drift = &report["list_product_quantities"];
    assert_eq!(drift["calls"], 3, "{out}");
    assert_eq!(drift["decoded"], 2, "{out}");
    assert_eq!(drift["failed"], 1, "{out}");
    let ids = &drift["habits"]["a number sent as a string"]["paths"]["data[].id"];
    assert_eq!(ids["count"], 2, "{out}");
    assert_eq!(
        drift["unknown_fields"]["data[].warehouse_code"]["count"], 2,
        "{out}"
    );
    assert!(
        err.contains("list_product_quantities.broken.json")
            && err.contains("does not decode as list_product_quantities"),
        "{err}"
    );
    for text in [&out, &err] {
        assert!(!text.contains("calc") && !text.contains('\u{1b}'), "{text}");
    }

    // Every file decoding is exit 0; --operation names the operation of files named otherwise.
    let loose = dir.path().join("page.json");
    std::fs::write(&loose, &page).expect("write");
    let mut command = store_admin();
    command.args([
        "drift",
        "--operation",
        "list_product_quantities",
        loose.to_str().unwrap(),
    ]);
    let (out, _) = run(command, 0);
    assert_eq!(json(&out)["list_product_quantities"]["decoded"], 1, "{out}");

    // A file whose operation cannot be told is exit 2, named.
    let mut command = store_admin();
    command.args(["drift", loose.to_str().unwrap()]);
    let (_, err) = run(command, 2);
    assert!(
        err.contains("cannot tell which operation") && err.contains("page.json"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// 401

#[tokio::test(flavor = "multi_thread")]
async fn a_401_names_where_the_token_came_from() {
    let server = MockServer::start(MockConfig::new().token_all_scopes("good"))
        .await
        .expect("the mock starts");
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("token");
    std::fs::write(&file, "stale\n").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let base = server.base_url();
    let mut by_file = store_admin();
    by_file.args(["--base-url", base, "--token-file", file.to_str().unwrap()]);
    by_file.args(["orders", "statuses"]);
    let mut by_env = store_admin();
    by_env.env("STORE_ADMIN_TOKEN", "stale");
    by_env.args(["--base-url", base, "orders", "statuses"]);
    let (by_file, by_env) = tokio::task::spawn_blocking(move || (run(by_file, 3), run(by_env, 3)))
        .await
        .expect("joins");
    assert!(
        by_file.1.contains("the token came from --token-file"),
        "{}",
        by_file.1
    );
    assert!(
        by_env
            .1
            .contains("the token came from the variable STORE_ADMIN_TOKEN"),
        "{}",
        by_env.1
    );
    assert!(!by_env.1.contains("stale"), "never the token: {}", by_env.1);
}

/// The origin travels with the token (no state shared across the process): each way of giving
/// a token is named by the 401 it gets, and the sandbox's own token is named even when a token
/// for the service is set beside it.
#[tokio::test(flavor = "multi_thread")]
async fn a_401_names_each_origin_of_the_token() {
    let server = MockServer::start(MockConfig::new().token_all_scopes("good"))
        .await
        .expect("the mock starts");
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("profile.token");
    std::fs::write(&file, "stale\n").expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let base = server.base_url().to_string();
    let config = format!(
        "[profiles.by_file]\nbase_url = \"{base}\"\ntoken_file = \"{}\"\n\
         [profiles.by_env]\nbase_url = \"{base}\"\ntoken_env = \"SHOP_TOKEN\"\n",
        file.display()
    );
    let mut flag = store_admin();
    flag.args([
        "--base-url",
        &base,
        "--token",
        "stale",
        "orders",
        "statuses",
    ]);
    let mut stdin = store_admin();
    stdin
        .args(["--base-url", &base, "--token", "-", "orders", "statuses"])
        .write_stdin("stale\n");
    let profile_file = with_config(
        &dir,
        &config,
        &["--profile", "by_file", "orders", "statuses"],
    );
    let mut profile_env = with_config(
        &dir,
        &config,
        &["--profile", "by_env", "orders", "statuses"],
    );
    profile_env.env("SHOP_TOKEN", "stale");
    // The sandbox sends its own token, never the user's: the 401 (a missing scope) says so.
    let mut sandboxed = store_admin();
    sandboxed.env("STORE_ADMIN_TOKEN", "stale").args([
        "--sandbox-scopes",
        "products.read",
        "orders",
        "list",
    ]);
    let expected = [
        "the token came from --token\n",
        "the token came from --token - (standard input)",
        &format!(
            "the token came from the profile's token_file {}",
            file.display()
        ),
        "the token came from the profile's token_env $SHOP_TOKEN",
        "the token came from the sandbox's own token",
    ];
    let commands = vec![flag, stdin, profile_file, profile_env, sandboxed];
    let outputs = tokio::task::spawn_blocking(move || {
        commands
            .into_iter()
            .map(|command| run(command, 3))
            .collect::<Vec<_>>()
    })
    .await
    .expect("joins");
    for ((_, err), expected) in outputs.iter().zip(expected) {
        let err = format!("{err}\n");
        assert_eq!(err.matches("the token came from").count(), 1, "{err}");
        assert!(err.contains(expected), "{expected:?} in:\n{err}");
        assert!(!err.contains("stale"), "never the token: {err}");
    }
}

// ---------------------------------------------------------------------------------------------
// profiles, tokens, secrets

fn with_config(dir: &tempfile::TempDir, text: &str, args: &[&str]) -> assert_cmd::Command {
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).expect("write");
    let mut command = store_admin();
    command.env("STORE_ADMIN_CONFIG", &path).args(args);
    command
}

#[test]
fn a_bad_profile_or_a_missing_default_breaks_no_other_profile_nor_the_sandbox() {
    let dir = tempfile::tempdir().expect("a directory");
    let config = "default_profile = \"gone\"\n\
        [profiles.broken]\ntoken = \"s3cr3t-in-a-profile\"\n\
        [profiles.play]\nsandbox = true\noutput = \"ndjson\"\n";
    let (out, _) = run(
        with_config(&dir, config, &["--profile", "play", "orders", "statuses"]),
        0,
    );
    assert!(
        out.lines().count() > 1 && out.starts_with('{'),
        "ndjson: {out}"
    );
    let (_, err) = run(
        with_config(&dir, config, &["--sandbox", "orders", "statuses"]),
        0,
    );
    assert!(err.contains("warning") && err.contains("\"gone\""), "{err}");
    let (_, err) = run(with_config(&dir, config, &["orders", "statuses"]), 2);
    assert!(err.contains("default_profile \"gone\""), "{err}");
    let (_, err) = run(
        with_config(&dir, config, &["--profile", "broken", "orders", "statuses"]),
        2,
    );
    assert!(
        err.contains("profile \"broken\"") && err.contains("token"),
        "{err}"
    );
    assert!(!err.contains("s3cr3t-in-a-profile"), "{err}");
}

#[cfg(unix)]
#[test]
fn auth_logout_removes_a_corrupt_token_file_and_warns_of_a_readable_one() {
    use std::os::unix::fs::PermissionsExt;
    let state = tempfile::tempdir().expect("a directory");
    let status = |args: &[&str]| {
        let mut command = sandbox(args);
        command.env("XDG_STATE_HOME", state.path());
        command
    };
    let (out, _) = run(status(&["auth", "status", "-o", "table"]), 1);
    let path = out
        .lines()
        .find_map(|l| l.strip_prefix("token store: "))
        .expect("the token store's path")
        .trim()
        .to_owned();
    std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).expect("mkdir");
    std::fs::write(&path, "{ not json").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (out, err) = run(status(&["auth", "logout"]), 0);
    assert!(out.contains("logged out"), "{out}");
    assert!(err.contains("can be read by other users"), "{err}");
    assert!(
        !std::path::Path::new(&path).exists(),
        "the corrupt file is gone"
    );
}

#[test]
fn a_webhook_secret_on_the_command_line_is_refused_and_never_repeated() {
    for args in [
        vec![
            "webhooks",
            "verify",
            "--secret",
            "wh-cmdline-secret",
            "--body",
            "-",
        ],
        vec![
            "--sandbox",
            "webhooks",
            "subscribe",
            "--name",
            "n",
            "--event",
            "order.created",
            "--url",
            "https://hooks.example/x",
            "--secret",
            "wh-cmdline-secret",
        ],
    ] {
        let mut command = store_admin();
        command.args(&args).write_stdin("{}");
        let (out, err) = run(command, 2);
        assert!(err.contains("--secret-file"), "{args:?}: {err}");
        assert!(!err.contains("wh-cmdline-secret") && !out.contains("wh-cmdline-secret"));
    }
}

#[test]
fn a_webhook_secret_file_is_read_like_the_variable() {
    let dir = tempfile::tempdir().expect("a directory");
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "whsec-file\n").expect("write");
    let body = br#"{"event":"order.created","merchant":1,"created_at":"2024-01-01","data":{}}"#;
    let signature = store_admin::webhooks::sign(&secrecy::SecretString::from("whsec-file"), body);
    let body_path = dir.path().join("body.json");
    std::fs::write(&body_path, body).expect("write");
    let mut command = store_admin();
    command.args([
        "webhooks",
        "verify",
        "--secret-file",
        secret.to_str().unwrap(),
        "-H",
        "X-Salla-Security-Strategy: Signature",
        "-H",
        &format!("X-Salla-Signature: {signature}"),
        "--body",
        body_path.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let (out, _) = run(command, 0);
    assert_eq!(json(&out)["valid"], true, "{out}");
}

// ---------------------------------------------------------------------------------------------
// api paths

#[test]
fn api_refuses_a_path_that_leaves_the_base_url_before_sending_anything() {
    for path in [
        "/../../oauth2/token",
        "/%2e%2e/%2e%2e/oauth2/token",
        "/orders/..%2f..%2f../oauth2/token",
    ] {
        let (out, err) = run(sandbox(&["api", "GET", path]), 2);
        assert!(out.is_empty(), "{path}: {out}");
        assert!(err.contains("not under the base URL"), "{path}: {err}");
    }
    let out = ok(&["api", "GET", "/shipments/../orders/statuses", "-o", "json"]);
    assert!(json(&out)["data"].is_array(), "{out}");
    let (_, err) = run(
        sandbox(&["api", "POST", "/categories", "--allow-unknown-fields"]),
        2,
    );
    assert!(err.contains("--allow-unknown-fields"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// redirects

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_to_another_host_is_refused_and_named() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let port = listener.local_addr().expect("an address").port();
    let app = axum::Router::new().fallback(move || async move {
        (
            axum::http::StatusCode::FOUND,
            [(
                axum::http::header::LOCATION,
                format!("http://localhost:{port}/stolen"),
            )],
        )
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut command = store_admin();
    command.env("STORE_ADMIN_TOKEN", "T").args([
        "--base-url",
        &format!("http://127.0.0.1:{port}/admin/v2"),
        "--retries",
        "0",
        "orders",
        "statuses",
    ]);
    let output = tokio::task::spawn_blocking(move || command.output().expect("runs"))
        .await
        .expect("joins");
    let err = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("redirected to another host"), "{err}");
    assert!(err.contains("http://localhost:"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// webhooks listen: connections that send no head in time are closed

#[test]
fn webhooks_listen_closes_half_open_connections() {
    use std::io::{BufRead, BufReader, Read};
    use std::time::{Duration, Instant};
    let mut child = store_admin_process()
        .env("STORE_ADMIN_WEBHOOK_SECRET", "whsec-listen")
        .args(["webhooks", "listen", "--port", "0", "--header-timeout", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("the listening line");
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .expect("an address")
        .to_owned();
    let mut connections = Vec::new();
    for i in 0..20 {
        let mut stream = std::net::TcpStream::connect(&address).expect("connects");
        if i % 2 == 0 {
            stream
                .write_all(b"POST /hook HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .expect("writes");
        }
        connections.push(stream);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    for stream in &mut connections {
        let left = deadline.saturating_duration_since(Instant::now());
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .expect("a timeout");
        let mut buffer = [0u8; 512];
        let closed = loop {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) if Instant::now() < deadline => break true,
                Ok(0) | Err(_) => break false,
                Ok(_) => continue,
            }
        };
        assert!(closed, "a connection was still open after 20 s");
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_answer_larger_than_max_response_size_is_exit_1_naming_the_flag() {
    let (stdout, stderr) = run(
        sandbox(&[
            "--max-response-size",
            "1KiB",
            "products",
            "list",
            "--per-page",
            "20",
            "-o",
            "json",
        ]),
        1,
    );
    assert!(stdout.is_empty(), "nothing half-written: {stdout}");
    assert!(
        stderr.contains("larger than 1024 bytes") && stderr.contains("--max-response-size"),
        "{stderr}"
    );
    // Sizes are read as people write them; a unit that is not one is a usage error.
    let out = ok(&[
        "--max-response-size",
        "2 MiB",
        "products",
        "list",
        "-o",
        "json",
    ]);
    assert!(json(&out).as_array().is_some_and(|rows| !rows.is_empty()));
    let (_, stderr) = run(
        sandbox(&["--max-response-size", "12 parsecs", "products", "list"]),
        2,
    );
    assert!(stderr.contains("is not a unit"), "{stderr}");
}
