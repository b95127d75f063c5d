//! 64 concurrent clients doing mixed reads and writes: no errors, nothing lost, no duplicate ids.

use std::collections::HashSet;

use reqwest::StatusCode;
use serde_json::{Value, json};
use store_admin_mock::MockConfig;

use crate::common;
use crate::common::{ADMIN, all_pages, start_with};

const CLIENTS: usize = 64;
const SHIPMENTS_EACH: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_clients_mixing_reads_and_writes_leave_consistent_state() {
    let server = start_with(
        MockConfig::new()
            .seed(3)
            .products(300)
            .token_all_scopes(ADMIN),
    )
    .await;
    let base = server.base_url().to_owned();
    let shipments_before = all_pages(&server, "/shipments?per_page=60").await.len();
    let webhooks_before = all_pages(&server, "/webhooks?per_page=60").await.len();
    let (_, companies) = common::get(&server, "/shipping/companies/").await;
    let courier = companies["data"][0]["id"].as_i64().unwrap();

    let mut tasks = Vec::new();
    for client_no in 0..CLIENTS {
        let base = base.clone();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut created = Vec::new();
            for round in 0..SHIPMENTS_EACH {
                let page = (client_no + round) % 5 + 1;
                let read = http
                    .get(format!("{base}/products/quantities?per_page=60&page={page}"))
                    .bearer_auth(ADMIN)
                    .send()
                    .await
                    .expect("read sent");
                assert_eq!(read.status(), StatusCode::OK);
                let write = http
                    .post(format!("{base}/shipments"))
                    .bearer_auth(ADMIN)
                    .json(&json!({
                        "courier_id": courier, "shipment_type": "shipment", "payment_method": "pre_paid",
                        "description": format!("client {client_no} round {round}"),
                        "packages": [{"name": "p", "price": {"amount": 5, "currency": "SAR"}, "quantity": 1}]
                    }))
                    .send()
                    .await
                    .expect("write sent");
                assert_eq!(write.status(), StatusCode::OK);
                let body: Value = write.json().await.expect("json");
                created.push(body["data"]["id"].as_i64().expect("id"));
                let own = http
                    .get(format!("{base}/shipments/{}", created[round]))
                    .bearer_auth(ADMIN)
                    .send()
                    .await
                    .expect("own read sent");
                assert_eq!(own.status(), StatusCode::OK);
            }
            let hook = http
                .post(format!("{base}/webhooks/subscribe"))
                .bearer_auth(ADMIN)
                .json(&json!({"name": "c", "event": "order.created", "url": format!("https://client{client_no}.example/hook")}))
                .send()
                .await
                .expect("subscribe sent");
            assert_eq!(hook.status(), StatusCode::OK);
            created
        }));
    }
    let mut created = Vec::new();
    for task in tasks {
        created.extend(task.await.expect("client finished without panicking"));
    }
    assert_eq!(created.len(), CLIENTS * SHIPMENTS_EACH);
    let unique: HashSet<i64> = created.iter().copied().collect();
    assert_eq!(unique.len(), created.len(), "duplicate ids handed out");

    let shipments = all_pages(&server, "/shipments?per_page=60").await;
    assert_eq!(shipments.len(), shipments_before + created.len());
    let listed: HashSet<i64> = shipments
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(listed.len(), shipments.len(), "a shipment is listed twice");
    assert!(unique.is_subset(&listed), "a created shipment is missing");

    let webhooks = all_pages(&server, "/webhooks?per_page=60").await;
    assert_eq!(webhooks.len(), webhooks_before + CLIENTS);
    let hook_ids: HashSet<i64> = webhooks.iter().map(|w| w["id"].as_i64().unwrap()).collect();
    assert_eq!(hook_ids.len(), webhooks.len());
}
