//! Issue 42 item 5, end to end: a server that rewrites the mock store's answers the way a changed
//! service would (a renamed field, a new field, ids as strings, a boolean as `"on"`) stands in
//! front of the mock; a client with drift counting on reads through it; its report, applied with
//! `cargo xtask drift apply` to a copy of the workspace, yields a document whose regenerated client
//! declares the new fields with the types seen, so that they decode with no habit to report.
//!
//! Everything is real: the mock and the rewriting server listen on 127.0.0.1, the client is the
//! library's, and `cargo xtask` runs as a process of its own on a copy of the tracked files (the
//! workspace itself is never written).

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use serde_json::{Value, json};
use store_admin::StoreAdmin;
use store_admin::drift::{JsonType, habits};
use store_admin::prelude::*;
use store_admin_mock::{MockConfig, MockServer};

const TOKEN: &str = "drift-e2e-token";
const OPERATION: &str = "list_product_quantities";

/// What the changed service does to each product-quantity row: `sold_quantity` renamed
/// `units_sold`, a new `warehouse`, the id as a string, `unlimited_quantity` as `"on"`/`"off"`.
fn rewrite_row(row: &mut Value) {
    let Some(row) = row.as_object_mut() else {
        return;
    };
    let sold = row.remove("sold_quantity").unwrap_or(json!(0));
    row.insert("units_sold".into(), sold);
    row.insert("warehouse".into(), json!("riyadh-main"));
    if let Some(id) = row.get("id").and_then(Value::as_i64) {
        row.insert("id".into(), json!(id.to_string()));
    }
    if let Some(unlimited) = row.get("unlimited_quantity").and_then(Value::as_bool) {
        row.insert(
            "unlimited_quantity".into(),
            json!(if unlimited { "on" } else { "off" }),
        );
    }
}

#[derive(Clone)]
struct Upstream {
    http: reqwest::Client,
    origin: String,
}

/// Forwards a request to the mock and rewrites the rows of a product-quantity page.
async fn forward(
    State(upstream): State<Upstream>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let target = format!(
        "{}{}",
        upstream.origin,
        uri.path_and_query().map_or("/", |p| p.as_str())
    );
    let mut request = upstream.http.request(method, target).body(body);
    if let Some(auth) = headers.get(header::AUTHORIZATION) {
        request = request.header(header::AUTHORIZATION, auth);
    }
    let answer = request.send().await.expect("the mock answers");
    let status = answer.status();
    let mut out = HeaderMap::new();
    if let Some(kind) = answer.headers().get(header::CONTENT_TYPE) {
        out.insert(header::CONTENT_TYPE, kind.clone());
    }
    let bytes = answer.bytes().await.expect("the mock's body").to_vec();
    if !(status.is_success() && uri.path().ends_with("/products/quantities")) {
        return (status, out, bytes);
    }
    let mut page: Value = serde_json::from_slice(&bytes).expect("the mock answers JSON");
    for row in page["data"]
        .as_array_mut()
        .expect("a page has data")
        .iter_mut()
    {
        rewrite_row(row);
    }
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    (status, out, serde_json::to_vec(&page).expect("serialises"))
}

/// Starts the rewriting server in front of `mock`; answers the client's base URL through it.
async fn rewriting_server(mock: &MockServer) -> String {
    let base = url::Url::parse(mock.base_url()).expect("the mock's base URL parses");
    let upstream = Upstream {
        http: reqwest::Client::new(),
        origin: base.origin().ascii_serialization(),
    };
    let app = axum::Router::new().fallback(forward).with_state(upstream);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serves") });
    format!("http://{addr}{}", base.path().trim_end_matches('/'))
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// Copies the workspace's tracked files (as `git ls-files` lists them) into `to`.
fn copy_tracked_files(to: &Path) {
    let root = workspace_root();
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files: {listed:?}");
    let mut copied = 0;
    for rel in listed.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel).expect("a UTF-8 path"));
        let from = root.join(rel);
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().expect("a parent")).expect("mkdir");
        std::fs::copy(&from, &dest).expect("copies");
        copied += 1;
    }
    assert!(copied > 100, "only {copied} tracked files copied");
}

/// The struct `name` of a generated Rust file, from its `pub struct` line to its closing brace.
fn generated_struct<'a>(source: &'a str, name: &str) -> &'a str {
    let start = source
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let end = source[start..].find("\n    }\n").expect("the struct ends") + start;
    &source[start..end]
}

/// The lines of the field `field` of a generated struct: its attributes and its declaration.
fn generated_field<'a>(structure: &'a str, field: &str) -> &'a str {
    let at = structure
        .find(&format!("pub {field}:"))
        .unwrap_or_else(|| panic!("no field {field} in\n{structure}"));
    let start = structure[..at].rfind("///").unwrap_or(at);
    let end = structure[at..]
        .find(",\n")
        .map_or(structure.len(), |e| e + at);
    &structure[start..end]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_services_traffic_becomes_a_document_change_and_a_regenerated_client() {
    // 1. The changed service: the mock, behind the rewriting server.
    let mock = MockServer::start(MockConfig::new().products(30).token_all_scopes(TOKEN))
        .await
        .expect("mock starts");
    let base = rewriting_server(&mock).await;

    // 2. A service's client, counting drift, reads through it.
    let admin = StoreAdmin::builder()
        .with_base_url(&base)
        .with_token(TOKEN)
        .with_drift_counting()
        .build()
        .expect("client builds");
    let page = admin
        .list_product_quantities()
        .per_page(15u64)
        .call()
        .await
        .expect("the rewritten page decodes");
    assert_eq!(page.data.len(), 15);
    assert!(page.data.iter().all(|row| row.id > 0), "ids read from text");
    admin
        .list_product_quantities()
        .per_page(15u64)
        .page(2u64)
        .call()
        .await
        .expect("the second rewritten page decodes");

    // 3. Its report: the new and renamed fields, the two habits, and no value.
    let report = admin.drift();
    let seen = report
        .operations
        .get(OPERATION)
        .unwrap_or_else(|| panic!("no {OPERATION} in {report:?}"));
    assert_eq!((seen.calls, seen.decoded, seen.failed), (2, 2, 0));
    assert_eq!(seen.unknown_fields["data[].warehouse"].count, 30);
    assert_eq!(
        seen.unknown_fields["data[].warehouse"].types,
        [JsonType::String]
    );
    assert_eq!(
        seen.unknown_fields["data[].units_sold"].types,
        [JsonType::Number]
    );
    assert!(
        !seen.unknown_fields.contains_key("data[].sold_quantity"),
        "{seen:?}"
    );
    assert!(
        seen.habits[habits::NUMBER_AS_STRING]
            .paths
            .contains_key("data[].id"),
        "{seen:?}"
    );
    assert!(
        seen.habits[habits::BOOLEAN_AS_NUMBER_OR_WORD]
            .paths
            .contains_key("data[].unlimited_quantity"),
        "{seen:?}"
    );
    let json = serde_json::to_string_pretty(&report).expect("a report serialises");
    assert!(!json.contains("riyadh-main"), "a value reached the report");

    // 4. `cargo xtask drift apply` on a copy of the workspace: the document gains the two fields and
    // records the two habits, and the client is regenerated there.
    let copy = tempfile::tempdir().expect("a temporary directory");
    copy_tracked_files(copy.path());
    let report_file = copy.path().join("drift.json");
    std::fs::write(&report_file, &json).expect("writes the report");
    let document = copy.path().join("openapi/store-admin.yaml");
    let before = std::fs::read_to_string(&document).expect("reads the copy's document");
    let output = tokio::task::spawn_blocking({
        let (report_file, document) = (report_file.clone(), document.clone());
        let copy = copy.path().to_path_buf();
        move || {
            Command::new(env!("CARGO"))
                .args(["run", "--quiet", "--locked", "-p", "xtask", "--"])
                .args(["drift", "apply"])
                .arg(&report_file)
                .arg("--document")
                .arg(&document)
                .current_dir(workspace_root())
                .env("XTASK_ROOT", &copy)
                .output()
                .expect("cargo runs")
        }
    })
    .await
    .expect("joins");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "drift apply failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        "added     ProductQuantity.warehouse (string), seen in `list_product_quantities`",
        "added     ProductQuantity.units_sold (number), seen in `list_product_quantities`",
        "assumed   ProductQuantity.id: a number sent as a string (list_product_quantities)",
        "assumed   ProductQuantity.unlimited_quantity: a boolean sent as 0/1 or a word (on/off, yes/no) (list_product_quantities)",
        "wrote     crates/store-admin-client-products/src/generated.rs",
    ] {
        assert!(stdout.contains(line), "{line}\nnot in\n{stdout}");
    }
    assert_eq!(
        std::fs::read_to_string(workspace_root().join("openapi/store-admin.yaml"))
            .expect("reads the workspace's document"),
        before,
        "the workspace's own document is not touched"
    );

    // 5. The edited document: optional properties with the types seen, the habits recorded, nothing
    // made required, no value.
    let after = std::fs::read_to_string(&document).expect("reads the edited document");
    assert!(
        !after.contains("riyadh-main"),
        "a value reached the document"
    );
    let raw = store_admin_mock::read_yaml(&after).expect("the edited document parses");
    let quantity = &raw["components"]["schemas"]["ProductQuantity"];
    assert_eq!(quantity["properties"]["warehouse"]["type"], "string");
    assert_eq!(quantity["properties"]["units_sold"]["type"], "number");
    assert_eq!(
        quantity["properties"]["id"]["x-assumed"][0]["habit"],
        habits::NUMBER_AS_STRING
    );
    assert_eq!(
        quantity["properties"]["unlimited_quantity"]["x-assumed"][0]["habit"],
        habits::BOOLEAN_AS_NUMBER_OR_WORD
    );
    let required: Vec<&str> = quantity["required"]
        .as_array()
        .expect("a required list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!required.contains(&"warehouse") && !required.contains(&"units_sold"));

    // 6. The regenerated client: the new fields are declared with the types seen, so a string
    // `warehouse` and a number `units_sold` decode as themselves (no habit, not undeclared).
    let generated = std::fs::read_to_string(
        copy.path()
            .join("crates/store-admin-client-products/src/generated.rs"),
    )
    .expect("reads the regenerated area crate");
    let structure = generated_struct(&generated, "ProductQuantity");
    let warehouse = generated_field(structure, "warehouse");
    assert!(
        warehouse.contains("::std::option::Option<::std::string::String>")
            && warehouse.contains("lenient::Opt<lenient::Str>"),
        "{warehouse}"
    );
    let units_sold = generated_field(structure, "units_sold");
    assert!(
        units_sold.contains("::std::option::Option<f64>"),
        "{units_sold}"
    );
    let committed = std::fs::read_to_string(
        workspace_root().join("crates/store-admin-client-products/src/generated.rs"),
    )
    .expect("reads the committed area crate");
    assert!(
        !generated_struct(&committed, "ProductQuantity").contains("pub warehouse:"),
        "the committed client does not know the field yet"
    );
}
