//! Shared helpers of the CLI's integration tests.

#![allow(dead_code)]

use assert_cmd::Command;

/// The environment variables a test never inherits: the developer's own settings, and a
/// desktop a browser could open on.
const CLEARED: &[&str] = &[
    "STORE_ADMIN_TOKEN",
    "STORE_ADMIN_BASE_URL",
    "STORE_ADMIN_WEBHOOK_SECRET",
    "RUST_LOG",
    "STORE_ADMIN_PROFILE",
    "STORE_ADMIN_CONFIG",
    "STORE_ADMIN_STORE",
    "STORE_ADMIN_TOKEN_STORE",
    "STORE_ADMIN_RATE_LIMIT_STORE",
    "STORE_ADMIN_CLIENT_ID",
    "STORE_ADMIN_CLIENT_SECRET",
    "STORE_ADMIN_TOKEN_URL",
    "STORE_ADMIN_LANGUAGE",
    "STORE_ADMIN_TOKEN_KEYS",
    "STORE_ADMIN_TOKEN_KEYS_FILE",
    "STORE_ADMIN_WEBHOOK_REDIS",
    "STORE_ADMIN_SANDBOX_WAIT",
    // The locale chooses the language of the service's messages (English for an English one):
    // a test sets it when it is what the test is about.
    "LC_ALL",
    "LC_MESSAGES",
    "LANG",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "BROWSER",
    // A table fits the terminal's width: a test sets it when it is what the test is about.
    "COLUMNS",
];

/// `store-admin` with none of its environment variables set, so that the developer's own token
/// or base URL never leaks into a test.
pub fn store_admin() -> Command {
    let mut command = Command::cargo_bin("store-admin").expect("the store-admin binary is built");
    for name in CLEARED {
        command.env_remove(name);
    }
    // Never the developer's own configuration file or stored tokens.
    command.env("XDG_CONFIG_HOME", "/nonexistent/store-admin-tests");
    command.env("XDG_STATE_HOME", "/nonexistent/store-admin-tests-state");
    // A fresh sandbox store for every command (tests/kept_sandbox.rs keeps one).
    command.env("STORE_ADMIN_SANDBOX_STATE", "none");
    command
}

/// `store-admin --sandbox ARGS...`
pub fn sandbox(args: &[&str]) -> Command {
    let mut command = store_admin();
    command.arg("--sandbox").args(args);
    command
}

/// Runs `command`, asserts its exit code, and returns standard output and standard error.
pub fn run(mut command: Command, code: i32) -> (String, String) {
    let output = command.output().expect("store-admin runs");
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    assert_eq!(
        output.status.code(),
        Some(code),
        "exit code\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    (stdout, stderr)
}

/// Runs `store-admin --sandbox ARGS...`, expects success, returns standard output.
pub fn ok(args: &[&str]) -> String {
    let (stdout, stderr) = run(sandbox(args), 0);
    assert!(stderr.is_empty(), "unexpected stderr: {stderr}");
    stdout
}

/// Parses JSON output.
pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// `store-admin` as a plain process (to read its output while it runs), with the same
/// environment as [`store_admin`].
pub fn store_admin_process() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_store-admin"));
    for name in CLEARED {
        command.env_remove(name);
    }
    command.env("XDG_CONFIG_HOME", "/nonexistent/store-admin-tests");
    command.env("XDG_STATE_HOME", "/nonexistent/store-admin-tests-state");
    command.env("STORE_ADMIN_SANDBOX_STATE", "none");
    command
}

pub mod fleet;
