//! No type of the crate shows a secret in `Debug` or `Display`.

use std::sync::Arc;

use secrecy::SecretString;
use store_admin::credentials::{
    AccessToken, AuthError, Authenticator, Credentials, InMemoryTokenStore, OAuthError,
    RefreshToken, TokenLease, TokenSet, TokenStoreError,
};
use store_admin::webhooks::{
    AppStoreAuthorize, WebhookError, signed_headers, token_headers, verify,
};

const ACCESS: &str = "ACCESS-SECRET-123";
const REFRESH: &str = "REFRESH-SECRET-456";
const CLIENT: &str = "CLIENT-SECRET-789";
const HOOK: &str = "WEBHOOK-SECRET-000";

fn assert_clean(what: &str, text: &str) {
    for secret in [ACCESS, REFRESH, CLIENT, HOOK] {
        assert!(!text.contains(secret), "{what} shows a secret: {text}");
    }
}

fn token_set() -> TokenSet {
    TokenSet {
        access: AccessToken::new(ACCESS),
        refresh: Some(RefreshToken::new(REFRESH)),
        expires_at: chrono::Utc::now(),
        scope: "orders.read".into(),
    }
}

#[test]
fn credential_types_hide_their_secrets() {
    let creds = Credentials::oauth(
        "client-id",
        SecretString::from(CLIENT),
        Arc::new(InMemoryTokenStore::with_tokens(token_set())),
    );
    assert_clean("AccessToken", &format!("{:?}", AccessToken::new(ACCESS)));
    assert_clean("RefreshToken", &format!("{:?}", RefreshToken::new(REFRESH)));
    assert_clean("TokenSet", &format!("{:?}", token_set()));
    assert_clean("Credentials::OAuth", &format!("{creds:?}"));
    assert_clean(
        "Credentials::Static",
        &format!("{:?}", Credentials::bearer(ACCESS)),
    );
    assert_clean(
        "InMemoryTokenStore",
        &format!("{:?}", InMemoryTokenStore::with_tokens(token_set())),
    );
    assert_clean(
        "Authenticator",
        &format!("{:?}", Authenticator::new(creds, reqwest::Client::new())),
    );
    assert_clean(
        "TokenLease",
        &format!(
            "{:?}",
            TokenLease {
                generation: Default::default(),
                token: AccessToken::new(ACCESS)
            }
        ),
    );
    let header = AccessToken::new(ACCESS).bearer_header().unwrap();
    assert_clean("bearer header", &format!("{header:?}"));
}

#[test]
fn errors_hide_secrets() {
    let errors: Vec<Box<dyn std::error::Error>> = vec![
        Box::new(AuthError::NoTokens),
        Box::new(AuthError::NoRefreshToken),
        Box::new(AuthError::StaticTokenRejected),
        Box::new(AuthError::InvalidTokenCharacters),
        Box::new(OAuthError::InvalidGrant { description: None }),
        Box::new(TokenStoreError::new("disk full")),
    ];
    for e in &errors {
        assert_clean("error", &format!("{e} {e:?}"));
    }
}

#[test]
fn webhook_errors_and_headers_hide_the_secret() {
    let secret = SecretString::from(HOOK);
    let body = b"{}";
    let mut headers = signed_headers(&SecretString::from("other"), body);
    let err: WebhookError = verify(&headers, body, &secret).unwrap_err();
    assert_clean("signature mismatch", &format!("{err} {err:?}"));
    headers.insert("x-salla-security-strategy", "Token".parse().unwrap());
    headers.insert("authorization", "wrong".parse().unwrap());
    let err = verify(&headers, body, &secret).unwrap_err();
    assert_clean("token mismatch", &format!("{err} {err:?}"));
    let token = token_headers(&secret).unwrap();
    assert_clean("token headers", &format!("{token:?}"));
    assert_clean("secret", &format!("{secret:?}"));
}

#[test]
fn decoded_authorize_data_hides_tokens() {
    let data: AppStoreAuthorize = serde_json::from_value(serde_json::json!({
        "access_token": ACCESS,
        "refresh_token": REFRESH,
        "expires": 1634819484,
        "scope": "offline_access",
        "token_type": "bearer"
    }))
    .unwrap();
    assert_clean("AppStoreAuthorize", &format!("{data:?}"));
    let tokens = data.into_token_set().unwrap();
    assert_clean("TokenSet", &format!("{tokens:?}"));
}
