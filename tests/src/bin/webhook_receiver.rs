//! One replica of a service's webhook receiver, for the multi-process inbox test
//! (`tests/inbox.rs`): the [`Inbox`] mounted in axum on 127.0.0.1, deduplicating through Redis,
//! with a handler that appends `<event> <data.id>` to a shared file. It prints its URL as its first
//! line. Configured by environment variables (all set by the test):
//!
//! - `RECEIVER_REDIS_URL`, `RECEIVER_SECRET` (the signature strategy's secret);
//! - `RECEIVER_LOG`: the file the handler appends to;
//! - `RECEIVER_HANDLE_MILLIS`: how long the handler works on each event;
//! - `RECEIVER_FAIL_FIRST`: how many of its first calls the handler fails (a database down).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use secrecy::SecretString;
use store_admin::inbox::{Inbox, RedisDeduplicator, Security};
use store_admin::webhooks::WebhookEvent;

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

#[tokio::main]
async fn main() {
    let dedup = RedisDeduplicator::connect(&var("RECEIVER_REDIS_URL"))
        .await
        .expect("Redis reachable");
    let log = var("RECEIVER_LOG");
    let work = Duration::from_millis(var("RECEIVER_HANDLE_MILLIS").parse().unwrap_or(0));
    let fail_first: u64 = var("RECEIVER_FAIL_FIRST").parse().unwrap_or(0);
    let calls = Arc::new(AtomicU64::new(0));
    let handler = move |event: WebhookEvent| {
        let log = log.clone();
        let calls = calls.clone();
        async move {
            tokio::time::sleep(work).await;
            if calls.fetch_add(1, Ordering::SeqCst) < fail_first {
                return Err("the database is down".into());
            }
            let line = format!("{} {}\n", event.event, event.data["id"]);
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)?
                .write_all(line.as_bytes())?;
            Ok(())
        }
    };
    let inbox = Inbox::builder(
        Security::Signature(SecretString::from(var("RECEIVER_SECRET"))),
        handler,
    )
    .deduplicator(dedup)
    .build();
    let app = axum::Router::new().route_service("/hook", inbox);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    println!("http://{}/hook", listener.local_addr().expect("address"));
    axum::serve(listener, app).await.expect("serves");
}
