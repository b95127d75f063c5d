//! The configuration file's profiles, the token sources that keep secrets off the command line,
//! shell completions, and `decode`.

use std::path::Path;

use store_admin_mock::{DEFAULT_TOKEN, MockConfig, MockServer};

use crate::common::{json, run, store_admin};

/// `store-admin` reading its configuration from `dir` (as `$XDG_CONFIG_HOME`).
fn with_config(dir: &Path, config: &str) -> assert_cmd::Command {
    let app = dir.join("store-admin");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("config.toml"), config).unwrap();
    let mut cmd = store_admin();
    cmd.env("XDG_CONFIG_HOME", dir);
    cmd
}

fn secret_file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

#[test]
fn a_profile_gives_the_sandbox_and_the_output_format() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = with_config(
        dir.path(),
        "[profiles.play]\nsandbox = true\noutput = \"ndjson\"\n",
    );
    cmd.args(["--profile", "play", "orders", "list", "--per-page", "3"]);
    let (out, _) = run(cmd, 0);
    assert_eq!(out.lines().count(), 3, "{out}");
    for line in out.lines() {
        json(line);
    }
}

#[test]
fn flags_and_environment_beat_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let config =
        "default_profile = \"play\"\n[profiles.play]\nsandbox = true\noutput = \"ndjson\"\n";
    let mut cmd = with_config(dir.path(), config);
    cmd.args(["orders", "list", "--per-page", "2", "-o", "json"]);
    let (out, _) = run(cmd, 0);
    assert_eq!(json(&out).as_array().map(Vec::len), Some(2), "{out}");
}

#[tokio::test]
async fn a_profile_reads_the_base_url_and_the_token_from_a_file() {
    let mock = MockServer::start(MockConfig::new()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let token = secret_file(dir.path(), "live.token", &format!("{DEFAULT_TOKEN}\n"));
    let config = format!(
        "[profiles.live]\nbase_url = \"{}\"\ntoken_file = \"{}\"\n",
        mock.base_url(),
        token.display()
    );
    let mut cmd = with_config(dir.path(), &config);
    cmd.args(["--profile", "live", "orders", "statuses", "-o", "json"]);
    let (out, err) = tokio::task::spawn_blocking(move || run(cmd, 0))
        .await
        .unwrap();
    assert!(
        json(&out).as_array().is_some_and(|a| !a.is_empty()),
        "{out}"
    );
    assert!(!out.contains(DEFAULT_TOKEN) && !err.contains(DEFAULT_TOKEN));
}

#[tokio::test]
async fn the_token_can_come_from_standard_input_or_a_file() {
    let mock = MockServer::start(MockConfig::new()).await.unwrap();
    let base = mock.base_url().to_string();
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(dir.path(), "t", DEFAULT_TOKEN);
    let outputs = tokio::task::spawn_blocking(move || {
        let mut stdin = store_admin();
        stdin
            .args([
                "--base-url",
                &base,
                "--token",
                "-",
                "orders",
                "statuses",
                "-o",
                "json",
            ])
            .write_stdin(format!("{DEFAULT_TOKEN}\n"));
        let mut from_file = store_admin();
        from_file
            .args(["--base-url", &base, "--token-file"])
            .arg(&file)
            .args(["orders", "statuses", "-o", "json"]);
        let mut missing = store_admin();
        missing.args([
            "--base-url",
            &base,
            "--token-file",
            "/nonexistent/token",
            "orders",
            "statuses",
        ]);
        (run(stdin, 0), run(from_file, 0), run(missing, 2))
    })
    .await
    .unwrap();
    assert!(json(&outputs.0.0).is_array());
    assert!(json(&outputs.1.0).is_array());
    assert!(
        outputs.2.1.contains("--token-file /nonexistent/token"),
        "{}",
        outputs.2.1
    );
}

#[test]
fn an_unknown_profile_or_a_bad_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = with_config(dir.path(), "[profiles.a]\nsandbox = true\n");
    cmd.args(["--profile", "b", "orders", "list"]);
    let (_, err) = run(cmd, 2);
    assert!(
        err.contains("no profile \"b\"") && err.contains("profiles: a"),
        "{err}"
    );
    let mut cmd = with_config(
        dir.path(),
        "[profiles.a]\ntoken = \"inline secrets are refused\"\n",
    );
    cmd.args(["--profile", "a", "orders", "list"]);
    let (_, err) = run(cmd, 2);
    assert!(
        err.contains("profile \"a\"") && err.contains("is not valid") && err.contains("token"),
        "{err}"
    );
    assert!(!err.contains("inline secrets are refused"), "{err}");
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let mut cmd = store_admin();
        cmd.args(["completions", shell]);
        let (out, _) = run(cmd, 0);
        assert!(out.contains("store-admin"), "{shell}");
        // A registration of the binary as the completer (tests/completion.rs drives it).
        assert!(out.len() < 4096, "{shell}: {} bytes", out.len());
    }
}

// ---------------------------------------------------------------------------------------------
// decode

fn decode(args: &[&str], stdin: Option<&str>, code: i32) -> String {
    let mut cmd = store_admin();
    cmd.arg("decode").args(args);
    if let Some(text) = stdin {
        cmd.write_stdin(text.to_string());
    }
    run(cmd, code).0
}

#[test]
fn decode_says_ok_for_a_body_of_the_documents_type() {
    let body = r#"{"status":200,"success":true,"data":[{"id":1,"name":"Paid","slug":"completed","type":"original","sort":1,"message":"","icon":"","is_active":true,"parent":null,"original":null}]}"#;
    let out = decode(&["list_order_statuses", "-"], Some(body), 0);
    assert_eq!(out.trim(), "ok");
    // The same operation by method and path.
    let out = decode(&["GET /orders/statuses", "-"], Some(body), 0);
    assert_eq!(out.trim(), "ok");
}

#[test]
fn decode_names_the_json_path_of_the_first_mismatch_and_exits_1() {
    let body = r#"{"status":200,"success":true,"data":[{"id":1,"name":"A","slug":"a"},{"id":"one","name":"B","slug":"b"}]}"#;
    let out = decode(&["GET /orders/statuses", "-"], Some(body), 1);
    assert!(
        out.starts_with("data[1].id: invalid number in a string: \"one\""),
        "{out}"
    );
}

#[test]
fn decode_finds_a_path_whatever_its_parameter_names() {
    // The document names the parameter `{shipment_id}`: the answer is still read as get_shipment's.
    let body = r#"{"status":200,"success":true,"data":{"id":{"a":1}}}"#;
    let out = decode(&["GET /shipments/{id}", "-"], Some(body), 1);
    assert!(out.starts_with("data.id: invalid type: map"), "{out}");
    assert!(out.contains("the response of get_shipment"), "{out}");
}

#[test]
fn decode_reads_error_bodies_and_request_bodies() {
    let error = r#"{"status":404,"success":false,"error":{"code":404,"message":"not found"}}"#;
    assert_eq!(
        decode(&["get_order", "--status", "404", "-"], Some(error), 0).trim(),
        "ok"
    );
    let request = r#"{"locales":[{"iso_code":"fr"}]}"#;
    assert_eq!(
        decode(&["add_languages", "--request", "-"], Some(request), 0).trim(),
        "ok"
    );
    let out = decode(
        &["add_languages", "--request", "-"],
        Some(r#"{"locales":[{"iso_code":{"code":"fr"}}]}"#),
        1,
    );
    assert!(
        out.starts_with("locales[0].iso_code: invalid type"),
        "{out}"
    );
    let mut cmd = store_admin();
    cmd.args(["decode", "list_orders", "--request", "-"])
        .write_stdin("{}");
    run(cmd, 2);
}

#[test]
fn decode_of_an_unknown_operation_exits_2() {
    let mut cmd = store_admin();
    cmd.args(["decode", "no_such_operation", "-"])
        .write_stdin("{}");
    let (_, err) = run(cmd, 2);
    assert!(err.contains("no operation"), "{err}");
    let mut cmd = store_admin();
    cmd.args(["decode", "GET /nowhere/{id}", "-"])
        .write_stdin("{}");
    run(cmd, 2);
}
