//! Workflows act on the store as the service does (issue 40): a status change writes an entry of
//! the order's history, a delivered shipment cannot be cancelled, a refund changes the
//! transaction it refunds; a draft is an order in the draft state, filled with items like any
//! order; each read after the write shows it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{all_pages, delete, get, post, put, start, status_id};

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

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.01
}

/// `(total, sub_total, shipping_cost, tax)` of an order's details, each checked to be in the
/// store's currency.
fn order_amounts(details: &Value) -> (f64, f64, f64, f64) {
    let amounts = &details["amounts"];
    for money in [
        &amounts["total"],
        &amounts["sub_total"],
        &amounts["shipping_cost"],
        &amounts["tax"]["amount"],
    ] {
        assert_eq!(money["currency"], "SAR", "{details}");
    }
    (
        amount(&amounts["total"]),
        amount(&amounts["sub_total"]),
        amount(&amounts["shipping_cost"]),
        amount(&amounts["tax"]["amount"]),
    )
}

/// The sum of one amount of every line of an order's details.
fn lines_sum(details: &Value, pointer: &str) -> f64 {
    details["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|line| amount(line.pointer(pointer).expect("the line's amount")))
        .sum()
}

/// A draft is an order of the orders collection in the draft state: `get_order` finds it, the
/// list shows it (`draft: true`, newest first), `create_order_item` fills it with lines priced
/// from the products the store holds at that moment, and its totals add up (lines, shipping,
/// tax, no discounts) on every read: the order, its items, the list.
#[tokio::test]
async fn a_draft_is_an_order_filled_by_its_items_and_read_like_any_order() {
    let server = start().await;
    let (status, created) = post(&server, "/orders/draft", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let id = created["data"]["id"].as_i64().expect("the draft's id");
    let reference = created["data"]["reference_id"].clone();
    assert!(reference.is_i64(), "{created}");

    let validator = crate::orders::details_validator();
    let (status, read) = get(&server, &format!("/orders/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    crate::orders::assert_valid(&validator, &read);
    let draft = &read["data"];
    assert_eq!(draft["id"], id);
    assert_eq!(draft["reference_id"], reference);
    assert_eq!(draft["draft"], true, "{draft}");
    assert_eq!(draft["items"], json!([]), "{draft}");
    assert_eq!(order_amounts(draft), (0.0, 0.0, 0.0, 0.0));
    let (_, listed) = get(&server, "/orders?per_page=5").await;
    let first = &listed["data"][0];
    assert_eq!(first["id"], id, "the newest order: {listed}");
    assert_eq!(first["draft"], true, "{first}");
    assert_eq!(first["total"], json!({"amount": 0, "currency": "SAR"}));
    assert!(
        listed["data"][1].get("draft").is_none_or(|d| d == false),
        "{listed}"
    );
    let (status, items) = get(&server, &format!("/orders/items?order_id={id}")).await;
    assert_eq!(status, StatusCode::OK, "{items}");
    assert_eq!(items["data"], json!([]));

    // A product's line, priced from the product as the store holds it now.
    let (_, products) = get(&server, "/products?per_page=50").await;
    let product = products["data"]
        .as_array()
        .expect("products")
        .iter()
        .find(|p| p["type"] == "product" && p["price"]["amount"].is_number())
        .cloned()
        .expect("a product");
    let (status, updated) = put(
        &server,
        &format!("/products/{}", product["id"]),
        json!({"price": 40.5}),
    )
    .await;
    assert!(status.is_success(), "{status} {updated}");
    let (status, answer) = post(
        &server,
        "/orders/items",
        json!({"order_id": id, "identifier_type": "id", "identifier": product["id"], "quantity": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let lines = answer["data"].as_array().expect("the draft's lines");
    assert_eq!(lines.len(), 1, "{answer}");
    assert_eq!(lines[0]["name"], product["name"]);
    assert_eq!(lines[0]["quantity"], 2);
    assert!(
        close(amount(&lines[0]["amounts"]["total"]), 81.0),
        "{answer}"
    );
    let product_line = lines[0]["id"].clone();

    // A custom line of its own name and price.
    let (status, answer) = post(
        &server,
        "/orders/items",
        json!({"order_id": id, "name": "Gift wrap", "price": 10, "quantity": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["data"].as_array().expect("lines").len(), 2);

    let (_, read) = get(&server, &format!("/orders/{id}")).await;
    crate::orders::assert_valid(&validator, &read);
    let draft = &read["data"];
    assert_eq!(draft["draft"], true, "still a draft: {draft}");
    let (total, sub_total, shipping, tax) = order_amounts(draft);
    assert!(close(sub_total, 91.0), "{draft}");
    assert!(
        close(sub_total, lines_sum(draft, "/amounts/total")),
        "{draft}"
    );
    assert!(
        close(tax, lines_sum(draft, "/amounts/tax/amount")),
        "{draft}"
    );
    assert!(tax > 0.0, "prices include VAT: {draft}");
    assert!(close(shipping, 25.0), "something to ship: {draft}");
    assert!(close(total, sub_total + shipping), "{draft}");
    assert_eq!(draft["amounts"]["discounts"], json!([]));
    let (_, items) = get(&server, &format!("/orders/items?order_id={id}")).await;
    let names: Vec<&Value> = items["data"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| &i["name"])
        .collect();
    assert_eq!(names, [&product["name"], &json!("Gift wrap")], "{items}");
    let (_, listed) = get(&server, "/orders?per_page=5").await;
    let first = &listed["data"][0];
    assert_eq!(first["id"], id);
    assert!(close(amount(&first["total"]), total), "{first}");
    assert_eq!(first["total"]["currency"], "SAR");
    assert_eq!(first["items"][0]["quantity"], 2, "{first}");
    assert_eq!(first["features"]["shippable"], true, "{first}");

    // The store's price moves on; the line keeps the price it was added at.
    let (status, _) = put(
        &server,
        &format!("/products/{}", product["id"]),
        json!({"price": 99}),
    )
    .await;
    assert!(status.is_success(), "{status}");
    let (_, read) = get(&server, &format!("/orders/{id}")).await;
    assert!(close(order_amounts(&read["data"]).0, total), "{read}");

    // Removing a line takes it out of the draft and of its totals.
    let (status, _) = delete(&server, &format!("/orders/items/{product_line}")).await;
    assert_eq!(status, StatusCode::OK);
    let (_, read) = get(&server, &format!("/orders/{id}")).await;
    let (total, sub_total, shipping, _) = order_amounts(&read["data"]);
    assert!(close(sub_total, 10.0), "{read}");
    assert!(close(total, sub_total + shipping), "{read}");
    let (_, items) = get(&server, &format!("/orders/items?order_id={id}")).await;
    assert_eq!(items["data"].as_array().expect("items").len(), 1);

    // The draft is updated like any order: a customer of the store, its lines and total kept.
    let (_, customers) = get(&server, "/customers?per_page=1").await;
    let customer = customers["data"][0]["id"].clone();
    let (status, updated) = put(
        &server,
        &format!("/orders/{id}"),
        json!({"customer": {"id": customer}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    let (_, read) = get(&server, &format!("/orders/{id}")).await;
    crate::orders::assert_valid(&validator, &read);
    assert_eq!(read["data"]["customer"]["id"], customer, "{read}");
    assert_eq!(read["data"]["draft"], true, "{read}");
    assert!(close(order_amounts(&read["data"]).0, total), "{read}");

    // A second draft is another order, with its own id and reference.
    let (status, second) = post(&server, "/orders/draft", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(second["data"]["id"], id);
    assert_ne!(second["data"]["reference_id"], reference);
    let (status, _) = get(&server, &format!("/orders/{}", second["data"]["id"])).await;
    assert_eq!(status, StatusCode::OK);
}

/// The stock of product `id` as its details show it.
async fn stock_of(server: &store_admin_mock::MockServer, id: &Value) -> i64 {
    let (status, read) = get(server, &format!("/products/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    read["data"]["quantity"].as_i64().expect("a stock quantity")
}

/// Cancelling an order with `restore_items` puts its lines back in stock, once: without it, or a
/// second time, the stock stays; a duplicate of a draft is an order, not a draft.
#[tokio::test]
async fn a_cancellation_restores_items_once_and_a_duplicated_draft_is_an_order() {
    let server = start().await;
    let (_, products) = get(&server, "/products?per_page=60").await;
    let product = products["data"]
        .as_array()
        .expect("products")
        .iter()
        .find(|p| {
            p["type"] == "product"
                && p["unlimited_quantity"] != true
                && p["quantity"].is_i64()
                && p["skus"].as_array().is_none_or(Vec::is_empty)
                && p["options"].as_array().is_none_or(Vec::is_empty)
        })
        .cloned()
        .expect("a product of limited stock without variants");
    let pid = product["id"].clone();
    let (status, draft) = post(&server, "/orders/draft", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{draft}");
    let order = draft["data"]["id"].clone();
    let (status, line) = post(
        &server,
        "/orders/items",
        json!({"order_id": order, "identifier_type": "id", "identifier": pid, "quantity": 3}),
    )
    .await;
    assert!(status.is_success(), "{status} {line}");
    let (_, statuses) = get(&server, "/orders/statuses").await;
    let slug_id = |slug: &str| status_id(&statuses, slug);

    // A status change without `restore_items` leaves the stock.
    let before = stock_of(&server, &pid).await;
    let (status, answer) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": slug_id("in_progress"), "restore_items": true}),
    )
    .await;
    assert!(status.is_success(), "{status} {answer}");
    assert_eq!(stock_of(&server, &pid).await, before, "not a cancellation");
    let (status, answer) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": slug_id("canceled")}),
    )
    .await;
    assert!(status.is_success(), "{status} {answer}");
    assert_eq!(stock_of(&server, &pid).await, before, "no restore_items");

    // With it, the lines go back in stock; a second time changes nothing.
    let (status, answer) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": slug_id("canceled"), "restore_items": "1"}),
    )
    .await;
    assert!(status.is_success(), "{status} {answer}");
    assert_eq!(stock_of(&server, &pid).await, before + 3);
    let (status, _) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": slug_id("restored"), "restore_items": true}),
    )
    .await;
    assert!(status.is_success());
    assert_eq!(stock_of(&server, &pid).await, before + 3, "restocked once");

    // A duplicate of a draft is an order placed again, not a draft.
    let (status, copy) = post(&server, "/orders/duplicate", json!({"order_id": order})).await;
    assert!(status.is_success(), "{status} {copy}");
    assert!(
        copy["data"].get("draft").is_none_or(|d| d == false),
        "{copy}"
    );
    let (_, read) = get(&server, &format!("/orders/{}", copy["data"]["id"])).await;
    assert!(
        read["data"].get("draft").is_none_or(|d| d == false),
        "{read}"
    );
    let (_, listed) = get(&server, "/orders?per_page=5").await;
    assert_eq!(listed["data"][0]["id"], copy["data"]["id"]);
    assert!(
        listed["data"][0].get("draft").is_none_or(|d| d == false),
        "{listed}"
    );
}
