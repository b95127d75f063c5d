//! `multipart/form-data` bodies are checked against the document's request schema like JSON
//! ones: a missing required field, a field below its `minLength`, a text field that is not of its
//! property's type, and a body that is no form at all are refused, naming the field.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::Value;

use crate::common;
use crate::common::{ADMIN, start};

fn logo() -> Part {
    Part::bytes(vec![0x89, b'P', b'N', b'G'])
        .file_name("logo.png")
        .mime_str("image/png")
        .expect("a media type")
}

async fn send(
    server: &store_admin_mock::MockServer,
    path: &str,
    form: Form,
) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", server.base_url()))
        .bearer_auth(ADMIN)
        .multipart(form)
        .send()
        .await
        .expect("the mock answers");
    let status = response.status();
    let body = response.json().await.expect("a JSON answer");
    (status, body)
}

#[tokio::test]
async fn a_valid_form_is_accepted() {
    let server = start().await;
    let form = Form::new().text("name", "Acme").part("logo", logo());
    let (status, body) = send(&server, "/brands", form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn missing_and_too_short_fields_are_named() {
    let server = start().await;
    let (status, body) = send(&server, "/brands", Form::new().text("name", "")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let fields = &body["error"]["fields"];
    assert!(
        fields["logo"].is_array(),
        "the missing file is named: {body}"
    );
    assert!(fields["name"].is_array(), "the empty name is named: {body}");

    // A form with a field, but not the file.
    let (status, body) = send(
        &server,
        "/custom-urls/import",
        Form::new().text("comment", "no file"),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["file"].is_array(), "{body}");
}

#[tokio::test]
async fn a_form_body_that_is_no_form_is_refused() {
    let server = start().await;
    let response = reqwest::Client::new()
        .post(format!("{}/custom-urls/import", server.base_url()))
        .bearer_auth(ADMIN)
        .header("content-type", "multipart/form-data; boundary=xyz")
        .body("[]")
        .send()
        .await
        .expect("the mock answers");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("the error envelope");
    assert_eq!(body["success"], false, "{body}");
}

/// What a merchant typed into a form is what the store keeps: a brand created with a form (or,
/// as the service also reads it, with a JSON object) is answered and read back with its name and
/// nested `metadata_*` fields, never with generated ones.
#[tokio::test]
async fn a_created_brand_keeps_the_fields_of_its_form() {
    let server = start().await;
    let form = Form::new()
        .text("name", "Acme Tools")
        .text("description", "Hand tools since 1990")
        .text("metadata_title", "Acme")
        .part("logo", logo());
    let (status, created) = send(&server, "/brands", form).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["data"]["name"], "Acme Tools", "{created}");
    assert_eq!(created["data"]["metadata"]["title"], "Acme", "{created}");
    let id = created["data"]["id"].to_string();
    let (status, read) = common::get(&server, &format!("/brands/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["name"], "Acme Tools", "{read}");
    assert_eq!(
        read["data"]["description"], "Hand tools since 1990",
        "{read}"
    );
    assert_ne!(read["data"]["logo"], "(file)", "a file is no text: {read}");

    let (status, created) = common::post(
        &server,
        "/brands",
        serde_json::json!({ "name": "Sent as JSON" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["data"]["name"], "Sent as JSON", "{created}");
}

/// Each of the five uploads refuses what its form schema refuses, in the validation envelope
/// naming the field: a missing file, a missing or unknown `type` of a products import, an empty
/// brand name; and accepts the same forms made valid.
#[tokio::test]
async fn every_upload_refuses_what_its_form_schema_refuses() {
    let server = start().await;
    let file = || Part::bytes(b"sku,price\nA-1,10\n".to_vec()).file_name("data.csv");
    let refused: Vec<(&str, Form, &str)> = vec![
        (
            "/brands",
            Form::new().text("name", "").part("logo", logo()),
            "name",
        ),
        ("/brands", Form::new().text("name", "Acme"), "logo"),
        ("/custom-urls/import", Form::new().text("note", "x"), "file"),
        ("/customers/import", Form::new().text("note", "x"), "file"),
        (
            "/orders/statuses/bulk",
            Form::new().text("note", "x"),
            "file",
        ),
        ("/products/import", Form::new().part("file", file()), "type"),
        (
            "/products/import",
            Form::new().part("file", file()).text("type", "everything"),
            "type",
        ),
        (
            "/products/import",
            Form::new().text("type", "prices"),
            "file",
        ),
    ];
    for (path, form, field) in refused {
        let (status, body) = send(&server, path, form).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
        assert_eq!(body["success"], false, "{path}: {body}");
        assert_eq!(body["status"], 422, "{path}: {body}");
        assert!(
            body["error"]["fields"][field].is_array(),
            "{path}: {field} is named: {body}"
        );
    }
    let accepted: Vec<(&str, Form)> = vec![
        (
            "/brands",
            Form::new().text("name", "Acme").part("logo", logo()),
        ),
        ("/custom-urls/import", Form::new().part("file", file())),
        ("/customers/import", Form::new().part("file", file())),
        ("/orders/statuses/bulk", Form::new().part("file", file())),
        (
            "/products/import",
            Form::new().part("file", file()).text("type", "prices"),
        ),
    ];
    for (path, form) in accepted {
        let (status, body) = send(&server, path, form).await;
        assert!(status.is_success(), "{path}: {status} {body}");
    }
}

/// The brand `id` as the brands list shows it with its translations.
async fn listed_brand(server: &store_admin_mock::MockServer, id: &str) -> Value {
    common::all_pages(server, "/brands?per_page=60&with=translations")
        .await
        .into_iter()
        .find(|b| b["id"].to_string().as_str() == id)
        .expect("the brand is listed")
}

/// A brand's translations read back as they were sent, in its details and in the list (with
/// `with=translations`): the bracketed fields of the create's form (`translations[en][name]`,
/// `translations[en][metadata][title]`) as the nested object Laravel reads them into, and an
/// update's JSON `translations` as it was sent.
#[tokio::test]
async fn a_brands_translations_read_back_as_sent() {
    let server = start().await;
    let form = Form::new()
        .text("name", "أكمي")
        .text("translations[en][name]", "Acme")
        .text("translations[en][metadata][title]", "Acme tools")
        .text(
            "translations[en][metadata][description]",
            "Tools since 1990",
        )
        .part("logo", logo());
    let (status, created) = send(&server, "/brands", form).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["data"]["id"].to_string();
    let sent = serde_json::json!({
        "en": { "name": "Acme", "metadata": { "title": "Acme tools", "description": "Tools since 1990" } }
    });
    assert_eq!(created["data"]["translations"], sent, "{created}");
    let (status, read) = common::get(&server, &format!("/brands/{id}?with=translations")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["translations"], sent, "{read}");
    assert_eq!(listed_brand(&server, &id).await["translations"], sent);

    let update = serde_json::json!({
        "name": "أكمي", "logo": "https://cdn.example/acme.png", "banner": "https://cdn.example/acme-banner.png",
        "description": "أدوات", "metadata_title": "أكمي", "metadata_description": "أدوات يدوية",
        "metadata_url": "acme",
        "translations": { "en": {
            "name": "Acme Tools", "description": "Hand tools", "metadata_title": "Acme",
            "metadata_description": "Hand tools since 1990", "metadata_url": "acme-tools",
        } },
    });
    let (status, updated) = common::put(&server, &format!("/brands/{id}"), update.clone()).await;
    assert!(status.is_success(), "{status} {updated}");
    assert_eq!(
        updated["data"]["translations"], update["translations"],
        "{updated}"
    );
    let (_, read) = common::get(&server, &format!("/brands/{id}?with=translations")).await;
    assert_eq!(
        read["data"]["translations"], update["translations"],
        "{read}"
    );
    assert_eq!(
        listed_brand(&server, &id).await["translations"],
        update["translations"]
    );
}

/// The brand `id` as the brands list `query` shows it.
async fn brand_in_list(server: &store_admin_mock::MockServer, query: &str, id: &str) -> Value {
    common::all_pages(server, &format!("/brands?per_page=60{query}"))
        .await
        .into_iter()
        .find(|b| b["id"].to_string().as_str() == id)
        .expect("the brand is listed")
}

/// Related data comes only when the request asks for it, as the document's include parameters
/// say (`with`): a brand's translations in its details and in the list only with
/// `with=translations`, an option template's values (`details`) only with `with=details`. The
/// store keeps them meanwhile: a read that asks again shows them as they were sent.
#[tokio::test]
async fn related_data_is_shown_only_when_asked_for() {
    let server = start().await;
    let form = Form::new()
        .text("name", "أكمي")
        .text("translations[en][name]", "Acme")
        .part("logo", logo());
    let (status, created) = send(&server, "/brands", form).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["data"]["id"].to_string();
    let sent = serde_json::json!({ "en": { "name": "Acme" } });

    let (status, read) = common::get(&server, &format!("/brands/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["name"], "أكمي", "{read}");
    assert!(read["data"].get("translations").is_none(), "{read}");
    let listed = brand_in_list(&server, "", &id).await;
    assert!(listed.get("translations").is_none(), "{listed}");
    let (_, read) = common::get(&server, &format!("/brands/{id}?with=translations")).await;
    assert_eq!(read["data"]["translations"], sent, "{read}");
    let listed = brand_in_list(&server, "&with=translations", &id).await;
    assert_eq!(listed["translations"], sent, "{listed}");

    let details = serde_json::json!({
        "id": 1, "name": "XL", "is_default": true, "display_value": "XL",
        "translation": { "ar": { "name": "كبير" }, "en": { "name": "XL" }, "fr": { "name": "XL" } },
    });
    let template = serde_json::json!({
        "name": "المقاس", "type": "radio", "display_type": "text", "details": details,
    });
    let (status, created) = common::post(&server, "/products/options/templates", template).await;
    assert!(status.is_success(), "{status} {created}");
    let template = created["data"]["id"].clone();
    let path = format!("/products/options/templates/{template}");
    let (status, read) = common::get(&server, &path).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["name"], "المقاس", "{read}");
    assert!(read["data"].get("details").is_none(), "{read}");
    let (_, read) = common::get(&server, &format!("{path}?with=details")).await;
    assert_eq!(read["data"]["details"], details, "{read}");
    let listed = common::all_pages(&server, "/products/options/templates?with=details")
        .await
        .into_iter()
        .find(|t| t["id"] == template)
        .expect("the template is listed");
    assert_eq!(listed["details"], details, "{listed}");
}
