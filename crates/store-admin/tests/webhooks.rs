//! Webhook verification and parsing against the service's documented sample delivery.

use secrecy::SecretString;
use store_admin::webhooks::{
    AppStoreAuthorize, EventName, Strategy, WebhookError, parse_event, sign, signed_headers,
    token_headers, verify, verify_and_parse,
};

const PAYLOAD: &[u8] = include_bytes!("fixtures/webhook_app.store.authorize.payload.json");

fn secret() -> SecretString {
    SecretString::from("a-long-webhook-secret-from-the-partner-portal")
}

#[test]
fn the_sample_delivery_verifies_with_signature_strategy_and_parses() {
    let headers = signed_headers(&secret(), PAYLOAD);
    assert_eq!(
        verify(&headers, PAYLOAD, &secret()).unwrap(),
        Strategy::Signature
    );
    let event = verify_and_parse(&headers, PAYLOAD, &secret()).unwrap();
    assert_eq!(event.event, EventName::AppStoreAuthorize);
    assert_eq!(event.merchant, 1_234_509_876);
    assert_eq!(event.created_at, "2022-12-31 12:31:25");
    assert_eq!(
        event.created_at_naive().unwrap().to_string(),
        "2022-12-31 12:31:25"
    );
}

#[test]
fn the_sample_delivery_verifies_with_token_strategy() {
    let headers = token_headers(&secret()).unwrap();
    assert_eq!(
        verify(&headers, PAYLOAD, &secret()).unwrap(),
        Strategy::Token
    );
}

#[test]
fn the_sample_authorize_data_becomes_a_token_set() {
    let event = parse_event(PAYLOAD).unwrap();
    let data: AppStoreAuthorize = event.data_as().unwrap();
    assert_eq!(data.token_type, "bearer");
    let tokens = data.into_token_set().unwrap();
    assert!(
        tokens
            .access
            .expose_secret()
            .starts_with("KGsnBcNNkR2AgHnrd0U9lCIjrUiukF")
    );
    assert!(tokens.refresh.is_some());
    assert_eq!(tokens.expires_at.timestamp(), 1_634_819_484);
    assert!(tokens.has_scope("offline_access"));
    // Debug of the decoded data hides the tokens.
    let debug = format!("{:?}", event.data_as::<AppStoreAuthorize>().unwrap());
    assert!(!debug.contains("KGsnBcNN"), "{debug}");
    assert!(!debug.contains("fWcceFWF"), "{debug}");
}

#[test]
fn whitespace_changes_to_the_raw_body_break_the_signature() {
    // Verification is on the exact bytes: re-serialized JSON is a different body.
    let headers = signed_headers(&secret(), PAYLOAD);
    let value: serde_json::Value = serde_json::from_slice(PAYLOAD).unwrap();
    let reserialized = serde_json::to_vec(&value).unwrap();
    assert_ne!(reserialized, PAYLOAD);
    assert!(matches!(
        verify(&headers, &reserialized, &secret()),
        Err(WebhookError::SignatureMismatch)
    ));
}

#[test]
fn signature_is_lowercase_hex_of_32_bytes() {
    let sig = sign(&secret(), PAYLOAD);
    assert_eq!(sig.len(), 64);
    assert!(
        sig.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
}
