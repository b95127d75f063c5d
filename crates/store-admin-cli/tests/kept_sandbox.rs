//! The sandbox keeps its store between commands (issue 40): a product created by one `--sandbox`
//! command is found by the next, in a file under the state directory that the first write names
//! on standard error; `sandbox reset` starts over; commands run side by side each see a whole
//! store, or are told it is busy, and never leave a torn file.

use std::path::Path;
use std::process::Stdio;

use crate::common::{json, run, store_admin, store_admin_process};

/// `store-admin --sandbox ARGS` keeping its store under `state` (`XDG_STATE_HOME`).
fn kept(state: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut command = store_admin();
    command
        .env("XDG_STATE_HOME", state)
        .env_remove("STORE_ADMIN_SANDBOX_STATE")
        .arg("--sandbox")
        .args(args);
    command
}

fn store_file(state: &Path) -> std::path::PathBuf {
    state
        .join("store-admin")
        .join("sandbox")
        .join("default.json")
}

fn create_product(state: &Path, name: &str) -> (String, String) {
    let (stdout, stderr) = run(
        kept(
            state,
            &[
                "products",
                "create",
                "--name",
                name,
                "--price",
                "20",
                "--product-type",
                "product",
                "-o",
                "json",
            ],
        ),
        0,
    );
    let created = json(&stdout);
    let id = match &created["id"] {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => panic!("no id in {created}: {other}"),
    };
    (id, stderr)
}

#[test]
fn a_created_product_is_found_by_the_next_command_until_the_store_is_reset() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let (id, stderr) = create_product(state.path(), "Kept between commands");
    let file = store_file(state.path());
    assert!(file.is_file(), "the store is kept in {}", file.display());
    assert!(
        stderr.contains(&file.display().to_string()) && stderr.contains("sandbox reset"),
        "the first write says where the store lives and how to start over: {stderr}"
    );

    let (stdout, stderr) = run(
        kept(state.path(), &["products", "get", &id, "-o", "json"]),
        0,
    );
    assert_eq!(json(&stdout)["name"], "Kept between commands", "{stdout}");
    assert!(stderr.is_empty(), "said once only: {stderr}");

    // A second write says nothing more.
    let (_, stderr) = create_product(state.path(), "Another");
    assert!(stderr.is_empty(), "said once only: {stderr}");

    let (_, stderr) = run(kept(state.path(), &["sandbox", "reset"]), 0);
    assert!(stderr.contains("deleted"), "{stderr}");
    assert!(!file.exists());
    run(
        kept(state.path(), &["products", "get", &id, "-o", "json"]),
        3,
    );

    // Kept nowhere: each command has a fresh store, and nothing is written.
    let mut fresh = store_admin();
    fresh.env("XDG_STATE_HOME", state.path()).args([
        "--sandbox",
        "products",
        "create",
        "--name",
        "Gone",
        "--price",
        "5",
        "--product-type",
        "product",
    ]);
    let (_, stderr) = run(fresh, 0);
    assert!(stderr.is_empty(), "{stderr}");
    assert!(!file.exists());
}

#[test]
fn commands_run_side_by_side_each_see_a_whole_store_or_are_told_it_is_busy() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let (first, _) = create_product(state.path(), "First");
    // Four writers at once: each waits for the store or is told it is busy; none is lost half.
    let children: Vec<_> = (0..4)
        .map(|i| {
            store_admin_process()
                .env("XDG_STATE_HOME", state.path())
                .env_remove("STORE_ADMIN_SANDBOX_STATE")
                .args([
                    "--sandbox",
                    "products",
                    "create",
                    "--name",
                    &format!("Side by side {i}"),
                    "--price",
                    "7",
                    "--product-type",
                    "product",
                    "-o",
                    "json",
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("store-admin starts")
        })
        .collect();
    let mut created = vec![first];
    for child in children {
        let output = child.wait_with_output().expect("store-admin ends");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            let answer = json(&String::from_utf8_lossy(&output.stdout));
            created.push(answer["id"].to_string());
        } else {
            assert!(stderr.contains("busy"), "{stderr}");
        }
    }
    let bytes = std::fs::read(store_file(state.path())).expect("the store file");
    assert!(
        serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
        "the store file is whole JSON"
    );
    for id in &created {
        run(
            kept(state.path(), &["products", "get", id, "-o", "json"]),
            0,
        );
    }

    // A command that finds the store locked by another is told so, naming it.
    let lock = std::fs::File::open(store_file(state.path()).with_file_name("default.json.lock"))
        .expect("the lock file");
    fs4::FileExt::lock(&lock).expect("locked");
    let mut waiting = kept(state.path(), &["products", "get", &created[0]]);
    waiting.env("STORE_ADMIN_SANDBOX_WAIT", "0");
    let (_, stderr) = run(waiting, 1);
    assert!(stderr.contains("busy"), "{stderr}");
    fs4::FileExt::unlock(&lock).expect("unlocked");
    run(kept(state.path(), &["products", "get", &created[0]]), 0);
}

#[test]
fn a_torn_store_file_is_refused_with_how_to_start_over() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let file = store_file(state.path());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, b"{\"format\": 1, \"seed\"").unwrap();
    let (_, stderr) = run(kept(state.path(), &["orders", "list"]), 1);
    assert!(stderr.contains("sandbox reset"), "{stderr}");
    run(kept(state.path(), &["sandbox", "reset"]), 0);
    run(kept(state.path(), &["orders", "list"]), 0);
}
