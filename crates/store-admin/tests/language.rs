//! The language of the service's answers, against the mock store over HTTP on 127.0.0.1: without
//! a language the client sends none and the answers are Arabic (the service's default); a
//! client's language, or a view's (`in_language`, which wins), is sent as `Accept-Language` on
//! every request and `Content-Language` on every request with a body; and no request carries
//! an `api-version` header (the service versions by its path only). The mock's journal shows
//! what went on the wire.

use store_admin::multipart::Part;
use store_admin::prelude::*;
use store_admin::{Error, Language, StoreAdmin, types};
use store_admin_mock::{
    JournalEntry, MockConfig, MockServer, NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_AR,
};

const TOKEN: &str = "language-token";

async fn mock() -> MockServer {
    MockServer::start(MockConfig::new().token_all_scopes(TOKEN))
        .await
        .expect("mock starts")
}

fn client(server: &MockServer, language: Option<Language>) -> StoreAdmin {
    let mut builder = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN);
    if let Some(language) = language {
        builder = builder.with_language(language);
    }
    builder.build().expect("client builds")
}

/// The messages of a 422 for `per_page=61` (the service's maximum is 60).
async fn per_page_messages(admin: &StoreAdmin) -> Vec<String> {
    let error = admin
        .list_orders()
        .per_page(61_u64)
        .call()
        .await
        .expect_err("per_page 61 is refused");
    let api = error
        .api()
        .unwrap_or_else(|| panic!("an API error: {error:?}"));
    assert_eq!(api.status.as_u16(), 422, "{api:?}");
    api.fields.get("per_page").cloned().unwrap_or_default()
}

/// The message of a 404 for a shipment that does not exist.
async fn not_found_message(admin: &StoreAdmin) -> String {
    let error = admin
        .get_shipment()
        .shipment_id(999_999_999_i64)
        .call()
        .await
        .expect_err("no such shipment");
    assert!(error.is_not_found(), "{error:?}");
    error
        .api()
        .and_then(|api| api.message.clone())
        .unwrap_or_default()
}

/// `POST /languages` with a code the service does not offer: a 422 naming the field.
async fn add_unknown_language(admin: &StoreAdmin) -> Vec<String> {
    let body: types::AddLanguagesRequest =
        serde_json::from_value(serde_json::json!({"locales": [{"iso_code": "zzz"}]}))
            .expect("a request body");
    let error = admin
        .add_languages()
        .body(body)
        .call()
        .await
        .expect_err("zzz is not a language of the service");
    let api = error
        .api()
        .unwrap_or_else(|| panic!("an API error: {error:?}"));
    api.fields
        .get("locales.0.iso_code")
        .cloned()
        .unwrap_or_default()
}

fn last(server: &MockServer, operation_id: &str) -> JournalEntry {
    server
        .journal()
        .into_iter()
        .rev()
        .find(|entry| entry.operation_id == operation_id)
        .unwrap_or_else(|| panic!("{operation_id} reached the mock"))
}

#[tokio::test]
async fn without_a_language_nothing_is_sent_and_the_service_answers_in_arabic() {
    let server = mock().await;
    let admin = client(&server, None);
    assert_eq!(admin.language(), None);
    assert_eq!(not_found_message(&admin).await, NOT_FOUND_MESSAGE_AR);
    assert_eq!(
        per_page_messages(&admin).await,
        ["يجب ألا تكون قيمة per page أكبر من 60."]
    );
    assert_eq!(
        add_unknown_language(&admin).await,
        ["حقل locales.0.iso_code غير صالحٍ"]
    );
    for entry in server.journal() {
        assert_eq!(entry.header("accept-language"), None, "{entry:?}");
        assert_eq!(entry.header("content-language"), None, "{entry:?}");
    }
}

#[tokio::test]
async fn a_client_in_english_gets_english_errors_and_says_so_on_every_request() {
    let server = mock().await;
    let admin = client(&server, Some(Language::ENGLISH));
    assert_eq!(admin.language(), Some(&Language::ENGLISH));
    assert_eq!(not_found_message(&admin).await, NOT_FOUND_MESSAGE);
    assert_eq!(
        per_page_messages(&admin).await,
        ["The per page may not be greater than 60."]
    );
    assert_eq!(
        add_unknown_language(&admin).await,
        ["The locales.0.iso_code field is invalid."]
    );

    // A request without a body: Accept-Language only.
    let get = last(&server, "list_orders");
    assert_eq!(get.header("accept-language"), Some("en"), "{get:?}");
    assert_eq!(get.header("content-language"), None, "{get:?}");
    // A request with a body says which language its body is in.
    let post = last(&server, "add_languages");
    assert_eq!(post.header("accept-language"), Some("en"), "{post:?}");
    assert_eq!(post.header("content-language"), Some("en"), "{post:?}");
}

#[tokio::test]
async fn a_per_call_language_wins_over_the_clients() {
    let server = mock().await;
    let arabic = client(&server, Some(Language::ARABIC));
    let english = client(&server, Some(Language::ENGLISH));

    assert_eq!(
        not_found_message(&arabic.in_language(Language::ENGLISH)).await,
        NOT_FOUND_MESSAGE
    );
    assert_eq!(
        not_found_message(&english.in_language(Language::ARABIC)).await,
        NOT_FOUND_MESSAGE_AR
    );
    // The view leaves the client as it was.
    assert_eq!(not_found_message(&arabic).await, NOT_FOUND_MESSAGE_AR);
    assert_eq!(not_found_message(&english).await, NOT_FOUND_MESSAGE);

    // A tag with a region: sent as given (in its usual case); the service reads it as English.
    let us = arabic.in_language("en-us".parse().expect("a tag"));
    assert_eq!(us.language().map(Language::as_str), Some("en-US"));
    assert_eq!(
        add_unknown_language(&us).await,
        ["The locales.0.iso_code field is invalid."]
    );
    let post = last(&server, "add_languages");
    assert_eq!(post.header("accept-language"), Some("en-US"), "{post:?}");
    assert_eq!(post.header("content-language"), Some("en-US"), "{post:?}");

    // The view shares the client's runtime: its calls pass the same rate limiter and token.
    assert_eq!(us.base_url(), arabic.base_url());
}

#[tokio::test]
async fn a_view_in_a_language_covers_raw_requests_and_uploads_too() {
    let server = mock().await;
    let admin = client(&server, None);
    let english = admin.in_language(Language::ENGLISH);

    // A request built by hand.
    let url = format!("{}/shipments/999999999", server.base_url());
    let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("URL"));
    let answer = english
        .send_raw(request, "get_shipment")
        .await
        .expect("an answer");
    let body: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert_eq!(body["error"]["message"], NOT_FOUND_MESSAGE, "{body}");

    // Its own header wins.
    let url = format!("{}/shipments/999999999", server.base_url());
    let mut request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("URL"));
    request.headers_mut().insert(
        reqwest::header::ACCEPT_LANGUAGE,
        reqwest::header::HeaderValue::from_static("ar"),
    );
    let answer = english
        .send_raw(request, "get_shipment")
        .await
        .expect("an answer");
    let body: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert_eq!(body["error"]["message"], NOT_FOUND_MESSAGE_AR, "{body}");

    // A multipart upload (hand-written, through send_raw): a body, so Content-Language too.
    english
        .create_brand()
        .name("Acme")
        .logo(
            Part::bytes(vec![0x89, b'P', b'N', b'G'])
                .file_name("logo.png")
                .mime("image/png"),
        )
        .call_full()
        .await
        .expect("brand created");
    let upload = last(&server, "create_brand");
    assert_eq!(upload.header("accept-language"), Some("en"), "{upload:?}");
    assert_eq!(upload.header("content-language"), Some("en"), "{upload:?}");
}

#[tokio::test]
async fn no_request_carries_an_api_version_header() {
    let server = mock().await;
    let admin = client(&server, Some(Language::ENGLISH));
    admin
        .list_order_statuses()
        .call_full()
        .await
        .expect("statuses");
    let _ = add_unknown_language(&admin).await;
    admin
        .create_brand()
        .name("Acme")
        .logo(
            Part::bytes(vec![0x89, b'P', b'N', b'G'])
                .file_name("logo.png")
                .mime("image/png"),
        )
        .call_full()
        .await
        .expect("brand created");
    let url = format!("{}/orders", server.base_url());
    let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("URL"));
    admin
        .send_raw(request, "list_orders")
        .await
        .expect("an answer");

    let journal = server.journal();
    let operations: Vec<&str> = journal.iter().map(|e| e.operation_id.as_str()).collect();
    for expected in [
        "list_order_statuses",
        "add_languages",
        "create_brand",
        "list_orders",
    ] {
        assert!(operations.contains(&expected), "{operations:?}");
    }
    for entry in &journal {
        assert_eq!(entry.header("api-version"), None, "{entry:?}");
        // The journal is what the wire carried: the token is there, redacted.
        assert_eq!(
            entry.header("authorization"),
            Some("[redacted]"),
            "{entry:?}"
        );
    }
}

#[test]
fn a_wrong_language_is_an_error_never_a_header() {
    for hostile in ["en\r\nX-Injected: 1", "en\nX: y", "", "en us", "en_US", "*"] {
        let error = hostile.parse::<Language>().expect_err(hostile);
        let error = Error::from(error);
        assert!(matches!(&error, Error::InvalidRequest(_)), "{error:?}");
        let text = error.to_string();
        assert!(!text.contains('\n') && !text.contains('\r'), "{text:?}");
    }
}
