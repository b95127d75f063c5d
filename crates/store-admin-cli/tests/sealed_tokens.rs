//! The `auth` commands on token stores encrypted at rest (issue 37): the keys come from
//! `STORE_ADMIN_TOKEN_KEYS`, `--token-keys-file` or a profile, never from a command line; every
//! store is listed by `auth status --all`, one that does not open marked unreadable.

use std::path::{Path, PathBuf};

use crate::common::{json, run, store_admin};

const KEY_A: &str = "key-a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY_MATERIAL: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const REFRESH: &str = "sealed-cli-refresh-token";
const TOKEN_URL: &str = "http://127.0.0.1:9/oauth2/token";

fn token_dir(state: &Path) -> PathBuf {
    state.join("store-admin/tokens/127.0.0.1_9")
}

fn command(state: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut command = store_admin();
    command
        .env("XDG_STATE_HOME", state)
        .args(["--token-url", TOKEN_URL])
        .args(args);
    command
}

fn import(state: &Path, store: &str, keys: Option<&str>) {
    let mut import = command(
        state,
        &["--store", store, "auth", "import", "--refresh-token", "-"],
    );
    if let Some(keys) = keys {
        import.env("STORE_ADMIN_TOKEN_KEYS", keys);
    }
    import.write_stdin(format!("{REFRESH}-{store}\n"));
    run(import, 0);
}

fn assert_no_secret(outputs: &[&str]) {
    for output in outputs {
        assert!(!output.contains(REFRESH), "a token was printed: {output}");
        assert!(
            !output.contains(KEY_MATERIAL),
            "a key was printed: {output}"
        );
    }
}

#[test]
fn auth_status_all_lists_every_encrypted_store_and_marks_the_one_that_does_not_open() {
    let state = tempfile::tempdir().unwrap();
    for store in ["first", "second", "third"] {
        import(state.path(), store, Some(KEY_A));
    }
    let dir = token_dir(state.path());
    for store in ["first", "second", "third"] {
        let text = std::fs::read_to_string(dir.join(format!("{store}.json"))).unwrap();
        assert!(!text.contains(REFRESH), "{store}: plaintext in {text}");
        assert!(text.contains(r#""key":"key-a""#), "{text}");
    }
    // The third store's record copied into the second's file: it does not open there.
    std::fs::copy(dir.join("third.json"), dir.join("second.json")).unwrap();

    // The keys from a file (mode 0600), by flag.
    let keys = state.path().join("token.keys");
    std::fs::write(&keys, format!("# the first key encrypts\n{KEY_A}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let keys = keys.to_str().unwrap();
    let status = |format: &str| {
        command(
            state.path(),
            &[
                "--token-keys-file",
                keys,
                "auth",
                "status",
                "--all",
                "-o",
                format,
            ],
        )
    };
    let (out, err) = run(status("json"), 1);
    let lines = json(&out);
    let lines = lines.as_array().expect("a list");
    let stores: Vec<&str> = lines.iter().map(|l| l["store"].as_str().unwrap()).collect();
    assert_eq!(stores, ["first", "second", "third"], "{out}\n{err}");
    assert_ne!(lines[0]["state"], "unreadable", "{out}");
    assert_ne!(lines[2]["state"], "unreadable", "{out}");
    assert_eq!(lines[1]["state"], "unreadable", "{out}");
    let error = lines[1]["error"].as_str().unwrap();
    assert!(
        error.contains("`second` do not open with key `key-a`"),
        "{error}"
    );
    let (table, table_err) = run(status("table"), 1);
    assert!(
        table.contains("second\tunreadable (needs attention)"),
        "{table}"
    );
    assert_no_secret(&[&out, &err, &table, &table_err]);

    // One store's status with the keys from the environment; logging out of the unreadable one.
    let mut one = command(state.path(), &["--store", "first", "auth", "status"]);
    one.env("STORE_ADMIN_TOKEN_KEYS", KEY_A);
    let (out, err) = run(one, 0);
    assert!(out.contains("first"), "{out}");
    assert_no_secret(&[&out, &err]);
    let mut logout = command(state.path(), &["--store", "second", "auth", "logout"]);
    logout.env("STORE_ADMIN_TOKEN_KEYS", KEY_A);
    run(logout, 0);

    // Without the keys, every encrypted store is listed, unreadable, saying what is needed.
    let (out, err) = run(
        command(state.path(), &["auth", "status", "--all", "-o", "json"]),
        1,
    );
    let lines = json(&out);
    let lines = lines.as_array().expect("a list");
    assert_eq!(lines.len(), 2, "{out}");
    for line in lines {
        assert_eq!(line["state"], "unreadable", "{out}");
        let error = line["error"].as_str().unwrap();
        assert!(error.contains("STORE_ADMIN_TOKEN_KEYS"), "{error}");
    }
    assert_no_secret(&[&out, &err]);
}

#[test]
fn a_plain_store_is_read_with_keys_and_encrypted_by_the_next_import() {
    let state = tempfile::tempdir().unwrap();
    import(state.path(), "shop", None);
    let file = token_dir(state.path()).join("shop.json");
    assert!(std::fs::read_to_string(&file).unwrap().contains(REFRESH));
    let mut status = command(state.path(), &["--store", "shop", "auth", "status"]);
    status.env("STORE_ADMIN_TOKEN_KEYS", KEY_A);
    run(status, 0);
    import(state.path(), "shop", Some(KEY_A));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(REFRESH), "{text}");
}

#[test]
fn bad_token_keys_are_refused_without_showing_them() {
    let state = tempfile::tempdir().unwrap();
    let secretish = "key-a:this-is-not-base64-but-secret-material";
    let mut bad = command(state.path(), &["auth", "status", "--all"]);
    bad.env("STORE_ADMIN_TOKEN_KEYS", secretish);
    let (out, err) = run(bad, 2);
    assert!(err.contains("key `key-a` is not 32 bytes"), "{err}");
    assert!(err.contains("STORE_ADMIN_TOKEN_KEYS"), "{err}");
    assert!(!err.contains("secret-material") && !out.contains("secret-material"));
    let file = state.path().join("keys");
    std::fs::write(&file, "no-colon-here-secret-material\n").unwrap();
    let (_, err) = run(
        command(
            state.path(),
            &[
                "--token-keys-file",
                file.to_str().unwrap(),
                "auth",
                "status",
            ],
        ),
        2,
    );
    assert!(err.contains("entry 1 is not `id:base64key`"), "{err}");
    assert!(!err.contains("secret-material"), "{err}");
    // Both sources at once is a mistake, not a silent choice.
    let mut both = command(
        state.path(),
        &[
            "--token-keys-file",
            file.to_str().unwrap(),
            "auth",
            "status",
        ],
    );
    both.env("STORE_ADMIN_TOKEN_KEYS", KEY_A);
    let (_, err) = run(both, 2);
    assert!(err.contains("given twice"), "{err}");
}

#[test]
fn encrypted_tokens_can_live_in_redis() {
    let redis = store_admin_tests::RedisServer::start();
    let state = tempfile::tempdir().unwrap();
    let with_redis = |store: &str, keys: Option<&str>, args: &[&str]| {
        let mut command = command(state.path(), &["--store", store]);
        command
            .env("STORE_ADMIN_TOKEN_STORE", redis.url())
            .args(args);
        if let Some(keys) = keys {
            command.env("STORE_ADMIN_TOKEN_KEYS", keys);
        }
        command
    };
    for store in ["one", "two"] {
        let mut import = with_redis(
            store,
            Some(KEY_A),
            &["auth", "import", "--refresh-token", "-"],
        );
        import.write_stdin(format!("{REFRESH}-{store}\n"));
        run(import, 0);
    }
    // Imported without the app's client, the stores have no access token yet (exit 1: they
    // need a first refresh); none is unreadable.
    let (out, err) = run(
        with_redis(
            "one",
            Some(KEY_A),
            &["auth", "status", "--all", "-o", "json"],
        ),
        1,
    );
    let lines = json(&out);
    let states: Vec<(&str, &str)> = lines
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["store"].as_str().unwrap(), l["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states.len(), 2, "{out}\n{err}");
    assert!(
        states.iter().all(|(_, state)| *state != "unreadable"),
        "{out}"
    );
    let (out, err) = run(
        with_redis("one", None, &["auth", "status", "--all", "-o", "json"]),
        1,
    );
    let lines = json(&out);
    for line in lines.as_array().unwrap() {
        assert_eq!(line["state"], "unreadable", "{out}");
    }
    assert_no_secret(&[&out, &err]);
}
