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
    (id_of(&json(&stdout)), stderr)
}

/// The id of a created record, as the command line takes it.
fn id_of(created: &serde_json::Value) -> String {
    match &created["id"] {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => panic!("no id in {created}: {other}"),
    }
}

/// The files of the sandbox's folder (no temporary file is left behind).
fn files_beside(state: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(store_file(state).parent().unwrap())
        .expect("the sandbox's folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_created_product_is_found_by_the_next_command_until_the_store_is_reset() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let file = store_file(state.path());
    // A command that changes nothing keeps nothing, and says nothing.
    let (_, stderr) = run(kept(state.path(), &["orders", "list", "-o", "json"]), 0);
    assert!(!file.exists(), "nothing changed, nothing kept");
    assert!(stderr.is_empty(), "{stderr}");

    let (id, stderr) = create_product(state.path(), "Kept between commands");
    assert!(file.is_file(), "the store is kept in {}", file.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the store is its owner's only: {mode:o}");
    }
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

    // After a reset, the first write says again where the store lives.
    let (_, stderr) = create_product(state.path(), "After the reset");
    assert!(stderr.contains("sandbox reset"), "{stderr}");
    assert_eq!(
        files_beside(state.path()),
        ["default.json", "default.json.lock"]
    );
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
            created.push(id_of(&answer));
        } else {
            assert_eq!(output.status.code(), Some(1), "{stderr}");
            assert!(
                stderr.contains("busy") && stderr.contains("default.json"),
                "{stderr}"
            );
        }
    }
    let bytes = std::fs::read(store_file(state.path())).expect("the store file");
    assert!(
        serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
        "the store file is whole JSON"
    );
    assert_eq!(
        files_beside(state.path()),
        ["default.json", "default.json.lock"],
        "no temporary file is left"
    );
    // No command's product was lost by another writing the store it had read before.
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
    let before = std::fs::read(store_file(state.path())).unwrap();
    let mut waiting = kept(
        state.path(),
        &[
            "products",
            "create",
            "--name",
            "Turned away",
            "--price",
            "1",
            "--product-type",
            "product",
        ],
    );
    waiting.env("STORE_ADMIN_SANDBOX_WAIT", "0");
    let (stdout, stderr) = run(waiting, 1);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("busy") && stderr.contains("another store-admin --sandbox command"),
        "{stderr}"
    );
    let mut reset = kept(state.path(), &["sandbox", "reset"]);
    reset.env("STORE_ADMIN_SANDBOX_WAIT", "0");
    let (_, stderr) = run(reset, 1);
    assert!(
        stderr.contains("busy"),
        "a reset waits for the store too: {stderr}"
    );
    assert_eq!(
        std::fs::read(store_file(state.path())).unwrap(),
        before,
        "a command turned away changes nothing"
    );
    fs4::FileExt::unlock(&lock).expect("unlocked");
    run(kept(state.path(), &["products", "get", &created[0]]), 0);
}

/// A store file that is not what a sandbox wrote (torn, another program's, edited by hand into
/// something the mock cannot hold) is refused, naming it and how to start over; it is neither
/// trusted nor overwritten by the command.
#[test]
fn a_torn_or_tampered_store_file_is_refused_with_how_to_start_over() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let file = store_file(state.path());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let bad: [&[u8]; 6] = [
        b"{\"format\": 1, \"seed\"",
        b"",
        b"{\"products\": []}",
        b"{\"format\": 2, \"seed\": 1, \"store\": {}}",
        // A record that is not an object.
        b"{\"format\": 1, \"seed\": 1, \"store\": {\"merchant_id\": 1, \"next_seed\": 1, \
          \"used_ids\": [], \"collections\": {\"/products\": [\"a product\"]}}}",
        // Two products of the same id.
        b"{\"format\": 1, \"seed\": 1, \"store\": {\"merchant_id\": 1, \"next_seed\": 1, \
          \"used_ids\": [7], \"collections\": {\"/products\": [{\"id\": 7}, {\"id\": 7}]}}}",
    ];
    for bytes in bad {
        std::fs::write(&file, bytes).unwrap();
        let (stdout, stderr) = run(
            kept(
                state.path(),
                &[
                    "products",
                    "create",
                    "--name",
                    "Not on a torn store",
                    "--price",
                    "1",
                    "--product-type",
                    "product",
                ],
            ),
            1,
        );
        let shown = String::from_utf8_lossy(bytes);
        assert!(stdout.is_empty(), "{shown}: {stdout}");
        assert!(
            stderr.contains("cannot read the sandbox's store")
                && stderr.contains(&file.display().to_string())
                && stderr.contains("sandbox reset"),
            "{shown}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), bytes, "left as it was");
    }
    let (_, stderr) = run(kept(state.path(), &["sandbox", "reset"]), 0);
    assert!(stderr.contains("deleted"), "{stderr}");
    run(kept(state.path(), &["orders", "list"]), 0);
}
