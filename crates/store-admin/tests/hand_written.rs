//! The hand-written operations (multipart uploads, `get_user_info` on the accounts host): their
//! fields against the document, and end-to-end over real HTTP on 127.0.0.1. Needs the areas whose
//! operations it calls (all are on by default).
#![cfg(all(
    feature = "orders",
    feature = "products",
    feature = "customers",
    feature = "store"
))]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use store_admin::hand_written::METHODS;
use store_admin::multipart::{FieldKind, Part};
use store_admin::retry::RetryPolicy;
use store_admin::{Error, HAND_WRITTEN, StoreAdmin, types};

const TOKEN: &str = "test-access-token-7f3a";

// ---------------------------------------------------------------------------------------------
// The fields of every upload against the document's request schema.

fn document() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../openapi/store-admin.yaml"
    );
    store_admin_mock::read_yaml(&std::fs::read_to_string(path).expect("read the document"))
        .expect("parse the document")
}

fn resolve<'a>(doc: &'a serde_json::Value, value: &'a serde_json::Value) -> &'a serde_json::Value {
    match value.get("$ref").and_then(|r| r.as_str()) {
        Some(reference) => {
            let mut node = doc;
            for key in reference.trim_start_matches("#/").split('/') {
                node = &node[key];
            }
            node
        }
        None => value,
    }
}

fn operation<'a>(doc: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    let paths = doc["paths"].as_object().expect("paths");
    paths
        .values()
        .filter_map(|item| item.as_object())
        .flat_map(|item| item.values())
        .find(|op| op.get("operationId").and_then(|v| v.as_str()) == Some(id))
        .unwrap_or_else(|| panic!("{id} is in the document"))
}

#[test]
fn every_hand_written_operation_has_a_method() {
    for op in HAND_WRITTEN {
        assert!(
            METHODS.iter().any(|m| m.operation_id == op.operation_id),
            "{} ({}) has no hand-written method in store_admin::hand_written::METHODS",
            op.operation_id,
            op.reason
        );
    }
    assert_eq!(METHODS.len(), HAND_WRITTEN.len());
}

#[test]
fn upload_fields_are_the_documents_request_schema() {
    let doc = document();
    for method in METHODS.iter().filter(|m| m.multipart) {
        let op = operation(&doc, method.operation_id);
        let schema = resolve(
            &doc,
            &op["requestBody"]["content"]["multipart/form-data"]["schema"],
        );
        let properties = schema["properties"].as_object().expect("properties");
        let required: Vec<&str> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let documented: BTreeMap<&str, (FieldKind, bool)> = properties
            .iter()
            .map(|(name, property)| {
                let name = name.as_str();
                let kind = if property.get("format").and_then(|f| f.as_str()) == Some("binary") {
                    FieldKind::File
                } else {
                    FieldKind::Text
                };
                (name, (kind, required.contains(&name)))
            })
            .collect();
        let ours: BTreeMap<&str, (FieldKind, bool)> = method
            .fields
            .iter()
            .map(|f| (f.name, (f.kind, f.required)))
            .collect();
        assert_eq!(ours, documented, "{}: fields", method.operation_id);

        let mut params: Vec<&str> = op
            .get("parameters")
            .and_then(|p| p.as_array())
            .map(|p| {
                p.iter()
                    .map(|p| resolve(&doc, p))
                    .filter(|p| p["in"].as_str() == Some("path"))
                    .filter_map(|p| p["name"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        params.sort_unstable();
        let mut ours = method.path_params.to_vec();
        ours.sort_unstable();
        assert_eq!(ours, params, "{}: path parameters", method.operation_id);
    }
}

// ---------------------------------------------------------------------------------------------
// A store on 127.0.0.1 that records what it receives.

#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
struct Seen {
    path: String,
    authorization: Option<String>,
    content_type: Option<String>,
    fields: Vec<Field>,
    sku: Option<String>,
}

#[derive(Clone, Default)]
struct Store {
    seen: Arc<Mutex<Vec<Seen>>>,
    calls: Arc<AtomicUsize>,
}

impl Store {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn record(store: &Store, path: &str, headers: &HeaderMap, mut form: Multipart) -> Seen {
    store.calls.fetch_add(1, Ordering::SeqCst);
    let mut fields = Vec::new();
    while let Some(field) = form
        .next_field()
        .await
        .expect("a well-formed multipart body")
    {
        fields.push(Field {
            name: field.name().unwrap_or_default().to_owned(),
            file_name: field.file_name().map(str::to_owned),
            content_type: field.content_type().map(str::to_owned),
            bytes: field.bytes().await.expect("field bytes").to_vec(),
        });
    }
    let seen = Seen {
        path: path.to_owned(),
        authorization: header_text(headers, header::AUTHORIZATION),
        content_type: header_text(headers, header::CONTENT_TYPE),
        fields,
        sku: None,
    };
    store.seen.lock().unwrap().push(seen.clone());
    seen
}

fn json(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn create_brand(State(store): State<Store>, headers: HeaderMap, form: Multipart) -> Response {
    let seen = record(&store, "/brands", &headers, form).await;
    if seen.authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
        return json(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({"status": 401, "success": false,
                "error": {"code": "Unauthorized", "message": "The access token is invalid"}}),
        );
    }
    let name = seen
        .fields
        .iter()
        .find(|f| f.name == "name")
        .map(|f| String::from_utf8_lossy(&f.bytes).into_owned());
    json(
        StatusCode::CREATED,
        serde_json::json!({"status": 201, "success": true,
            "data": {"id": 1473353380, "name": name, "logo": "https://cdn.example/logo.png"}}),
    )
}

async fn create_product_image(
    State(store): State<Store>,
    Path(product_id): Path<String>,
    headers: HeaderMap,
    form: Multipart,
) -> Response {
    record(
        &store,
        &format!("/products/{product_id}/images"),
        &headers,
        form,
    )
    .await;
    json(
        StatusCode::UNPROCESSABLE_ENTITY,
        serde_json::json!({"status": 422, "success": false, "error": {
            "code": "error", "message": "alert.invalid_fields",
            "fields": {"photo": ["The photo must be an image."]}}}),
    )
}

async fn create_product_image_by_sku(
    State(store): State<Store>,
    Path(sku): Path<String>,
    headers: HeaderMap,
    form: Multipart,
) -> Response {
    let mut seen = record(&store, "/products/sku/{sku}/images", &headers, form).await;
    seen.sku = Some(sku);
    store.seen.lock().unwrap().last_mut().unwrap().sku = seen.sku.clone();
    json(
        StatusCode::OK,
        serde_json::json!({"status": 200, "success": true,
            "data": {"id": 9, "sort": 1}}),
    )
}

async fn unavailable(State(store): State<Store>, headers: HeaderMap, form: Multipart) -> Response {
    record(&store, "/customers/import", &headers, form).await;
    json(
        StatusCode::SERVICE_UNAVAILABLE,
        serde_json::json!({"status": 503, "success": false,
            "error": {"message": "try again later"}}),
    )
}

async fn forbidden_scope(
    State(store): State<Store>,
    headers: HeaderMap,
    form: Multipart,
) -> Response {
    record(&store, "/orders/statuses/bulk", &headers, form).await;
    json(
        StatusCode::UNAUTHORIZED,
        serde_json::json!({"status": 401, "success": false,
            "error": {"code": "Unauthorized", "message": "This action is unauthorized."}}),
    )
}

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
    format!("http://{address}")
}

async fn api(store: Store) -> String {
    let router = Router::new()
        .route("/admin/v2/brands", post(create_brand))
        .route(
            "/admin/v2/products/{product_id}/images",
            post(create_product_image),
        )
        .route(
            "/admin/v2/products/sku/{sku}/images",
            post(create_product_image_by_sku),
        )
        .route("/admin/v2/customers/import", post(unavailable))
        .route("/admin/v2/orders/statuses/bulk", post(forbidden_scope))
        .with_state(store);
    format!("{}/admin/v2", serve(router).await)
}

fn admin(base_url: &str, accounts_url: &str) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(base_url)
        .with_accounts_url(accounts_url)
        .with_token(TOKEN)
        .with_retry_policy(
            RetryPolicy::default()
                .with_max_attempts(3)
                .with_base_delay(std::time::Duration::from_millis(1)),
        )
        .build()
        .expect("client")
}

// ---------------------------------------------------------------------------------------------
// Uploads.

#[tokio::test]
async fn create_brand_sends_the_file_and_text_fields_with_the_token() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");
    let logo = b"\x89PNG\r\n\x1a\n-logo-bytes".to_vec();

    let brand = admin
        .create_brand()
        .name("Acme")
        .logo(
            Part::bytes(logo.clone())
                .file_name("logo.png")
                .mime("image/png"),
        )
        .description("Tools")
        .translations_en_name("Acme EN")
        .send()
        .await
        .expect("created");

    assert_eq!(brand.status(), StatusCode::CREATED);
    let brand: types::BrandResponse = brand.into_inner();
    assert_eq!(brand.data.id, 1473353380);
    assert_eq!(brand.data.name.as_deref(), Some("Acme"));

    let seen = store.seen();
    assert_eq!(seen.len(), 1);
    let seen = &seen[0];
    assert_eq!(
        seen.authorization.as_deref(),
        Some("Bearer test-access-token-7f3a")
    );
    assert!(
        seen.content_type
            .as_deref()
            .unwrap_or_default()
            .starts_with("multipart/form-data; boundary="),
        "{:?}",
        seen.content_type
    );
    let field = |name: &str| {
        seen.fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("field {name} sent: {:?}", seen.fields))
    };
    assert_eq!(field("name").bytes, b"Acme");
    assert_eq!(field("name").file_name, None);
    assert_eq!(field("description").bytes, b"Tools");
    assert_eq!(field("translations[en][name]").bytes, b"Acme EN");
    let sent_logo = field("logo");
    assert_eq!(sent_logo.bytes, logo);
    assert_eq!(sent_logo.file_name.as_deref(), Some("logo.png"));
    assert_eq!(sent_logo.content_type.as_deref(), Some("image/png"));
    assert_eq!(seen.fields.len(), 4, "no unset field is sent");
}

#[tokio::test]
#[allow(deprecated)]
async fn the_translation_setters_of_0_1_0_send_the_same_fields() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");
    admin
        .create_brand()
        .name("Acme")
        .logo(Part::bytes(b"logo".to_vec()).file_name("logo.png"))
        .translation_en_name("Acme EN")
        .translation_en_metadata_title("Title")
        .translation_en_metadata_description("About")
        .translation_en_metadata_url("acme")
        .send()
        .await
        .expect("created");
    let seen = store.seen();
    let sent: Vec<(&str, &[u8])> = seen[0]
        .fields
        .iter()
        .filter(|f| f.name.starts_with("translations"))
        .map(|f| (f.name.as_str(), f.bytes.as_slice()))
        .collect();
    assert_eq!(
        sent,
        [
            ("translations[en][name]", &b"Acme EN"[..]),
            ("translations[en][metadata][title]", b"Title"),
            ("translations[en][metadata][description]", b"About"),
            ("translations[en][metadata][url]", b"acme"),
        ]
    );
}

#[tokio::test]
async fn path_parameters_are_one_encoded_segment_and_booleans_are_sent_as_1() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");

    let image = admin
        .create_product_image_by_sku()
        .sku("A/B 1")
        .photo(Part::bytes(&b"jpeg"[..]))
        .send()
        .await
        .expect("attached")
        .into_inner();
    assert_eq!(image.data.id, 9);
    let seen = store.seen();
    assert_eq!(seen[0].sku.as_deref(), Some("A/B 1"));
    let photo = &seen[0].fields[0];
    assert_eq!(photo.name, "photo");
    assert_eq!(
        photo.file_name.as_deref(),
        Some("photo"),
        "defaults to the field name"
    );

    // The generic form: the same request, fields by name.
    let err = admin
        .multipart("create_product_image")
        .expect("an upload")
        .path_param("product_id", 42)
        .text("alt", "front")
        .field("main", store_admin::multipart::FieldValue::Text("1".into()))
        .send::<serde_json::Value>()
        .await
        .expect_err("the store answers 422");
    assert_eq!(err.status(), Some(StatusCode::UNPROCESSABLE_ENTITY));
    let seen = store.seen();
    assert_eq!(seen[1].path, "/products/42/images");
}

#[tokio::test]
async fn an_error_envelope_becomes_error_api_with_fields_and_the_operation() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");

    let err = admin
        .create_product_image()
        .product_id(42)
        .photo(
            Part::bytes(&b"not an image"[..])
                .file_name("x.txt")
                .mime("text/plain"),
        )
        .main(true)
        .sort(2)
        .send()
        .await
        .expect_err("422");

    assert_eq!(err.status(), Some(StatusCode::UNPROCESSABLE_ENTITY));
    assert_eq!(err.operation(), Some("create_product_image"));
    let fields = err.validation_errors().expect("field errors");
    assert_eq!(
        fields["photo"],
        vec!["The photo must be an image.".to_string()]
    );
    let seen = store.seen();
    let main = seen[0]
        .fields
        .iter()
        .find(|f| f.name == "main")
        .expect("main");
    assert_eq!(main.bytes, b"1");
    let sort = seen[0]
        .fields
        .iter()
        .find(|f| f.name == "sort")
        .expect("sort");
    assert_eq!(sort.bytes, b"2");
}

#[tokio::test]
async fn a_401_names_the_scopes_of_the_upload() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");
    let err = admin
        .change_bulk_order_statuses()
        .file(Part::bytes(&b"xlsx"[..]).file_name("orders.xlsx"))
        .send()
        .await
        .expect_err("401");
    assert!(err.is_unauthorized(), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("orders.read_write"), "{text}");
    assert!(!text.contains(TOKEN), "{text}");
}

#[tokio::test]
async fn an_upload_that_reached_the_service_is_not_sent_again() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");
    let err = admin
        .import_customers()
        .file(Part::bytes(&b"xlsx"[..]))
        .send()
        .await
        .expect_err("503");
    assert_eq!(err.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(
        store.calls.load(Ordering::SeqCst),
        1,
        "a POST that arrived is not retried"
    );
}

#[tokio::test]
async fn bad_input_fails_before_anything_is_sent() {
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, "http://127.0.0.1:9");

    let missing_logo = admin.create_brand().name("Acme").send().await;
    assert!(
        matches!(&missing_logo, Err(Error::InvalidRequest(m)) if m.contains("`logo` is required")),
        "{missing_logo:?}"
    );
    let missing_path = admin
        .create_product_image()
        .photo(Part::bytes(&b"x"[..]))
        .send()
        .await;
    assert!(
        matches!(&missing_path, Err(Error::InvalidRequest(m)) if m.contains("`product_id`")),
        "{missing_path:?}"
    );
    let bad_mime = admin
        .create_brand()
        .name("Acme")
        .logo(Part::bytes(&b"x"[..]).mime("not a media type"))
        .send()
        .await;
    assert!(
        matches!(&bad_mime, Err(Error::InvalidRequest(m)) if m.contains("media type")),
        "{bad_mime:?}"
    );
    let unknown = admin
        .multipart("create_brand")
        .expect("an upload")
        .text("colour", "red")
        .send::<serde_json::Value>()
        .await;
    assert!(
        matches!(&unknown, Err(Error::InvalidRequest(m)) if m.contains("no field `colour`")),
        "{unknown:?}"
    );
    let file_as_text = admin
        .multipart("create_brand")
        .expect("an upload")
        .text("logo", "logo.png")
        .send::<serde_json::Value>()
        .await;
    assert!(matches!(file_as_text, Err(Error::InvalidRequest(_))));
    assert!(matches!(
        admin.multipart("list_orders"),
        Err(Error::InvalidRequest(_))
    ));
    assert_eq!(store.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn a_part_shows_no_content_in_debug() {
    let part = Part::bytes(&b"secret-file-content"[..]).file_name("a.csv");
    let debug = format!("{part:?}");
    assert!(!debug.contains("secret-file-content"), "{debug}");
    assert!(debug.contains("a.csv") && debug.contains("19"), "{debug}");
}

// ---------------------------------------------------------------------------------------------
// get_user_info on the accounts host, and the token's origins.

/// The path and `Authorization` header of each request a host received.
type Requests = Arc<Mutex<Vec<(String, Option<String>)>>>;

#[derive(Clone, Default)]
struct Host {
    requests: Requests,
    redirect_to: Option<String>,
}

async fn accounts(State(host): State<Host>, uri: axum::http::Uri, headers: HeaderMap) -> Response {
    host.requests.lock().unwrap().push((
        uri.path().to_owned(),
        header_text(&headers, header::AUTHORIZATION),
    ));
    if let Some(target) = &host.redirect_to {
        return (StatusCode::FOUND, [(header::LOCATION, target.clone())]).into_response();
    }
    if uri.path() != "/oauth2/user/info" {
        return StatusCode::NOT_FOUND.into_response();
    }
    json(
        StatusCode::OK,
        serde_json::json!({"status": 200, "success": true, "data": {
            "id": 1771165749, "name": "Test User", "email": "user@example.com", "role": "user",
            "merchant": {"id": 1803665367, "username": "dev-store", "name": "Dev Store"}}}),
    )
}

async fn host(host: Host) -> String {
    serve(Router::new().fallback(any(accounts)).with_state(host)).await
}

#[tokio::test]
async fn get_user_info_goes_to_the_accounts_host_with_the_token() {
    let api_host = Host::default();
    let accounts_host = Host::default();
    let api_url = format!("{}/admin/v2", host(api_host.clone()).await);
    let accounts_url = host(accounts_host.clone()).await;
    let admin = admin(&api_url, &accounts_url);

    let info = admin.get_user_info().send().await.expect("user info");
    assert_eq!(info.status(), StatusCode::OK);
    let info = info.into_inner();
    assert_eq!(info.data.id, 1771165749);
    assert_eq!(info.data.email.as_deref(), Some("user@example.com"));

    let requests = accounts_host.requests.lock().unwrap().clone();
    assert_eq!(
        requests,
        vec![(
            "/oauth2/user/info".to_string(),
            Some(format!("Bearer {TOKEN}"))
        )]
    );
    assert!(api_host.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_token_never_goes_to_a_foreign_origin() {
    let foreign = Host::default();
    let foreign_url = host(foreign.clone()).await;
    let redirecting = Host {
        redirect_to: Some(format!("{foreign_url}/oauth2/user/info")),
        ..Host::default()
    };
    let accounts_url = host(redirecting.clone()).await;
    let store = Store::default();
    let base = api(store.clone()).await;
    let admin = admin(&base, &accounts_url);

    // A hand-built request to another origin is refused before anything is sent.
    let request = reqwest::Client::new()
        .get(format!("{foreign_url}/steal"))
        .build()
        .expect("request");
    let err = admin
        .send_raw(request, "list_orders")
        .await
        .expect_err("foreign origin");
    assert!(
        matches!(&err, Error::InvalidRequest(m) if m.contains("refusing")),
        "{err:?}"
    );
    assert!(!err.to_string().contains(TOKEN));
    assert!(foreign.requests.lock().unwrap().is_empty());

    // The accounts host redirecting elsewhere: the redirect is followed without the token.
    let _ = admin.get_user_info().send().await;
    assert_eq!(
        redirecting.requests.lock().unwrap()[0].1.as_deref(),
        Some("Bearer test-access-token-7f3a")
    );
    let followed = foreign.requests.lock().unwrap().clone();
    assert!(
        followed
            .iter()
            .all(|(_, authorization)| authorization.is_none()),
        "{followed:?}"
    );
}

#[test]
fn the_accounts_url_defaults_to_the_live_host_or_the_token_urls_or_base_urls_origin() {
    let bearer = StoreAdmin::builder()
        .with_token("t")
        .build()
        .expect("client");
    assert_eq!(bearer.accounts_url(), store_admin::LIVE_ACCOUNTS_URL);

    // A fixed token for another host (a mock, a staging service) never goes to the live
    // accounts host: its accounts URL is the base URL's origin.
    let elsewhere = StoreAdmin::builder()
        .with_token("t")
        .with_base_url("http://127.0.0.1:8080/admin/v2")
        .build()
        .expect("client");
    assert_eq!(elsewhere.accounts_url(), "http://127.0.0.1:8080");

    let oauth = store_admin::Credentials::oauth(
        "client",
        secrecy::SecretString::from("secret"),
        Arc::new(store_admin::credentials::InMemoryTokenStore::new()),
    );
    let live = StoreAdmin::builder()
        .with_credentials(oauth.clone())
        .build()
        .expect("client");
    assert_eq!(live.accounts_url(), "https://accounts.salla.sa");

    let local =
        oauth.with_token_url(url::Url::parse("http://127.0.0.1:8080/oauth2/token").unwrap());
    let local = StoreAdmin::builder()
        .with_credentials(local)
        .build()
        .expect("client");
    assert_eq!(local.accounts_url(), "http://127.0.0.1:8080");

    let explicit = StoreAdmin::builder()
        .with_token("t")
        .with_accounts_url("http://127.0.0.1:9/")
        .build()
        .expect("client");
    assert_eq!(explicit.accounts_url(), "http://127.0.0.1:9");

    let bad = StoreAdmin::builder()
        .with_token("t")
        .with_accounts_url("not a url")
        .build();
    assert!(matches!(bad, Err(Error::InvalidRequest(_))));
}
