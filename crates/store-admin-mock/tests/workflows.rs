//! Workflows act on the store as the service does (issue 40): a status change writes an entry of
//! the order's history, a delivered shipment cannot be cancelled, a refund changes the
//! transaction it refunds; each read after the write shows it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{all_pages, get, post, start};

/// A status change (by id with a note, by slug without one) adds an `activity` entry naming the
/// new status to the order's history, newest first; a refused change adds none, and another
/// order's history is left as it was.
#[tokio::test]
async fn a_status_change_writes_an_entry_of_the_orders_history() {
    let server = start().await;
    let (_, orders) = get(&server, "/orders?per_page=2").await;
    let order = orders["data"][0]["id"].as_i64().expect("an order");
    let other = orders["data"][1]["id"].as_i64().expect("another order");
    let history = |id: i64| {
        let server = &server;
        async move { all_pages(server, &format!("/orders/{id}/histories")).await }
    };
    let before = history(order).await;
    let other_before = history(other).await;
    let statuses = all_pages(&server, "/orders/statuses").await;
    let target = statuses
        .iter()
        .find(|s| s["slug"] != orders["data"][0]["status"]["slug"] && s["id"].is_i64())
        .expect("another status");

    let (status, body) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": target["id"], "note": "Packed and handed over"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, read) = get(&server, &format!("/orders/{order}")).await;
    let shown_name = read["data"]["status"]["name"].clone();
    let after = history(order).await;
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    let entry = &after[0];
    assert_eq!(entry["type"], "activity", "{entry}");
    assert_eq!(entry["note"], "Packed and handed over", "{entry}");
    assert_eq!(
        entry["status"], shown_name,
        "the status the order now shows: {entry}"
    );
    assert!(entry["id"].is_i64(), "{entry}");
    assert!(
        entry["created_at"]["date"].is_string() || entry["created_at"].is_string(),
        "{entry}"
    );

    let slug = statuses
        .iter()
        .find(|s| s["slug"].is_string() && s["slug"] != target["slug"])
        .expect("a third status");
    let (status, body) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"slug": slug["slug"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, read) = get(&server, &format!("/orders/{order}")).await;
    let again = history(order).await;
    assert_eq!(again.len(), before.len() + 2);
    assert_eq!(
        again[0]["status"], read["data"]["status"]["name"],
        "{}",
        again[0]
    );
    assert!(again[0]["note"].is_null(), "no note sent: {}", again[0]);
    assert_eq!(
        again[1]["id"], entry["id"],
        "the first entry is still there"
    );

    let (status, _) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": 424242, "note": "never"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        history(order).await.len(),
        before.len() + 2,
        "a refused change writes nothing"
    );
    assert_eq!(
        history(other).await,
        other_before,
        "another order's history"
    );
}

fn amount(money: &Value) -> f64 {
    match money.get("amount").unwrap_or(money) {
        Value::Number(n) => n.as_f64().expect("a number"),
        Value::String(s) => s.parse().expect("a decimal string"),
        other => panic!("no amount in {money}: {other}"),
    }
}

/// A delivered shipment is not cancelled (422, and it keeps its status and tracking number); a
/// shipment on its way is, and keeps its tracking number.
#[tokio::test]
async fn a_delivered_shipment_is_not_cancelled_and_a_cancelled_one_keeps_its_tracking_number() {
    let server = start().await;
    let shipments = all_pages(&server, "/shipments").await;
    let delivered = shipments
        .iter()
        .find(|s| s["status"] == "delivered")
        .expect("a delivered shipment");
    let id = &delivered["id"];
    let (status, body) = post(&server, &format!("/shipments/{id}/cancel"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["status"].is_array(), "{body}");
    let (_, read) = get(&server, &format!("/shipments/{id}")).await;
    assert_eq!(read["data"]["status"], "delivered");
    assert_eq!(
        read["data"]["tracking_number"],
        delivered["tracking_number"]
    );
    let (_, tracking) = get(&server, &format!("/shipments/{id}/tracking")).await;
    assert_ne!(
        tracking["data"]["history"][0]["status"], "cancelled",
        "{tracking}"
    );
    // The order's own cancel-shipment is refused the same when its shipment is delivered.
    let order = &delivered["order_id"];
    let newest_open = shipments
        .iter()
        .filter(|s| s["order_id"] == *order && s["status"] != "cancelled")
        .max_by_key(|s| s["created_at"].to_string());
    if newest_open.is_some_and(|s| s["id"] == *id) {
        let (status, body) = post(
            &server,
            &format!("/orders/{order}/cancel-shipment"),
            json!({}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }

    let moving = shipments
        .iter()
        .find(|s| {
            ["shipped", "delivering", "creating", "created"]
                .contains(&s["status"].as_str().unwrap_or(""))
                && s["tracking_number"].as_str().is_some_and(|t| !t.is_empty())
        })
        .expect("a shipment on its way with a tracking number");
    let id = &moving["id"];
    let (status, body) = post(&server, &format!("/shipments/{id}/cancel"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["status"], "cancelled");
    assert_eq!(
        body["data"]["tracking_number"], moving["tracking_number"],
        "{body}"
    );
    let (_, read) = get(&server, &format!("/shipments/{id}")).await;
    assert_eq!(read["data"]["status"], "cancelled");
    assert_eq!(
        read["data"]["tracking_number"], moving["tracking_number"],
        "{read}"
    );
}

/// A refund changes the transaction: partly, then the rest, each read back by its get and the
/// list; what is refunded is bounded by what is left (422 past it, and for a transaction that
/// cannot be refunded), and in the transaction's currency.
#[tokio::test]
async fn a_refund_changes_the_transaction_and_reads_back() {
    let server = start().await;
    let transactions = all_pages(&server, "/transactions").await;
    let paid = transactions
        .iter()
        .find(|t| t["status"]["slug"] == "paid" && amount(&t["total"]) >= 2.0)
        .expect("a paid transaction");
    let id = &paid["id"];
    let total = amount(&paid["total"]);
    let currency = paid["total"]["currency"]
        .as_str()
        .unwrap_or("SAR")
        .to_owned();
    let put = |body: Value| {
        let server = &server;
        async move {
            crate::common::call(
                server,
                reqwest::Method::PUT,
                &format!("/transactions/{id}"),
                Some(crate::common::ADMIN),
                Some(body),
            )
            .await
        }
    };
    let read = || {
        let server = &server;
        async move {
            let (status, body) = get(server, &format!("/transactions/{id}")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            body["data"].clone()
        }
    };

    let (status, body) = put(json!({"action": "refund", "amount": total + 1.0})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["amount"].is_array(), "{body}");
    let (status, body) = put(json!({"action": "refund", "amount": 1, "currency": "XXX"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        read().await["status"]["slug"],
        "paid",
        "a refused refund changes nothing"
    );

    let (status, body) =
        put(json!({"action": "refund", "amount": "1.00", "currency": currency})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(body["data"]["message"].is_string(), "{body}");
    let after = read().await;
    assert_eq!(after["status"]["slug"], "partial_refunded", "{after}");
    assert!(after.get("__refunded").is_none(), "{after}");
    let listed = all_pages(&server, "/transactions").await;
    let shown = listed.iter().find(|t| t["id"] == *id).expect("listed");
    assert_eq!(shown["status"], after["status"], "the list shows it too");

    let left = ((total - 1.0) * 100.0).round() / 100.0;
    let (status, body) = put(json!({"action": "refund", "amount": left + 0.01})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "only what is left: {body}"
    );
    let (status, body) = put(json!({"action": "refund"})).await;
    assert_eq!(status, StatusCode::CREATED, "the rest: {body}");
    let after = read().await;
    assert_eq!(after["status"]["slug"], "refunded", "{after}");
    assert!(
        !after["available_actions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x == "refund")),
        "{after}"
    );
    let (status, body) = put(json!({"action": "refund", "amount": 1})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "nothing left: {body}"
    );
    let (status, body) = put(json!({"action": "void"})).await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a refunded one: {body}"
    );

    let (status, _) = crate::common::call(
        &server,
        reqwest::Method::PUT,
        "/transactions/1",
        Some(crate::common::ADMIN),
        Some(json!({"action": "refund"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
