//! A webhook receiver (axum) that verifies each delivery on its raw body before parsing it,
//! drops duplicates (the service resends, so receivers must be idempotent) and answers 200. The
//! deliveries about the app's installations keep the merchants' tokens through [`Merchants`]:
//! `app.store.authorize` saves the store's new tokens, `app.uninstalled` revokes them (the store
//! then needs a reinstall).
//!
//! `cargo run -p store-admin --example receive_webhook`: against the embedded mock store, it
//! subscribes itself to `category.created`, `app.store.authorize` and `app.uninstalled`, creates a
//! category, has the merchant install the app (the mock's authorize endpoint approves at once and
//! delivers `app.store.authorize` with the store's tokens), lists the store's orders with them,
//! uninstalls the app, and exits. With `STORE_ADMIN_BASE_URL`/`STORE_ADMIN_TOKEN` set it serves
//! on `PORT` (default 8080) with the secret in `WEBHOOK_SECRET` until stopped, keeping tokens in
//! `TOKENS_DIR` (default `./store-admin-tokens`) when `STORE_ADMIN_CLIENT_ID` and
//! `STORE_ADMIN_CLIENT_SECRET` name the app.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use secrecy::SecretString;
use sha2::{Digest, Sha256};
use store_admin::credentials::{AuthError, FileTokenStores, InMemoryTokenStores, TokenStores};
use store_admin::merchants::Installation;
use store_admin::prelude::*;
use store_admin::webhooks::{WebhookEvent, verify_and_parse};
use store_admin::{Error, Merchants, OAuthApp, StoreAdmin, types};
use store_admin_mock::{MockConfig, MockServer};
use tokio::sync::mpsc;

/// Remembers the digests of the last deliveries to drop resends.
struct Seen {
    order: VecDeque<[u8; 32]>,
    set: HashSet<[u8; 32]>,
}

impl Seen {
    const CAPACITY: usize = 10_000;

    /// True the first time a body is seen.
    fn first_time(&mut self, body: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(body).into();
        if !self.set.insert(digest) {
            return false;
        }
        self.order.push_back(digest);
        if self.order.len() > Self::CAPACITY
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        true
    }
}

struct Receiver {
    secret: SecretString,
    seen: Mutex<Seen>,
    /// The app's installations, when the app's OAuth client is known.
    merchants: Option<Merchants>,
    events: mpsc::UnboundedSender<WebhookEvent>,
}

async fn receive(State(rx): State<Arc<Receiver>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    // Verify first, on the exact bytes received; parse only what verified.
    let event = match verify_and_parse(&headers, &body, &rx.secret) {
        Ok(event) => event,
        Err(e) => {
            eprintln!("rejected a delivery: {e}");
            return StatusCode::UNAUTHORIZED;
        }
    };
    let first = rx
        .seen
        .lock()
        .map(|mut seen| seen.first_time(&body))
        .unwrap_or(true);
    if first {
        if let Some(merchants) = &rx.merchants {
            // Saved before answering: if saving fails, a 500 makes the service resend it.
            match merchants.handle_event(&event).await {
                Ok(Installation::Authorized) => {
                    println!("merchant {}: tokens saved", event.merchant);
                }
                Ok(Installation::Uninstalled) => {
                    println!("merchant {}: tokens revoked", event.merchant);
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("merchant {}: {e}", event.merchant);
                    return StatusCode::INTERNAL_SERVER_ERROR;
                }
            }
        }
        let _ = rx.events.send(event);
    }
    // A duplicate is acknowledged too, so the service stops resending it.
    StatusCode::OK
}

/// The example's app against the embedded mock store.
const CLIENT_ID: &str = "example-app";
const CLIENT_SECRET: &str = "example-app-secret";

/// The client and the app's installations: against the service named by the environment, or
/// against an embedded mock store that knows the example's app.
async fn connect()
-> Result<(StoreAdmin, Option<Merchants>, Option<MockServer>), Box<dyn std::error::Error>> {
    if let (Ok(base_url), Ok(token)) = (
        std::env::var("STORE_ADMIN_BASE_URL"),
        std::env::var("STORE_ADMIN_TOKEN"),
    ) {
        let admin = StoreAdmin::builder()
            .with_base_url(&base_url)
            .with_token(token)
            .build()?;
        let merchants = match (
            std::env::var("STORE_ADMIN_CLIENT_ID"),
            std::env::var("STORE_ADMIN_CLIENT_SECRET"),
        ) {
            (Ok(id), Ok(secret)) => {
                let dir =
                    std::env::var("TOKENS_DIR").unwrap_or_else(|_| "store-admin-tokens".into());
                let stores: Arc<dyn TokenStores> = Arc::new(FileTokenStores::new(dir));
                let app = OAuthApp::new(id, SecretString::from(secret));
                Some(Merchants::with_template(
                    app,
                    stores,
                    StoreAdmin::builder().with_base_url(base_url),
                )?)
            }
            _ => None,
        };
        return Ok((admin, merchants, None));
    }
    let server = MockServer::start(
        MockConfig::new()
            .token_all_scopes("example-token")
            .oauth_client(CLIENT_ID, CLIENT_SECRET),
    )
    .await?;
    eprintln!(
        "(no STORE_ADMIN_BASE_URL: using the embedded mock store at {})",
        server.base_url()
    );
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("example-token")
        .build()?;
    let app = OAuthApp::new(CLIENT_ID, SecretString::from(CLIENT_SECRET))
        .with_token_url(url::Url::parse(&server.token_url())?);
    let merchants = Merchants::with_template(
        app,
        Arc::new(InMemoryTokenStores::new()),
        StoreAdmin::builder().with_base_url(server.base_url()),
    )?;
    Ok((admin, Some(merchants), Some(server)))
}

/// The next event named `name` (others are printed and skipped).
async fn next_event(
    events: &mut mpsc::UnboundedReceiver<WebhookEvent>,
    name: &str,
) -> Result<WebhookEvent, Box<dyn std::error::Error>> {
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await?
            .ok_or("the receiver stopped")?;
        if event.event.as_str() == name {
            return Ok(event);
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (admin, merchants, mock) = connect().await?;
    let secret =
        std::env::var("WEBHOOK_SECRET").unwrap_or_else(|_| "example-webhook-secret".into());
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let receiver = Arc::new(Receiver {
        secret: SecretString::from(secret.clone()),
        seen: Mutex::new(Seen {
            order: VecDeque::new(),
            set: HashSet::new(),
        }),
        merchants,
        events: events_tx,
    });
    let app = axum::Router::new()
        .route("/webhooks", post(receive))
        .with_state(receiver.clone());
    let port = if mock.is_some() {
        0
    } else {
        std::env::var("PORT")
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or(8080)
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let url = format!("http://{}/webhooks", listener.local_addr()?);
    println!("receiving webhooks at {url}");
    tokio::spawn(async move { axum::serve(listener, app).await });

    let Some(mock) = mock else {
        while let Some(event) = events.recv().await {
            println!(
                "{} for merchant {}: {}",
                event.event, event.merchant, event.data
            );
        }
        return Ok(());
    };

    for (name, event) in [
        ("Categories", "category.created"),
        ("Installations", "app.store.authorize"),
        ("Uninstallations", "app.uninstalled"),
    ] {
        admin
            .subscribe_webhook()
            .body(
                types::SubscribeWebhookRequest::builder()
                    .name(name)
                    .event(event.to_string())
                    .url(url.clone())
                    .security_strategy(types::SecurityStrategy(Some(
                        types::SecurityStrategyInner::Signature,
                    )))
                    .secret(Some(secret.clone())),
            )
            .call()
            .await?;
    }
    admin
        .create_category()
        .body(types::CreateCategoryRequest::builder().name("Webhook demo"))
        .call()
        .await?;
    let event = next_event(&mut events, "category.created").await?;
    println!(
        "verified delivery: {} (merchant {}) data {}",
        event.event, event.merchant, event.data
    );

    // The merchant installs the app: the mock's authorize endpoint approves at once and tells the
    // app's webhook the store's tokens (the redirect to the app's callback is not followed here).
    let approval = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?
        .get(mock.authorize_url())
        .query(&[
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("scope", "offline_access"),
        ])
        .send()
        .await?;
    println!("the merchant approved the app (HTTP {})", approval.status());
    let installed = next_event(&mut events, "app.store.authorize").await?;
    let merchant = installed.merchant.to_string();
    let merchants = receiver.merchants.as_ref().ok_or("no app")?;
    let orders = merchants.store(&merchant)?.list_orders().call().await?;
    println!(
        "merchant {merchant}: {} orders on the first page, with the delivered tokens",
        orders.data.len()
    );

    // The merchant uninstalls the app: its tokens are revoked.
    mock.emit_event("app.uninstalled", serde_json::json!({}));
    next_event(&mut events, "app.uninstalled").await?;
    match merchants.store(&merchant)?.list_orders().call().await {
        Err(Error::Auth(AuthError::ReinstallRequired { .. })) => {
            println!("merchant {merchant}: the app must be installed again, as expected");
            Ok(())
        }
        other => Err(format!("expected a reinstall after app.uninstalled, got {other:?}").into()),
    }
}
