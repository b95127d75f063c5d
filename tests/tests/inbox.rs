//! Two receiver processes (`src/bin/webhook_receiver.rs`) share a real Redis behind the mock
//! store's deliveries and retries: every event is delivered to both (two webhooks), one of them
//! fails its first calls and each takes a while per event, and still every event is handled
//! exactly once.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;
use store_admin_mock::{DeliveryConfig, MockConfig, MockServer};
use store_admin_tests::RedisServer;

const TOKEN: &str = "inbox-fleet";
const SECRET: &str = "inbox-fleet-secret";
const EVENTS: usize = 12;

/// A receiver process and its URL.
fn receiver(redis: &RedisServer, log: &std::path::Path, fail_first: u32) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_webhook_receiver"))
        .env("RECEIVER_REDIS_URL", redis.url())
        .env("RECEIVER_SECRET", SECRET)
        .env("RECEIVER_LOG", log)
        .env("RECEIVER_HANDLE_MILLIS", "150")
        .env("RECEIVER_FAIL_FIRST", fail_first.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the receiver starts");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the receiver prints its URL");
    (child, url.trim().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_receiver_processes_handle_every_event_exactly_once() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("handled.log");
    let (mut first, first_url) = receiver(&redis, &log, 3);
    let (mut second, second_url) = receiver(&redis, &log, 0);
    let server = MockServer::start(
        MockConfig::new()
            .products(5)
            .token_all_scopes(TOKEN)
            .delivery(DeliveryConfig {
                max_attempts: 4,
                retry_delay: Duration::from_millis(300),
                timeout: Duration::from_secs(5),
            }),
    )
    .await
    .expect("mock");
    let client = reqwest::Client::new();
    let post = |path: &str, body: serde_json::Value| {
        client
            .post(format!("{}{path}", server.base_url()))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
    };
    for url in [&first_url, &second_url] {
        let answer = post(
            "/webhooks/subscribe",
            json!({"name": "catalogue", "event": "category.created", "url": url,
                   "security_strategy": "signature", "secret": SECRET}),
        )
        .await
        .unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
    }
    let mut ids = Vec::new();
    for i in 0..EVENTS {
        let answer: serde_json::Value =
            post("/categories", json!({"name": format!("Category {i}")}))
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
        ids.push(answer["data"]["id"].to_string());
    }
    // Each event goes to both replicas (two webhooks), each delivery until answered 200 or its
    // attempts are spent.
    let attempts = server
        .wait_for_deliveries(Duration::from_secs(60), |log| {
            let settled = |hook: i64, body: &str| {
                let tries: Vec<_> = log
                    .iter()
                    .filter(|a| a.webhook_id == hook && a.body == body)
                    .collect();
                tries.iter().any(|a| a.delivered) || tries.len() >= 4
            };
            let bodies: std::collections::BTreeSet<(i64, &str)> = log
                .iter()
                .map(|a| (a.webhook_id, a.body.as_str()))
                .collect();
            bodies.len() == 2 * EVENTS && bodies.iter().all(|(hook, body)| settled(*hook, body))
        })
        .await;
    first.kill().ok();
    second.kill().ok();
    let _ = (first.wait(), second.wait());
    let handled = std::fs::read_to_string(&log).unwrap_or_default();
    let mut lines: Vec<&str> = handled.lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<String> = ids
        .iter()
        .map(|id| format!("category.created {id}"))
        .collect();
    expected.sort_unstable();
    assert_eq!(
        lines,
        expected,
        "every event handled exactly once; the deliveries: {:?}",
        attempts
            .iter()
            .map(|a| (a.webhook_id, a.attempt, a.status))
            .collect::<Vec<_>>()
    );
    let statuses: Vec<Option<u16>> = attempts.iter().map(|a| a.status).collect();
    assert!(
        statuses.contains(&Some(500)),
        "the failing replica's handler answered 500 and was resent: {statuses:?}"
    );
    assert!(
        attempts
            .iter()
            .all(|a| a.delivered || matches!(a.status, Some(409 | 500))),
        "nothing else was refused: {statuses:?}"
    );
}
