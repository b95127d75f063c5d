//! State changes, each visible to the next read.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{all_pages, delete, get, post, put, start};

async fn rows_of(server: &store_admin_mock::MockServer, product: i64) -> Vec<Value> {
    all_pages(server, "/products/quantities?per_page=60")
        .await
        .into_iter()
        .filter(|r| r["id"] == product)
        .collect()
}

#[tokio::test]
async fn creating_an_option_adds_values_and_multiplies_variants() {
    let server = start().await;
    let rows = all_pages(&server, "/products/quantities?per_page=60").await;
    let product = rows.iter().find(|r| r["variant"].is_string()).unwrap()["id"]
        .as_i64()
        .unwrap();
    let before = rows_of(&server, product).await.len();
    let (status, body) = post(
        &server,
        &format!("/products/{product}/options"),
        json!({"name": "Gift wrap", "display_type": "text", "values": [
            {"name": "Plain", "price": "0", "is_default": true},
            {"name": "Luxury", "price": "10"}
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["name"], "Gift wrap");
    assert_eq!(body["data"]["values"].as_array().unwrap().len(), 2);
    let skus = body["data"]["skus"].as_array().unwrap();
    assert_eq!(skus.len(), before * 2);
    let after = rows_of(&server, product).await;
    assert_eq!(after.len(), before * 2);
    assert!(
        after
            .iter()
            .any(|r| r["variant"].as_str().unwrap().ends_with(" - Luxury"))
    );
    // The new variants are readable by id.
    let variant = skus[0]["id"].as_i64().unwrap();
    let (status, body) = get(&server, &format!("/products/variants/{variant}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["data"]["id"], variant);
}

#[tokio::test]
async fn option_on_unknown_product_is_404_and_invalid_body_is_422() {
    let server = start().await;
    let (status, body) = post(
        &server,
        "/products/1/options",
        json!({"name": "x", "values": [{"name": "a"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], 404);
    let rows = all_pages(&server, "/products/quantities?per_page=60").await;
    let product = rows[0]["id"].as_i64().unwrap();
    let (status, body) = post(
        &server,
        &format!("/products/{product}/options"),
        json!({"values": []}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"]["fields"]["name"].is_array(), "{body}");
    // With the schema satisfied, the override's own rule: at least one value.
    let (status, body) = post(
        &server,
        &format!("/products/{product}/options"),
        json!({"name": "x", "values": []}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"]["fields"]["values"].is_array(), "{body}");
    let (status, _) = get(&server, "/products/variants/424242").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn adding_a_language_twice_is_422_on_its_iso_code() {
    let server = start().await;
    let (status, body) = post(
        &server,
        "/languages",
        json!({"locales": [{"iso_code": "fr", "sort_order": "3"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"][0]["iso_code"], "fr");
    assert_eq!(body["data"][0]["sort_order"], 3);
    let (status, body) = post(
        &server,
        "/languages",
        json!({"locales": [{"iso_code": "fr"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["error"]["fields"]["locales.0.iso_code"].is_array(),
        "{body}"
    );
    let (status, body) = post(
        &server,
        "/languages",
        json!({"locales": [{"iso_code": "xyzw"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"]["message"], "alert.invalid_fields");
}

#[tokio::test]
async fn changing_an_order_status_and_renaming_a_status_are_two_operations() {
    let server = start().await;
    let (_, orders) = get(&server, "/orders").await;
    let order = orders["data"][0]["id"].as_i64().unwrap();
    let statuses = all_pages(&server, "/orders/statuses").await;
    let target = statuses
        .iter()
        .find(|s| s["slug"] != orders["data"][0]["status"]["slug"])
        .unwrap();
    let target_id = target["id"].as_i64().unwrap();

    // `POST /orders/{order_id}/status` (change_order_status) moves the order.
    let (status, body) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": target_id, "note": "moved"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(body["data"]["message"].is_string(), "{body}");
    let (_, read) = get(&server, &format!("/orders/{order}")).await;
    assert_eq!(read["data"]["status"]["slug"], target["slug"], "{read}");
    let (status, body) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({"status_id": 424242}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["status_id"].is_array(), "{body}");
    let (status, _) = post(&server, "/orders/1/status", json!({"status_id": target_id})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // `PUT /orders/statuses/{status_id}` (update_order_status) changes the status itself.
    let (status, body) = put(
        &server,
        &format!("/orders/statuses/{target_id}"),
        json!({"name": "Packed with care"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["id"], target_id);
    assert_eq!(body["data"]["name"], "Packed with care");
    let (_, read) = get(&server, &format!("/orders/statuses/{target_id}")).await;
    assert_eq!(read["data"]["name"], "Packed with care", "{read}");
}

#[tokio::test]
async fn creating_a_category_returns_it_and_requires_a_name() {
    let server = start().await;
    let (status, body) = post(
        &server,
        "/categories",
        json!({"name": "Cat food", "status": "hidden", "metadata_title": "Cats", "metadata_url": "cat-food"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["name"], "Cat food");
    assert_eq!(body["data"]["status"], "hidden");
    assert_eq!(body["data"]["metadata"]["title"], "Cats");
    let (status, body) = post(&server, "/categories", json!({"status": "sparkly"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // The allowed statuses are the document's (a closed `enum` there is checked); the name is
    // always required.
    assert!(body["error"]["fields"]["name"].is_array(), "{body}");
    // The new category is a filter value of the product list.
    let (status, _) = get(&server, "/products/quantities?categories[]=Cat%20food").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn webhooks_subscribe_update_and_unsubscribe_by_id_and_by_url() {
    let server = start().await;
    let before = all_pages(&server, "/webhooks").await.len();
    let subscribe = |event: &str, url: &str| json!({"name": "hook", "event": event, "url": url, "headers": [{"key": "X-Team", "value": "ops"}]});
    let (status, first) = post(
        &server,
        "/webhooks/subscribe",
        subscribe("order.created", "https://a.example/hook"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["data"]["version"], 2);
    assert_eq!(first["data"]["headers"], json!({"X-Team": "ops"}));
    let id = first["data"]["id"].as_i64().unwrap();
    // The same URL and event again updates that webhook instead of adding one.
    let (_, again) = post(
        &server,
        "/webhooks/subscribe",
        subscribe("order.created", "https://a.example/hook"),
    )
    .await;
    assert_eq!(again["data"]["id"], id);
    post(
        &server,
        "/webhooks/subscribe",
        subscribe("order.updated", "https://a.example/hook"),
    )
    .await;
    post(
        &server,
        "/webhooks/subscribe",
        subscribe("product.created", "https://b.example/hook"),
    )
    .await;
    assert_eq!(all_pages(&server, "/webhooks").await.len(), before + 3);

    let (status, updated) = put(
        &server,
        &format!("/webhooks/{id}"),
        json!({"name": "renamed", "rule": "total > 100", "security_strategy": "token", "secret": "s3"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["data"]["name"], "renamed");
    assert_eq!(updated["data"]["security"]["strategy"], "token");
    let listed = all_pages(&server, "/webhooks").await;
    assert_eq!(
        listed.iter().find(|w| w["id"] == id).unwrap()["rule"],
        "total > 100"
    );

    // A rule that does not parse and a URL the service refuses (an absolute URI, so the
    // document's `format: uri` lets it through, but not http or https) are both named.
    let (status, bad) = put(
        &server,
        &format!("/webhooks/{id}"),
        json!({"rule": "total >", "url": "ftp://files.example/hook"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert!(
        bad["error"]["fields"]["rule"].is_array() && bad["error"]["fields"]["url"].is_array(),
        "{bad}"
    );
    // Not a URI at all: refused by the document's `format: uri`.
    let (status, bad) = put(&server, &format!("/webhooks/{id}"), json!({"url": "nope"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert!(bad["error"]["fields"]["url"].is_array(), "{bad}");
    // Refused changes are not applied.
    let kept = all_pages(&server, "/webhooks").await;
    let kept = kept.iter().find(|w| w["id"] == id).unwrap();
    assert_eq!(kept["rule"], "total > 100");
    assert_eq!(kept["url"], "https://a.example/hook");
    let (status, _) = put(&server, "/webhooks/1", json!({"name": "x"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, body) = delete(
        &server,
        &format!(
            "/webhooks/unsubscribe?id={}",
            all_pages(&server, "/webhooks")
                .await
                .iter()
                .find(|w| w["url"] == "https://b.example/hook")
                .unwrap()["id"]
        ),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["data"]["code"], 202);
    let (status, _) = delete(
        &server,
        "/webhooks/unsubscribe?url=https%3A%2F%2Fa.example%2Fhook",
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(all_pages(&server, "/webhooks").await.len(), before);
    let (status, _) = delete(
        &server,
        "/webhooks/unsubscribe?url=https%3A%2F%2Fa.example%2Fhook",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = delete(&server, "/webhooks/unsubscribe").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"]["fields"]["id"].is_array());
    let (status, _) = delete(&server, "/webhooks/unsubscribe?id=abc").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn subscribing_to_an_unknown_event_or_signature_without_secret_is_422() {
    let server = start().await;
    let (status, body) = post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "n", "event": "no.such", "url": "https://x.example"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"]["fields"]["event"].is_array());
    let (status, body) = post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "n", "event": "order.created", "url": "https://x.example", "security_strategy": "signature"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"]["fields"]["secret"].is_array());
}

fn new_shipment(courier: i64, order: i64) -> Value {
    json!({
        "courier_id": courier,
        "order_id": order,
        "shipment_type": "shipment",
        "payment_method": "cod",
        "cash_on_delivery": {"amount": 10.7, "currency": "SAR"},
        "ship_to": {"name": "Mohammed", "email": "mohammed@example.com", "phone": "966501636784",
                    "country": 1473353380, "city": "Mecca", "address_line": "1 King Fahd Rd, Al Aziziyah",
                    "street_number": "1 King Fahd Rd", "block": "Al Aziziyah", "postal_code": "24243",
                    "geo_coordinates": {"lat": 21.38, "lng": 39.77}},
        "ship_from": {"type": "address", "name": "Main", "geo_coordinates": {"latitude": [21.3], "longitude": [39.7]}},
        "packages": [{"name": "Dates", "sku": "D-1", "price": {"amount": 50, "currency": "SAR"}, "quantity": 2,
                      "weight": {"value": 1, "units": "kg"}}]
    })
}

async fn courier_and_order(server: &store_admin_mock::MockServer) -> (i64, i64) {
    let (_, companies) = get(server, "/shipping/companies/").await;
    let courier = companies["data"][0]["id"].as_i64().unwrap();
    let (_, orders) = get(server, "/orders").await;
    (courier, orders["data"][0]["id"].as_i64().unwrap())
}

#[tokio::test]
async fn shipment_lifecycle_create_update_deliver_return_cancel() {
    let server = start().await;
    let (courier, order) = courier_and_order(&server).await;
    let (status, created) = post(&server, "/shipments", new_shipment(courier, order)).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let id = created["data"]["id"].as_i64().unwrap();
    assert_eq!(created["data"]["status"], "creating");
    assert_eq!(created["data"]["order_id"], order);
    let (_, read) = get(&server, &format!("/shipments/{id}")).await;
    assert_eq!(read["data"], created["data"]);
    let listed = all_pages(&server, &format!("/shipments?order_id={order}")).await;
    assert!(listed.iter().any(|s| s["id"] == id));

    // Returning an undelivered shipment is refused.
    let (status, body) = post(&server, &format!("/shipments/{id}/return"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["success"], false);

    let (status, updated) = put(
        &server,
        &format!("/shipments/{id}"),
        json!({"shipment_number": "846984645", "status": "delivered", "tracking_number": "T-1", "status_note": "done"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["data"]["status"], "delivered");
    let (_, tracking) = get(&server, &format!("/shipments/{id}/tracking")).await;
    assert_eq!(tracking["data"]["history"][0]["status"], "delivered");
    assert_eq!(tracking["data"]["history"][0]["note"], "done");

    let (status, returned) = post(&server, &format!("/shipments/{id}/return"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{returned}");
    assert_eq!(returned["data"]["type"], "return");
    assert_ne!(returned["data"]["id"], id);

    // A delivered shipment is not cancelled (issue 40: it was, and lost its tracking number):
    // 422, and it stays as it was; the return shipment, not delivered yet, is cancelled.
    let (status, body) = post(&server, &format!("/shipments/{id}/cancel"), json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["success"], false);
    let (_, read) = get(&server, &format!("/shipments/{id}")).await;
    assert_eq!(read["data"]["status"], "delivered");
    assert_eq!(read["data"]["tracking_number"], "T-1");
    let back = returned["data"]["id"].as_i64().unwrap();
    let (status, cancelled) = post(&server, &format!("/shipments/{back}/cancel"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled["data"]["status"], "cancelled");
    let (_, read) = get(&server, &format!("/shipments/{back}")).await;
    assert_eq!(read["data"]["status"], "cancelled");
    assert_eq!(
        read["data"]["tracking_number"], returned["data"]["tracking_number"],
        "a cancelled shipment keeps its tracking number"
    );
    assert!(
        !matches!(&read["data"]["tracking_number"], Value::Number(n) if n.as_i64() == Some(0)),
        "{read}"
    );
}

#[tokio::test]
async fn shipment_validation_and_unknown_ids() {
    let server = start().await;
    let (status, body) = post(&server, "/shipments", json!({})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let fields = &body["error"]["fields"];
    for field in ["courier_id", "shipment_type", "payment_method", "packages"] {
        assert!(fields[field].is_array(), "{field}: {body}");
    }
    let (status, body) = post(&server, "/shipments/1/cancel", json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["status"], 404);
    let (status, _) = put(
        &server,
        "/shipments/1",
        json!({"shipment_number": "1", "status": "delivered"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let shipments = all_pages(&server, "/shipments?per_page=60").await;
    let id = shipments[0]["id"].as_i64().unwrap();
    let (status, body) = put(
        &server,
        &format!("/shipments/{id}"),
        json!({"status": "teleported"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // The status values are the document's (`x-known-values`); the number is always required.
    assert!(body["error"]["fields"]["shipment_number"].is_array());
    let (status, _) = get(&server, "/shipments?courier_slug=nobody").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn seeded_shipments_span_several_states_and_delivered_ones_can_be_returned() {
    let server = start().await;
    let shipments = all_pages(&server, "/shipments?per_page=60").await;
    let states: std::collections::HashSet<&str> = shipments
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert!(states.len() >= 5, "{states:?}");
    let delivered = all_pages(&server, "/shipments?status=delivered").await;
    let id = delivered[0]["id"].as_i64().unwrap();
    let (status, _) = post(&server, &format!("/shipments/{id}/return"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn shipping_companies_rules_and_routes_are_readable() {
    let server = start().await;
    let (_, companies) = get(&server, "/shipping/companies/").await;
    let kinds: std::collections::HashSet<&str> = companies["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["activation_type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, std::collections::HashSet::from(["manual", "api"]));
    let id = companies["data"][0]["id"].as_i64().unwrap();
    let (status, company) = get(&server, &format!("/shipping/companies/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(company["data"]["id"], id);
    let routes = all_pages(&server, "/shipping/routes").await;
    assert!(!routes.is_empty());
    let (status, route) = get(&server, &format!("/shipping/routes/{}", routes[0]["id"])).await;
    assert_eq!(status, StatusCode::OK);
    assert!(route["data"]["conditions"].is_array());
    let (status, _) = get(&server, "/shipping/rules/1").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn shipping_rules_carry_each_restriction_type() {
    let server = start().await;
    let mut types = std::collections::HashSet::new();
    for id in server.shipping_rule_ids() {
        let (status, rule) = get(&server, &format!("/shipping/rules/{id}")).await;
        assert_eq!(status, StatusCode::OK);
        for restriction in rule["data"]["restrictions"].as_array().unwrap() {
            types.insert(restriction["type"].as_str().unwrap().to_owned());
        }
    }
    for kind in ["cart-price", "category", "customer-group"] {
        assert!(types.contains(kind), "{kind} missing from {types:?}");
    }
}

#[tokio::test]
async fn a_page_read_again_after_a_write_shows_the_write() {
    let server = start().await;
    let path = "/webhooks?per_page=60";
    let (_, first) = get(&server, path).await;
    let (_, again) = get(&server, path).await;
    assert_eq!(first, again, "nothing changed in between");
    let (status, _) = post(
        &server,
        "/webhooks/subscribe",
        json!({"name": "late", "event": "order.created", "url": "https://late.example/hook"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, after) = get(&server, path).await;
    assert_eq!(
        after["pagination"]["total"].as_u64(),
        first["pagination"]["total"].as_u64().map(|n| n + 1),
        "the cached page was not served after the write"
    );
    assert!(
        after["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["url"] == "https://late.example/hook")
    );
}

/// A store restored from a snapshot (through its JSON form) answers what the store it was taken
/// from answered, and goes on from there: a created product is found, a deleted one stays gone,
/// and the new mock gives out no id the first one gave.
#[tokio::test]
async fn a_store_restored_from_a_snapshot_goes_on_where_the_first_stopped() {
    use store_admin_mock::{MockConfig, StoreSnapshot};

    let first = start().await;
    assert_eq!(first.store_changes(), 0, "nothing written yet");
    let (status, created) = post(
        &first,
        "/products",
        json!({"name": "Kept", "price": 20, "product_type": "product"}),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let kept = created["data"]["id"].clone();
    let (_, listed) = get(&first, "/products?per_page=5").await;
    let gone = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].clone())
        .find(|id| *id != kept)
        .expect("another product");
    let (status, _) = delete(&first, &format!("/products/{gone}")).await;
    assert!(status.is_success());
    assert!(first.store_changes() > 0);

    let bytes = first.snapshot().to_json();
    let snapshot = StoreSnapshot::from_json(&bytes).expect("the snapshot reads back");
    assert_eq!(snapshot.seed(), 42);
    let second = crate::common::start_with(
        MockConfig::new()
            .token_all_scopes(crate::common::ADMIN)
            .restore(snapshot),
    )
    .await;
    let (status, read) = get(&second, &format!("/products/{kept}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["name"], "Kept");
    let (status, _) = get(&second, &format!("/products/{gone}")).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a deleted product stays deleted"
    );
    let (_, a) = get(&first, "/orders?per_page=3").await;
    let (_, b) = get(&second, "/orders?per_page=3").await;
    assert_eq!(a["data"], b["data"], "the same orders");
    let (_, again) = post(
        &second,
        "/products",
        json!({"name": "Next", "price": 5, "product_type": "product"}),
    )
    .await;
    assert_ne!(again["data"]["id"], kept, "an id is never given twice");

    assert!(StoreSnapshot::from_json(b"{\"format\": 1}").is_err());
    assert!(StoreSnapshot::from_json(b"not json").is_err());
}

/// A snapshot is read from a file a user can edit: one that the engine could not hold (a record
/// that is not an object, an id that is neither a string nor a number, two records of one id)
/// is refused; a record's id that the file does not list as used is still never given out again;
/// the stores of several seeds read back.
#[tokio::test]
async fn a_tampered_snapshot_is_refused_and_a_records_id_is_never_given_again() {
    use store_admin_mock::{MockConfig, StoreSnapshot};

    for seed in [1, 2, 7] {
        let server = crate::common::start_with(
            MockConfig::new()
                .seed(seed)
                .token_all_scopes(crate::common::ADMIN),
        )
        .await;
        StoreSnapshot::from_json(&server.snapshot().to_json())
            .unwrap_or_else(|e| panic!("seed {seed}'s store reads back: {e}"));
    }

    let store = |collections: Value, used: Value| {
        json!({"format": 1, "seed": 1, "store": {
            "merchant_id": 1, "next_seed": 3, "used_ids": used, "collections": collections,
        }})
        .to_string()
    };
    for tampered in [
        store(json!({"/products": ["a product"]}), json!([])),
        store(json!({"/products": [{"id": 7}, {"id": "7"}]}), json!([7])),
        store(json!({"/products": [{"id": {"n": 7}}]}), json!([])),
        store(json!({"/products": {"id": 7}}), json!([])),
        store(json!({}), json!(["7"])),
    ] {
        assert!(
            StoreSnapshot::from_json(tampered.as_bytes()).is_err(),
            "refused: {tampered}"
        );
    }

    // A restored store gives out the same ids each time it is restored from one snapshot: the id
    // it would give first, put in the file as a record's (but not listed as used), is not given.
    let first = start().await;
    let bytes = first.snapshot().to_json();
    async fn restored(bytes: &[u8]) -> store_admin_mock::MockServer {
        let snapshot = StoreSnapshot::from_json(bytes).expect("a store");
        crate::common::start_with(
            MockConfig::new()
                .token_all_scopes(crate::common::ADMIN)
                .restore(snapshot),
        )
        .await
    }
    async fn new_product(server: &store_admin_mock::MockServer) -> i64 {
        let (status, created) = post(
            server,
            "/products",
            json!({"name": "New", "price": 5, "product_type": "product"}),
        )
        .await;
        assert!(status.is_success(), "{status} {created}");
        created["data"]["id"].as_i64().expect("an integer id")
    }
    let second = restored(&bytes).await;
    let next = new_product(&second).await;
    let again = restored(&bytes).await;
    assert_eq!(
        new_product(&again).await,
        next,
        "the same snapshot, the same ids"
    );

    let mut value: Value = serde_json::from_slice(&bytes).unwrap();
    value["store"]["collections"]["/brands"]
        .as_array_mut()
        .expect("brands")
        .push(json!({"id": next, "name": "Added by hand"}));
    let edited = restored(value.to_string().as_bytes()).await;
    let (status, brand) = get(&edited, &format!("/brands/{next}")).await;
    assert_eq!(status, StatusCode::OK, "{brand}");
    assert_ne!(
        new_product(&edited).await,
        next,
        "a record's id is never given out again"
    );
}
