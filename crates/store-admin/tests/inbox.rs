//! The webhook inbox mounted in axum on 127.0.0.1 behind the mock store's deliveries: each event
//! handled once through the mock's retries and a replay, forged and oversized deliveries refused
//! before the handler, and missed changes caught up by reconciliation, once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use secrecy::SecretString;
use serde_json::{Value, json};
use store_admin::inbox::{Cursor, Inbox, MemoryDeduplicator, Security, reconcile};
use store_admin::prelude::*;
use store_admin::webhooks::{WebhookEvent, signed_headers, token_headers};
use store_admin::{PageOptions, StoreAdmin};
use store_admin_mock::{DeliveryConfig, MockConfig, MockServer};

const TOKEN: &str = "inbox-token";
const SECRET: &str = "inbox-secret";
const MERCHANT: i64 = 1_234_509_876;
const WAIT: Duration = Duration::from_secs(20);

async fn mock() -> MockServer {
    MockServer::start(
        MockConfig::new()
            .products(5)
            .token_all_scopes(TOKEN)
            .merchant_id(MERCHANT)
            .delivery(DeliveryConfig {
                max_attempts: 4,
                retry_delay: Duration::from_millis(50),
                timeout: Duration::from_secs(5),
            }),
    )
    .await
    .expect("mock starts")
}

/// The events a handler saw; it fails the first `fail_first` calls.
#[derive(Clone, Default)]
struct Seen {
    events: Arc<Mutex<Vec<WebhookEvent>>>,
    calls: Arc<Mutex<u32>>,
}

impl Seen {
    fn events(&self) -> Vec<WebhookEvent> {
        self.events.lock().unwrap().clone()
    }
}

fn inbox(seen: &Seen, security: Security, fail_first: u32) -> Inbox {
    let seen = seen.clone();
    Inbox::builder(security, move |event: WebhookEvent| {
        let seen = seen.clone();
        async move {
            let call = {
                let mut calls = seen.calls.lock().unwrap();
                *calls += 1;
                *calls
            };
            if call <= fail_first {
                return Err("the database is down".into());
            }
            seen.events.lock().unwrap().push(event);
            Ok(())
        }
    })
    .deduplicator(MemoryDeduplicator::new())
    .max_body_bytes(64 * 1024)
    .build()
}

/// Serves `inbox` at `/hook` on 127.0.0.1; the URL.
async fn serve(inbox: Inbox) -> String {
    let app = axum::Router::new().route_service("/hook", inbox);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

async fn api(server: &MockServer, method: reqwest::Method, path: &str, body: Value) -> Value {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", server.base_url()))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .expect("answer");
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    response.json().await.expect("json")
}

async fn subscribe(server: &MockServer, event: &str, url: &str) {
    api(
        server,
        reqwest::Method::POST,
        "/webhooks/subscribe",
        json!({"name": event, "event": event, "url": url, "version": 2,
               "security_strategy": "signature", "secret": SECRET}),
    )
    .await;
}

#[tokio::test]
async fn an_event_is_handled_once_through_the_services_retries_and_a_replay() {
    let server = mock().await;
    let seen = Seen::default();
    let url = serve(inbox(&seen, Security::Signature(SECRET.into()), 1)).await;
    subscribe(&server, "category.created", &url).await;
    api(
        &server,
        reqwest::Method::POST,
        "/categories",
        json!({"name": "Toys"}),
    )
    .await;
    let log = server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    let statuses: Vec<Option<u16>> = log.iter().map(|a| a.status).collect();
    assert_eq!(
        statuses,
        [Some(500), Some(200)],
        "the failed handler's delivery is answered 500 and resent: {log:?}"
    );
    let events = seen.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].event.to_string(), "category.created");
    assert_eq!(events[0].merchant, MERCHANT);
    assert_eq!(events[0].data["name"], "Toys");

    // The same delivery again (the service's resend, or a replay: the signature has no
    // timestamp): acknowledged, not handled again.
    let raw = log[1].body.clone().into_bytes();
    let secret = SecretString::from(SECRET);
    let replay = reqwest::Client::new()
        .post(&url)
        .headers(signed_headers(&secret, &raw))
        .body(raw)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), StatusCode::OK);
    assert_eq!(
        replay.json::<Value>().await.unwrap()["outcome"],
        "duplicate"
    );
    assert_eq!(seen.events().len(), 1);
}

#[tokio::test]
async fn forged_malformed_and_oversized_deliveries_never_reach_the_handler() {
    let seen = Seen::default();
    let url = serve(inbox(&seen, Security::Signature(SECRET.into()), 0)).await;
    let secret = SecretString::from(SECRET);
    let body = br#"{"event":"order.created","merchant":1,"created_at":"2024-01-01 10:00:00","data":{"id":1}}"#;
    let send = |headers: http::HeaderMap, body: Vec<u8>| {
        let url = url.clone();
        async move {
            let response = reqwest::Client::new()
                .post(url)
                .headers(headers)
                .body(body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            (status, response.text().await.unwrap())
        }
    };
    let mut tampered = body.to_vec();
    tampered[60] = b'9';
    let cases = [
        (
            "tampered",
            signed_headers(&secret, body),
            tampered,
            StatusCode::UNAUTHORIZED,
        ),
        (
            "signed with another secret",
            signed_headers(&SecretString::from("guess"), body),
            body.to_vec(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "the token strategy where the app chose the signature",
            token_headers(&secret).unwrap(),
            body.to_vec(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "no security headers",
            http::HeaderMap::new(),
            body.to_vec(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "not a delivery",
            signed_headers(&secret, b"{\"event\":"),
            b"{\"event\":".to_vec(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "larger than the bound",
            signed_headers(&secret, &vec![b' '; 100 * 1024]),
            vec![b' '; 100 * 1024],
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
    ];
    for (case, headers, body, expected) in cases {
        let (status, text) = send(headers, body).await;
        assert_eq!(status, expected, "{case}: {text}");
        assert!(!text.contains(SECRET), "{case}: the answer holds no secret");
    }
    let get = reqwest::get(&url).await.unwrap();
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(seen.events().is_empty());
    // And the authentic one passes.
    let (status, text) = send(signed_headers(&secret, body), body.to_vec()).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(seen.events().len(), 1);
}

#[tokio::test]
async fn token_and_none_strategies_are_honoured_as_configured() {
    let body = br#"{"event":"test","merchant":"7","created_at":"2024-01-01 10:00:00","data":{}}"#;
    let secret = SecretString::from(SECRET);
    let token = Inbox::builder(Security::Token(secret.clone()), |_: WebhookEvent| async {
        Ok(())
    })
    .build();
    assert_eq!(
        token
            .receive(&token_headers(&secret).unwrap(), body)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        token
            .receive(&signed_headers(&secret, b"other"), b"other")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    let none = Inbox::builder(Security::None, |_: WebhookEvent| async { Ok(()) }).build();
    assert_eq!(
        none.receive(&http::HeaderMap::new(), body).await.status(),
        StatusCode::OK
    );
    assert!(!format!("{token:?}").contains(SECRET), "{token:?}");
}

#[tokio::test]
async fn reconciliation_hands_on_missed_changes_once_and_deliveries_skip_them() {
    let server = mock().await;
    let seen = Seen::default();
    let inbox = inbox(&seen, Security::Signature(SECRET.into()), 0);
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .unwrap();
    let customers = || admin.list_customers().items(PageOptions::default()).boxed();
    let total = customers().count().await;
    assert!(total > 0, "the mock has customers");

    // No delivery reached the app (it was down): the first run hands every record on.
    let mut cursor = Cursor::default();
    let first = reconcile(&inbox, "customer", MERCHANT, customers(), &mut cursor)
        .await
        .unwrap();
    assert_eq!(first.read, total);
    assert_eq!(first.handled + first.unchanged, total, "{first:?}");
    assert!(first.handled > 0, "{first:?}");
    assert!(cursor.since.is_some());
    assert!(
        seen.events()
            .iter()
            .all(|e| e.event.to_string() == "customer.updated" && e.merchant == MERCHANT)
    );

    // Nothing changed: nothing is handed on again.
    let second = reconcile(&inbox, "customer", MERCHANT, customers(), &mut cursor)
        .await
        .unwrap();
    assert_eq!(second.handled, 0, "{second:?}");
    assert_eq!(seen.events().len(), first.handled);

    // A change a delivery brings is not handed on again by the next reconciliation.
    let url = serve(inbox.clone()).await;
    subscribe(&server, "customer.updated", &url).await;
    tokio::time::sleep(Duration::from_millis(1100)).await; // a new `updated_at` second
    let id = seen.events()[0].data["id"].clone();
    api(
        &server,
        reqwest::Method::PUT,
        &format!("/customers/{id}"),
        json!({"first_name": "Changed"}),
    )
    .await;
    server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    assert_eq!(seen.events().len(), first.handled + 1);
    let third = reconcile(&inbox, "customer", MERCHANT, customers(), &mut cursor)
        .await
        .unwrap();
    assert_eq!(third.handled, 0, "{third:?}");
    assert_eq!(third.already_handled, 1, "{third:?}");
    assert_eq!(seen.events().len(), first.handled + 1);
}
