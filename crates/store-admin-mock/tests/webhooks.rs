//! Webhook deliveries to a receiver on 127.0.0.1: envelope, custom headers, signature, token,
//! retries and rules.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use store_admin_mock::{DeliveryConfig, MockConfig, MockServer};

use crate::common;
use crate::common::{ADMIN, post as api_post, start_with};

#[derive(Clone, Default)]
struct Receiver {
    seen: Arc<Mutex<Vec<(HeaderMap, Bytes)>>>,
    /// Statuses to answer, in order; 200 once exhausted.
    script: Arc<Mutex<Vec<u16>>>,
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    receiver.seen.lock().unwrap().push((headers, body));
    let mut script = receiver.script.lock().unwrap();
    let status = if script.is_empty() {
        200
    } else {
        script.remove(0)
    };
    StatusCode::from_u16(status).unwrap()
}

async fn receiver(script: Vec<u16>) -> (String, Receiver) {
    let receiver = Receiver {
        script: Arc::new(Mutex::new(script)),
        ..Receiver::default()
    };
    let app = Router::new()
        .route("/hook", post(receive))
        .with_state(receiver.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, receiver)
}

async fn mock() -> MockServer {
    start_with(
        MockConfig::new()
            .products(10)
            .token_all_scopes(ADMIN)
            .merchant_id(1_234_509_876)
            .delivery(DeliveryConfig {
                max_attempts: 3,
                retry_delay: Duration::from_millis(20),
                timeout: Duration::from_secs(5),
            }),
    )
    .await
}

const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn category_created_is_delivered_signed_with_custom_headers() {
    let server = mock().await;
    let (url, receiver) = receiver(vec![]).await;
    let (status, body) = api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "cats", "event": "category.created", "url": url,
               "headers": [{"key": "X-Team", "value": "catalogue"}],
               "security_strategy": "signature", "secret": "hush"}),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let (status, _) = api_post(&server, "/categories", json!({"name": "Toys"})).await;
    assert_eq!(status, reqwest::StatusCode::CREATED);
    let log = server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    assert_eq!(log.len(), 1, "{log:?}");
    let seen = receiver.seen.lock().unwrap().clone();
    let (headers, raw) = &seen[0];
    assert_eq!(headers["x-team"], "catalogue");
    assert_eq!(headers["x-salla-security-strategy"], "Signature");
    let expected = store_admin_mock::signature(b"hush", raw);
    assert_eq!(headers["x-salla-signature"], expected.as_str());
    let envelope: Value = serde_json::from_slice(raw).unwrap();
    assert_eq!(envelope["event"], "category.created");
    assert_eq!(envelope["merchant"], 1_234_509_876_i64);
    assert_eq!(envelope["data"]["name"], "Toys");
    let created_at = envelope["created_at"].as_str().unwrap();
    let written = chrono::NaiveDateTime::parse_from_str(created_at, "%Y-%m-%d %H:%M:%S")
        .unwrap_or_else(|_| panic!("{created_at}"));
    // In the store's time zone (Asia/Riyadh, UTC+3), as the service writes its dates: nearer
    // to the store's clock than to UTC's (not a timing assertion: the two are three hours apart).
    let utc = chrono::Utc::now().naive_utc();
    let store = utc + chrono::Duration::hours(3);
    assert!(
        (written - store).num_minutes().abs() < (written - utc).num_minutes().abs(),
        "{created_at} is not the store's time (UTC {utc})"
    );
}

#[tokio::test]
async fn failed_deliveries_are_retried_until_200_within_the_attempt_bound() {
    let server = mock().await;
    let (url, receiver) = receiver(vec![500, 503]).await;
    api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "t", "event": "test", "url": url, "security_strategy": "token", "secret": "tok-123"}),
    )
    .await;
    server.emit_event("test", json!({"hello": "world"}));
    let log = server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    let attempts: Vec<(u32, Option<u16>)> = log.iter().map(|a| (a.attempt, a.status)).collect();
    assert_eq!(
        attempts,
        vec![(1, Some(500)), (2, Some(503)), (3, Some(200))]
    );
    let seen = receiver.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3);
    for (headers, _) in &seen {
        assert_eq!(headers["x-salla-security-strategy"], "Token");
        assert_eq!(headers["authorization"], "tok-123");
    }
    // Every attempt carries the same body.
    assert!(seen.windows(2).all(|w| w[0].1 == w[1].1));
}

#[tokio::test]
async fn deliveries_stop_after_the_attempt_bound() {
    let server = mock().await;
    let (url, receiver) = receiver(vec![500, 500, 500, 500, 500]).await;
    api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "t", "event": "test", "url": url}),
    )
    .await;
    server.emit_event("test", json!({}));
    server.wait_for_deliveries(WAIT, |log| log.len() >= 3).await;
    // Give a fourth attempt the chance to happen (it must not).
    let log = server
        .wait_for_deliveries(Duration::from_millis(300), |log| log.len() > 3)
        .await;
    assert_eq!(log.len(), 3);
    assert!(log.iter().all(|a| !a.delivered));
    // No security headers without a strategy.
    let seen = receiver.seen.lock().unwrap().clone();
    assert!(
        seen.iter()
            .all(|(h, _)| !h.contains_key("x-salla-security-strategy"))
    );
}

#[tokio::test]
async fn version_2_rules_filter_events_and_version_1_ignores_them() {
    let server = mock().await;
    let (v2_url, v2) = receiver(vec![]).await;
    let (v1_url, v1) = receiver(vec![]).await;
    api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "big", "event": "shipment.created", "url": v2_url, "rule": "payment_method = `cod` AND total > 150"}),
    )
    .await;
    api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "v1", "event": "shipment.created", "url": v1_url, "version": 1, "rule": "total > 100000"}),
    )
    .await;
    let (_, companies) = common::get(&server, "/shipping/companies/").await;
    let courier = companies["data"][0]["id"].clone();
    for (payment, price) in [("cod", 50), ("pre_paid", 500), ("cod", 500)] {
        let (status, body) = api_post(
            &server,
            "/shipments",
            json!({"courier_id": courier, "shipment_type": "shipment", "payment_method": payment,
                   "packages": [{"name": "p", "price": {"amount": price, "currency": "SAR"}, "quantity": 1}]}),
        )
        .await;
        assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    }
    server
        .wait_for_deliveries(WAIT, |log| log.iter().filter(|a| a.delivered).count() >= 4)
        .await;
    let v2_seen = v2.seen.lock().unwrap().clone();
    assert_eq!(v2_seen.len(), 1);
    let envelope: Value = serde_json::from_slice(&v2_seen[0].1).unwrap();
    assert_eq!(envelope["data"]["payment_method"], "cod");
    assert_eq!(v1.seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn unsubscribed_webhooks_get_nothing() {
    let server = mock().await;
    let (url, receiver) = receiver(vec![]).await;
    let (_, hook) = api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "t", "event": "test", "url": url}),
    )
    .await;
    let (_, other) = receiver_and_subscribe(&server).await;
    common::delete(
        &server,
        &format!("/webhooks/unsubscribe?id={}", hook["data"]["id"]),
    )
    .await;
    server.emit_event("test", json!({}));
    server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    assert!(receiver.seen.lock().unwrap().is_empty());
    assert_eq!(other.seen.lock().unwrap().len(), 1);
}

async fn receiver_and_subscribe(server: &MockServer) -> (String, Receiver) {
    let (url, receiver) = receiver(vec![]).await;
    api_post(
        server,
        "/webhooks/subscribe",
        json!({"name": "other", "event": "test", "url": url}),
    )
    .await;
    (url, receiver)
}

#[tokio::test]
async fn an_approved_authorization_delivers_app_store_authorize_with_the_installation_s_tokens() {
    let server = start_with(
        MockConfig::new()
            .products(10)
            .token_all_scopes(ADMIN)
            .merchant_id(77)
            .oauth_client("app", "app-secret"),
    )
    .await;
    let (url, receiver) = receiver(vec![]).await;
    let (status, body) = api_post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "installs", "event": "app.store.authorize", "url": url,
               "security_strategy": "signature", "secret": "hush"}),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = no_redirects
        .get(server.authorize_url())
        .query(&[
            ("response_type", "code"),
            ("client_id", "app"),
            ("redirect_uri", "http://127.0.0.1:9/cb"),
            ("scope", "offline_access"),
            ("state", "s"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::FOUND);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let code = url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    let log = server
        .wait_for_deliveries(WAIT, |log| log.iter().any(|a| a.delivered))
        .await;
    assert_eq!(log.len(), 1, "{log:?}");
    let (headers, raw) = receiver.seen.lock().unwrap()[0].clone();
    assert_eq!(
        headers["x-salla-signature"],
        store_admin_mock::signature(b"hush", &raw).as_str()
    );
    let envelope: Value = serde_json::from_slice(&raw).unwrap();
    assert_eq!(envelope["event"], "app.store.authorize");
    assert_eq!(envelope["merchant"], 77);
    let data = &envelope["data"];
    assert_eq!(data["token_type"], "bearer");
    assert!(data["expires"].as_u64().unwrap() > 1_700_000_000);
    assert!(data["scope"].as_str().unwrap().contains("offline_access"));
    // The delivered pair is the one the code exchange answers.
    let form = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("grant_type", "authorization_code"),
            ("client_id", "app"),
            ("client_secret", "app-secret"),
            ("code", code.as_str()),
            ("redirect_uri", "http://127.0.0.1:9/cb"),
        ])
        .finish();
    let exchanged: Value = reqwest::Client::new()
        .post(server.token_url())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(exchanged["access_token"], data["access_token"]);
    assert_eq!(exchanged["refresh_token"], data["refresh_token"]);
    let (status, _) = common::call(
        &server,
        reqwest::Method::GET,
        "/orders",
        data["access_token"].as_str(),
        None,
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK);
}
