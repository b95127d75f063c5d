//! An app's OAuth callback (axum) for installs started from the platform's app store: the
//! merchant's browser arrives with a single-use `code` and the platform's own `state`; the
//! callback exchanges the code once, learns the merchant from the user information, and saves
//! the tokens in the app's token stores, which [`Merchants`] then calls the store with.
//!
//! `cargo run -p store-admin --example install_callback`: against the embedded mock store, it
//! serves the callback on 127.0.0.1, has merchant 4242 install the app from the mock's "app
//! store" (its browser follows the redirect to the callback), visits the same callback URL again
//! (refused: a code is single use), lists the merchant's orders with the saved tokens, prints the
//! health of every store and exits. With `STORE_ADMIN_CLIENT_ID`, `STORE_ADMIN_CLIENT_SECRET`
//! and `CALLBACK_URL` (the callback registered with the platform) set, it serves that callback
//! on `PORT` (default 8080) against the live service until stopped, keeping tokens in
//! `TOKENS_DIR` (default `./store-admin-tokens`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::response::IntoResponse;
use axum::routing::get;
use secrecy::SecretString;
use store_admin::credentials::{
    FileTokenStores, InMemoryTokenStores, InstallCallback, TokenStores,
};
use store_admin::prelude::*;
use store_admin::{Merchants, OAuthApp, StoreAdmin};
use store_admin_mock::{MockConfig, MockServer};

const CALLBACK_PATH: &str = "/oauth/callback";

/// The callback as an axum handler (with the `axum` feature, `credentials::axum_callback` is
/// this same function).
async fn callback(State(callback): State<Arc<InstallCallback>>, uri: Uri) -> impl IntoResponse {
    callback.respond(&uri).await
}

fn router(install: Arc<InstallCallback>) -> axum::Router {
    axum::Router::new()
        .route(CALLBACK_PATH, get(callback))
        .with_state(install)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let (Ok(id), Ok(secret), Ok(callback_url)) = (
        std::env::var("STORE_ADMIN_CLIENT_ID"),
        std::env::var("STORE_ADMIN_CLIENT_SECRET"),
        std::env::var("CALLBACK_URL"),
    ) {
        let dir = std::env::var("TOKENS_DIR").unwrap_or_else(|_| "store-admin-tokens".into());
        let app = OAuthApp::new(id, SecretString::from(secret));
        let install = InstallCallback::new(
            app,
            url::Url::parse(&callback_url)?,
            Arc::new(FileTokenStores::new(dir)),
        );
        let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
        let listener = tokio::net::TcpListener::bind(format!("0.0.0.0:{port}")).await?;
        eprintln!("serving {CALLBACK_PATH} on port {port}");
        axum::serve(listener, router(Arc::new(install))).await?;
        return Ok(());
    }

    let mock = MockServer::start(
        MockConfig::new()
            .products(20)
            .oauth_client("example-app", "example-secret"),
    )
    .await?;
    eprintln!("(using the embedded mock store at {})", mock.base_url());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let redirect = url::Url::parse(&format!("http://{}{CALLBACK_PATH}", listener.local_addr()?))?;
    let app = OAuthApp::new("example-app", SecretString::from("example-secret"))
        .with_token_url(url::Url::parse(&mock.token_url())?);
    let stores: Arc<dyn TokenStores> = Arc::new(InMemoryTokenStores::new());
    let install = InstallCallback::new(app.clone(), redirect.clone(), stores.clone());
    tokio::spawn(async move { axum::serve(listener, router(Arc::new(install))).await });

    // Merchant 4242 installs the app from the app store; the browser follows the redirect.
    let location = mock.install_from_app_store(redirect.as_str(), 4242)?;
    let browser = reqwest::Client::new();
    let page = browser.get(&location).send().await?;
    println!("callback: {} {}", page.status(), page.text().await?.trim());
    // The page reloaded: the code was used already.
    let again = browser.get(&location).send().await?;
    println!(
        "again:    {} {}",
        again.status(),
        again.text().await?.trim()
    );

    // Every process of the app calls the store with the saved tokens.
    let merchants = Merchants::with_template(
        app,
        stores,
        StoreAdmin::builder().with_base_url(mock.base_url()),
    )?;
    let orders = merchants.store("4242")?.list_orders().call().await?;
    println!(
        "merchant 4242: {} orders on the first page",
        orders.data.len()
    );
    for store in merchants.health().await? {
        println!(
            "store {}: {} (expires {:?}, needs attention: {})",
            store.merchant,
            store.state.as_str(),
            store.expires_at,
            store.needs_attention()
        );
    }
    Ok(())
}
