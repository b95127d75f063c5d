//! Small promises of issue 37 and 41, each with a real process: an oversized
//! `--max-response-size` says it is too large; a closed standard output exits 1; one unreadable
//! token record does not hide the other stores from `auth status --all`; the commands that work
//! offline need no token, whatever the default profile says; `orders duplicate` takes the order
//! id as its argument, as every other command of one record does.

use std::path::Path;

use crate::common::{json, ok, run, sandbox, store_admin, store_admin_process};

#[test]
fn a_max_response_size_beyond_u64_is_too_large_not_too_small() {
    for size in [
        "18446744073709551616",
        "99999999999999999999999",
        "17179869184GiB",
    ] {
        let mut command = store_admin();
        command.args([
            "--sandbox",
            "--max-response-size",
            size,
            "orders",
            "statuses",
        ]);
        let (_, err) = run(command, 2);
        assert!(err.contains("too large"), "{size}: {err}");
        assert!(!err.contains("at least 1 KiB"), "{size}: {err}");
    }
    for size in ["1023", "0", "1B"] {
        let mut command = store_admin();
        command.args([
            "--sandbox",
            "--max-response-size",
            size,
            "orders",
            "statuses",
        ]);
        let (_, err) = run(command, 2);
        assert!(err.contains("at least 1 KiB"), "{size}: {err}");
    }
    let mut command = store_admin();
    command.args([
        "--sandbox",
        "--max-response-size",
        "18446744073709551615",
        "orders",
        "statuses",
        "-o",
        "json",
    ]);
    run(command, 0);
}

/// Runs `store-admin ARGS` from a shell with `redirect` applied to it (`>&-`), and returns its
/// exit code and standard error.
#[cfg(unix)]
fn from_shell(redirect: &str, args: &[&str]) -> (i32, String) {
    let program = store_admin_process().get_program().to_owned();
    let mut shell = std::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(format!("\"$0\" \"$@\" {redirect}"))
        .arg(program)
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent/store-admin-tests")
        .env("XDG_STATE_HOME", "/nonexistent/store-admin-tests-state")
        .env("STORE_ADMIN_SANDBOX_STATE", "none")
        .env_remove("STORE_ADMIN_TOKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = shell.output().expect("sh runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_exits_1_and_dev_null_does_not() {
    let (code, err) = from_shell(">&-", &["completions", "bash"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("standard output is closed"), "{err}");
    let (code, err) = from_shell(">&-", &["--sandbox", "orders", "statuses"]);
    assert_eq!(code, 1, "{err}");
    // Standard output on /dev/null is open: the command runs.
    let (code, err) = from_shell(">/dev/null", &["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = from_shell("1<>/dev/null", &["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    // A closed standard error: nothing can be told, exit 1 all the same.
    let (code, _) = from_shell("2>&-", &["completions", "bash"]);
    assert_eq!(code, 1);
}

/// The token file folder of the token URL `http://127.0.0.1:9/oauth2/token` under `state`.
fn token_dir(state: &Path) -> std::path::PathBuf {
    state.join("store-admin/tokens/127.0.0.1_9")
}

#[test]
fn one_unreadable_token_record_does_not_hide_the_other_stores() {
    let state = tempfile::tempdir().unwrap();
    for store in ["first", "third"] {
        let mut import = store_admin();
        import
            .env("XDG_STATE_HOME", state.path())
            .args(["--token-url", "http://127.0.0.1:9/oauth2/token"])
            .args(["--store", store, "auth", "import", "--refresh-token", "-"])
            .write_stdin("hardening-refresh-token\n");
        run(import, 0);
    }
    let dir = token_dir(state.path());
    std::fs::write(dir.join("second.json"), "{ not json at all").unwrap();
    let status = |format: &str| {
        let mut command = store_admin();
        command
            .env("XDG_STATE_HOME", state.path())
            .args(["--token-url", "http://127.0.0.1:9/oauth2/token"])
            .args(["auth", "status", "--all", "-o", format]);
        command
    };
    let (out, err) = run(status("json"), 1);
    let lines = json(&out);
    let lines = lines.as_array().expect("a list");
    let stores: Vec<&str> = lines.iter().map(|l| l["store"].as_str().unwrap()).collect();
    assert_eq!(stores, ["first", "second", "third"], "{out}\n{err}");
    assert_eq!(lines[1]["state"], "unreadable", "{out}");
    assert_eq!(lines[1]["needs_attention"], true, "{out}");
    assert!(
        lines[1]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{out}"
    );
    assert_ne!(lines[0]["state"], "unreadable", "{out}");
    assert!(!out.contains("hardening-refresh-token"), "{out}");
    let (out, _) = run(status("table"), 1);
    assert!(
        out.contains("second\tunreadable (needs attention)"),
        "{out}"
    );
    assert!(out.contains("first\t"), "{out}");
}

#[test]
fn offline_commands_need_no_token_whatever_the_default_profile_says() {
    let config = tempfile::tempdir().unwrap();
    let app = config.path().join("store-admin");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("config.toml"),
        "default_profile = \"live\"\n[profiles.live]\ntoken_env = \"HARDENING_UNSET_TOKEN\"\n",
    )
    .unwrap();
    let offline = |args: &[&str]| {
        let mut command = store_admin();
        command
            .env("XDG_CONFIG_HOME", config.path())
            .env_remove("HARDENING_UNSET_TOKEN")
            .args(args);
        command
    };
    let (out, _) = run(offline(&["completions", "bash"]), 0);
    assert!(out.contains("store-admin"), "{out}");
    let (out, _) = run(offline(&["--help"]), 0);
    assert!(out.contains("Usage"), "{out}");
    let mut decode = offline(&["decode", "list_order_statuses", "-"]);
    decode.write_stdin(r#"{"status":200,"success":true,"data":[]}"#);
    let (out, _) = run(decode, 0);
    assert_eq!(out.trim(), "ok");
    // A command that calls the service still says the token is missing.
    let (_, err) = run(offline(&["orders", "statuses"]), 2);
    assert!(err.contains("HARDENING_UNSET_TOKEN"), "{err}");
}

/// `orders duplicate ORDER_ID` as `orders get ORDER_ID`: the id the operation takes in its body is
/// the command's argument (a rule of the generator: the group's other commands take `order_id` in
/// their path). The flag of earlier versions still works; both at once, or neither, is exit 2.
#[test]
fn orders_duplicate_takes_the_order_id_as_its_argument() {
    let orders = json(&ok(&["orders", "list", "-o", "json"]));
    let id = orders[0]["id"].to_string();
    let copy = json(&ok(&["orders", "duplicate", &id, "-o", "json"]));
    assert!(copy["id"].is_number(), "{copy}");
    assert_ne!(copy["id"].to_string(), id, "a new order: {copy}");
    // The same order's customer, as the operation promises.
    let original = json(&ok(&["orders", "get", &id, "-o", "json"]));
    assert_eq!(copy["customer"]["id"], original["customer"]["id"], "{copy}");

    let by_flag = json(&ok(&[
        "orders",
        "duplicate",
        "--order-id",
        &id,
        "-o",
        "json",
    ]));
    assert!(by_flag["id"].is_number(), "{by_flag}");

    let (_, both) = run(sandbox(&["orders", "duplicate", &id, "--order-id", &id]), 2);
    assert!(both.contains("cannot be used with"), "{both}");
    let (_, neither) = run(sandbox(&["orders", "duplicate"]), 2);
    assert!(
        neither.contains("`order_id` (ORDER_ID") && !neither.contains("--order-id"),
        "{neither}"
    );
    let (_, bad) = run(sandbox(&["orders", "duplicate", "first"]), 2);
    assert!(
        bad.contains("invalid value 'first' for '[ORDER_ID]'") && bad.contains("whole number"),
        "{bad}"
    );
    let (help, _) = run(sandbox(&["orders", "duplicate", "--help"]), 0);
    assert!(help.contains("[ORDER_ID]"), "{help}");
    assert!(
        !help.contains("--order-id"),
        "the old flag is hidden: {help}"
    );
}
