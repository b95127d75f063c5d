//! Update commands that change one field (`store_admin::modify`): the CLI binary against a mock
//! store process of its own (records persist between commands), `update ID --name X` completing
//! the required fields from the record, and `get -o json` output accepted by `update --body`.

use serde_json::Value;
use store_admin_mock::{MockConfig, MockServer};

use crate::common::{json, run, store_admin};

async fn mock() -> MockServer {
    MockServer::start(MockConfig::new().token_all_scopes("T"))
        .await
        .expect("the mock starts")
}

/// `store-admin --base-url MOCK ARGS...`: expects success, returns standard output.
fn ok_on(server: &MockServer, args: &[&str]) -> String {
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_TOKEN", "T")
        .args(["--base-url", server.base_url(), "--retries", "0"])
        .args(args);
    run(command, 0).0
}

fn write_json(dir: &tempfile::TempDir, name: &str, value: &Value) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(value).expect("JSON")).expect("write");
    path.to_str().expect("a UTF-8 path").to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn brands_update_with_only_a_name_changes_only_the_name() {
    let server = mock().await;
    let dir = tempfile::tempdir().expect("a directory");
    let brands = json(&ok_on(&server, &["brands", "list", "-o", "json"]));
    let id = brands[0]["id"].to_string();
    // The brand as a store has it: every field the update writes, sent whole (no read).
    let full = server.sample_body("update_brand").expect("a JSON body");
    let reads = server.requests_received("get_brand");
    ok_on(
        &server,
        &[
            "brands",
            "update",
            &id,
            "--body",
            &write_json(&dir, "full.json", &full),
        ],
    );
    assert_eq!(
        server.requests_received("get_brand"),
        reads,
        "a whole body costs no read"
    );
    let get = [
        "brands",
        "get",
        id.as_str(),
        "--with",
        "translations",
        "-o",
        "json",
    ];
    let before = json(&ok_on(&server, &get));

    ok_on(&server, &["brands", "update", &id, "--name", "Renamed"]);

    let after = json(&ok_on(&server, &get));
    let (Value::Object(mut before), Value::Object(mut after)) = (before, after) else {
        panic!("a brand is an object");
    };
    assert_eq!(after.remove("name"), Some(Value::from("Renamed")));
    before.remove("name");
    assert_eq!(after, before, "only the name changed");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_advertisement_printed_by_get_is_accepted_by_update_body() {
    let server = mock().await;
    let dir = tempfile::tempdir().expect("a directory");
    let mut create = server
        .sample_body("create_advertisement")
        .expect("a JSON body");
    // The day in the form the document gives (`YYYY-MM-DD`): the update takes a day, so a time of
    // day a create was given is not kept by an update.
    create["expire_date"] = Value::from("2030-12-31");
    let created = json(&ok_on(
        &server,
        &[
            "advertisements",
            "create",
            "--body",
            &write_json(&dir, "create.json", &create),
            "-o",
            "json",
        ],
    ));
    let id = created["id"].to_string();
    let printed = ok_on(&server, &["advertisements", "get", &id, "-o", "json"]);
    let read = json(&printed);
    assert!(read["expire_date"].is_object(), "read shape: {read}");
    let file = dir.path().join("ad.json");
    std::fs::write(&file, &printed).expect("write");

    let updated = json(&ok_on(
        &server,
        &[
            "advertisements",
            "update",
            &id,
            "--body",
            file.to_str().expect("a UTF-8 path"),
            "-o",
            "json",
        ],
    ));
    assert_eq!(updated["title"], read["title"]);
    let again = json(&ok_on(
        &server,
        &["advertisements", "get", &id, "-o", "json"],
    ));
    assert_eq!(again["expire_date"]["date"], read["expire_date"]["date"]);
    assert_eq!(again["pages"], read["pages"]);
}

#[test]
fn an_update_that_reads_first_says_so_in_its_help() {
    let mut command = store_admin();
    command.args(["brands", "update", "--help"]);
    let (help, _) = run(command, 0);
    assert!(
        help.contains("Fields you do not give are kept: the record is read first."),
        "{help}"
    );
    assert!(!help.contains("[required]"), "{help}");
}
