//! A webhook receiver (axum) that verifies each delivery on its raw body before parsing it,
//! drops duplicates (the service resends, so receivers must be idempotent) and answers 200.
//!
//! `cargo run -p store-admin --example receive_webhook`: against the embedded mock store, it
//! subscribes itself to `category.created`, creates a category, prints the verified delivery and
//! exits. With `STORE_ADMIN_BASE_URL`/`STORE_ADMIN_TOKEN` set it serves on `PORT` (default 8080)
//! with the secret in `WEBHOOK_SECRET` until stopped.

mod common;

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use secrecy::SecretString;
use sha2::{Digest, Sha256};
use store_admin::prelude::*;
use store_admin::types;
use store_admin::webhooks::{WebhookEvent, verify_and_parse};
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
        let _ = rx.events.send(event);
    }
    // A duplicate is acknowledged too, so the service stops resending it.
    StatusCode::OK
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (admin, mock) = common::connect().await?;
    let secret =
        std::env::var("WEBHOOK_SECRET").unwrap_or_else(|_| "example-webhook-secret".into());
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let receiver = Arc::new(Receiver {
        secret: SecretString::from(secret.clone()),
        seen: Mutex::new(Seen {
            order: VecDeque::new(),
            set: HashSet::new(),
        }),
        events: events_tx,
    });
    let app = axum::Router::new()
        .route("/webhooks", post(receive))
        .with_state(receiver);
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

    if mock.is_none() {
        while let Some(event) = events.recv().await {
            println!(
                "{} for merchant {}: {}",
                event.event, event.merchant, event.data
            );
        }
        return Ok(());
    }

    admin
        .subscribe_webhook()
        .body(
            types::SubscribeWebhookRequest::builder()
                .name("Categories")
                .event("category.created".to_string())
                .url(url)
                .security_strategy(types::SecurityStrategy(Some(
                    types::SecurityStrategyInner::Signature,
                )))
                .secret(Some(secret)),
        )
        .send()
        .await?;
    admin
        .create_category()
        .body(types::CreateCategoryRequest::builder().name("Webhook demo"))
        .send()
        .await?;
    let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
        .await?
        .ok_or("the receiver stopped")?;
    println!(
        "verified delivery: {} (merchant {}) data {}",
        event.event, event.merchant, event.data
    );
    Ok(())
}
