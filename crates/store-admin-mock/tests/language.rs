//! Error messages in Arabic and English, chosen by `Accept-Language` as the service chooses them
//! (Arabic by default), over HTTP; and the journal of what requests carried.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use store_admin_mock::{
    ErrorFault, FaultConfig, INVALID_TOKEN_MESSAGE, MockConfig, NOT_FOUND_MESSAGE,
    NOT_FOUND_MESSAGE_AR, RateLimitFault,
};

use crate::common::{ADMIN, client, start, start_with};

/// `method path` with the admin token, `Accept-Language: language` when given, and `body`.
async fn ask(
    server: &store_admin_mock::MockServer,
    method: Method,
    path: &str,
    language: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = client()
        .request(method, format!("{}{path}", server.base_url()))
        .bearer_auth(ADMIN);
    if let Some(language) = language {
        request = request.header("Accept-Language", language);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("sent");
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test]
async fn a_404_is_arabic_unless_english_is_asked_for() {
    let server = start().await;
    let path = "/shipments/999999999";
    for (language, expected) in [
        (None, NOT_FOUND_MESSAGE_AR),
        (Some("ar"), NOT_FOUND_MESSAGE_AR),
        (Some("fr-FR"), NOT_FOUND_MESSAGE_AR),
        (Some("*"), NOT_FOUND_MESSAGE_AR),
        (Some("en"), NOT_FOUND_MESSAGE),
        (Some("en-US"), NOT_FOUND_MESSAGE),
        (Some("fr-FR, en;q=0.5"), NOT_FOUND_MESSAGE),
        (Some("ar;q=0.3, en-GB;q=0.9"), NOT_FOUND_MESSAGE),
        (Some("en;q=0.3, ar;q=0.9"), NOT_FOUND_MESSAGE_AR),
        (Some("en;q=0"), NOT_FOUND_MESSAGE_AR),
    ] {
        let (status, body) = ask(&server, Method::GET, path, language, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{language:?}");
        assert_eq!(body["error"]["message"], expected, "{language:?}: {body}");
    }
}

#[tokio::test]
async fn field_errors_follow_the_language_and_the_message_key_does_not() {
    let server = start().await;
    // A body field the schema requires (the generic check) and an override's own check.
    let body = json!({"locales": [{"iso_code": "zzz"}]});
    let (status, arabic) = ask(
        &server,
        Method::POST,
        "/languages",
        None,
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{arabic}");
    let (_, english) = ask(&server, Method::POST, "/languages", Some("en"), Some(body)).await;
    assert_eq!(arabic["error"]["message"], "alert.invalid_fields");
    assert_eq!(english["error"]["message"], "alert.invalid_fields");
    assert_eq!(
        arabic["error"]["fields"]["locales.0.iso_code"],
        json!(["حقل locales.0.iso_code غير صالحٍ"])
    );
    assert_eq!(
        english["error"]["fields"]["locales.0.iso_code"],
        json!(["The locales.0.iso_code field is invalid."])
    );

    // A query parameter out of its bounds.
    let (_, arabic) = ask(&server, Method::GET, "/orders?per_page=61", None, None).await;
    let (_, english) = ask(
        &server,
        Method::GET,
        "/orders?per_page=61",
        Some("en"),
        None,
    )
    .await;
    assert_eq!(
        arabic["error"]["fields"]["per_page"],
        json!(["يجب ألا تكون قيمة per page أكبر من 60."])
    );
    assert_eq!(
        english["error"]["fields"]["per_page"],
        json!(["The per page may not be greater than 60."])
    );

    // A body that is not JSON: 400.
    let response = client()
        .post(format!("{}/languages", server.base_url()))
        .bearer_auth(ADMIN)
        .header("Content-Type", "application/json")
        .header("Accept-Language", "en")
        .body("{not json")
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("JSON");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("The request body is not valid JSON"),
        "{body}"
    );
}

#[tokio::test]
async fn every_message_of_a_required_field_is_arabic_by_default() {
    let server = start().await;
    // Every required field of the body missing: each named, each in Arabic (the service's
    // `حقل {field} مطلوب.`), and in English on request.
    let (status, arabic) = ask(&server, Method::POST, "/shipments", None, Some(json!({}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{arabic}");
    let (_, english) = ask(
        &server,
        Method::POST,
        "/shipments",
        Some("en"),
        Some(json!({})),
    )
    .await;
    let fields = arabic["error"]["fields"].as_object().expect("fields");
    assert!(!fields.is_empty(), "{arabic}");
    for (field, messages) in fields {
        for message in messages.as_array().expect("messages") {
            let message = message.as_str().unwrap_or_default();
            assert!(
                message
                    .chars()
                    .any(|c| ('\u{0600}'..='\u{06FF}').contains(&c)),
                "{field}: {message:?} is not Arabic"
            );
        }
        let english = english["error"]["fields"][field][0]
            .as_str()
            .unwrap_or_default();
        assert!(
            english.is_ascii() && !english.is_empty(),
            "{field}: {english:?} is not English"
        );
    }
    assert_eq!(
        english["error"]["fields"]["courier_id"][0],
        "The courier_id field is required."
    );
    assert_eq!(
        arabic["error"]["fields"]["courier_id"][0],
        "حقل courier_id مطلوب."
    );
}

#[tokio::test]
async fn the_token_guard_answers_in_english_whatever_the_language() {
    let server = start().await;
    for language in [None, Some("ar"), Some("en")] {
        let mut request = client().get(format!("{}/orders", server.base_url()));
        if let Some(language) = language {
            request = request.header("Accept-Language", language);
        }
        let response = request
            .bearer_auth("not-a-token")
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(
            body["error"]["message"], INVALID_TOKEN_MESSAGE,
            "{language:?}"
        );
    }
}

#[tokio::test]
async fn faults_and_refusals_of_the_http_layer_follow_the_language() {
    let server = start_with(
        MockConfig::new()
            .token_all_scopes(ADMIN)
            .faults(FaultConfig {
                errors: Some(ErrorFault {
                    rate: 1.0,
                    statuses: vec![503],
                    times: None,
                    operations: vec!["list_brands".into()],
                }),
                ..FaultConfig::default()
            }),
    )
    .await;
    let (status, arabic) = ask(&server, Method::GET, "/brands", None, None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{arabic}");
    let (_, english) = ask(&server, Method::GET, "/brands", Some("en"), None).await;
    assert_eq!(english["error"]["message"], "Service Unavailable");
    assert_eq!(arabic["error"]["message"], "الخدمة غير متاحة مؤقتًا");

    // A method the path does not take: 405.
    let (status, arabic) = ask(&server, Method::PATCH, "/orders", None, None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{arabic}");
    let (_, english) = ask(&server, Method::PATCH, "/orders", Some("en"), None).await;
    assert_eq!(english["error"]["message"], "The method is not allowed.");
    assert_eq!(arabic["error"]["message"], "طريقة الطلب غير مسموح بها.");

    // The rate limit: 429.
    let limited = start_with(
        MockConfig::new()
            .token_all_scopes(ADMIN)
            .faults(FaultConfig {
                rate_limit: Some(RateLimitFault {
                    per_minute: 1,
                    operations: Vec::new(),
                }),
                ..FaultConfig::default()
            }),
    )
    .await;
    let _ = ask(&limited, Method::GET, "/orders", None, None).await;
    let (status, arabic) = ask(&limited, Method::GET, "/orders", None, None).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{arabic}");
    let (_, english) = ask(&limited, Method::GET, "/orders", Some("en"), None).await;
    assert_eq!(english["error"]["message"], "Too Many Attempts.");
    assert_eq!(arabic["error"]["message"], "عدد كبير جدًا من المحاولات.");
}

#[tokio::test]
async fn the_journal_shows_the_headers_each_request_carried() {
    let server = start().await;
    ask(&server, Method::GET, "/orders?per_page=2", Some("en"), None).await;
    ask(
        &server,
        Method::POST,
        "/languages",
        None,
        Some(json!({"locales": []})),
    )
    .await;
    let journal = server.journal();
    assert_eq!(journal.len(), 2, "{journal:?}");
    assert_eq!(journal[0].operation_id, "list_orders");
    assert_eq!(journal[0].method, "GET");
    assert_eq!(journal[0].path, "/admin/v2/orders?per_page=2");
    assert_eq!(journal[0].header("accept-language"), Some("en"));
    assert_eq!(journal[0].header("authorization"), Some("[redacted]"));
    assert_eq!(journal[1].operation_id, "add_languages");
    assert_eq!(journal[1].header("accept-language"), None);
    assert_eq!(journal[1].header("content-type"), Some("application/json"));

    // The same over HTTP, without the token.
    let text = client()
        .get(server.base_url().replace("/admin/v2", "/__admin/journal"))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("body");
    assert!(!text.contains(ADMIN), "{text}");
    let listed: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    server.clear_journal();
    assert!(server.journal().is_empty());
}
