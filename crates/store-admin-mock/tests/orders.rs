//! Order details over HTTP: `get_order` (and the creation, update and duplication of an order)
//! answer the details' shape (`OrderDetails`), telling the same order as the list's record.

use std::collections::{BTreeSet, HashMap};

use reqwest::StatusCode;
use serde_json::{Map, Value, json};
use store_admin_mock::MockServer;

use crate::common::{all_pages, get, post, put, start, status_id};

/// A validator of `OrderDetailsResponse`, from the document's own schemas.
pub(crate) fn details_validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../openapi/store-admin.yaml"
    );
    let doc: Value = store_admin_mock::read_yaml(&std::fs::read_to_string(path).expect("document"))
        .expect("document is YAML");
    let schemas: Map<String, Value> = doc["components"]["schemas"]
        .as_object()
        .expect("schemas")
        .iter()
        .map(|(k, v)| (k.clone(), store_admin_mock::openapi_to_json_schema(v)))
        .collect();
    let root = json!({
        "$ref": "#/components/schemas/OrderDetailsResponse",
        "components": { "schemas": schemas },
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .expect("the schema compiles")
}

pub(crate) fn assert_valid(validator: &jsonschema::Validator, body: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{body}");
}

fn amount(money: &Value) -> f64 {
    match &money["amount"] {
        Value::Number(n) => n.as_f64().expect("a number"),
        Value::String(s) => s.parse().expect("a decimal string"),
        other => panic!("no amount in {money}: {other}"),
    }
}

/// `(name, quantity)` of each item of an order, in order.
fn lines(order: &Value) -> Vec<(Value, Value)> {
    order["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| (i["name"].clone(), i["quantity"].clone()))
        .collect()
}

async fn customer_ids(server: &MockServer) -> BTreeSet<i64> {
    all_pages(server, "/customers?per_page=60")
        .await
        .iter()
        .map(|c| c["id"].as_i64().expect("customer id"))
        .collect()
}

/// Checks that `details` tell the order `listed` (as the list shows it) and are sound.
fn assert_same_order(details: &Value, listed: &Value, customers: &BTreeSet<i64>) {
    for field in ["id", "reference_id", "status", "date", "payment_method"] {
        assert_eq!(details[field], listed[field], "{field} of {}", listed["id"]);
    }
    assert!(details.get("total").is_none(), "no top-level total");
    let total = amount(&details["amounts"]["total"]);
    assert_eq!(total, amount(&listed["total"]), "total of {}", listed["id"]);
    assert_eq!(details["currency"], listed["total"]["currency"]);
    assert_eq!(lines(details), lines(listed), "items of {}", listed["id"]);
    let mut ids = BTreeSet::new();
    let mut sum = 0.0;
    for item in details["items"].as_array().expect("items") {
        assert!(ids.insert(item["id"].as_i64().expect("item id")), "{item}");
        assert!(item["product"]["id"].is_i64(), "{item}");
        let line = amount(&item["amounts"]["total"]);
        let without_tax = amount(&item["amounts"]["price_without_tax"]);
        assert!(without_tax > 0.0 && without_tax < line, "{item}");
        sum += line;
    }
    let amounts = &details["amounts"];
    let sub_total = amount(&amounts["sub_total"]);
    assert!(
        (sub_total - sum).abs() < 0.005,
        "sub_total {sub_total} != {sum}"
    );
    let parts =
        sub_total + amount(&amounts["shipping_cost"]) + amount(&amounts["cash_on_delivery"]);
    assert!((parts - total).abs() < 0.005, "{amounts}");
    let customer = details["customer"]["id"].as_i64().expect("customer id");
    assert!(customers.contains(&customer), "customer {customer} unknown");
    assert!(details["urls"]["admin"].is_string());
}

#[tokio::test]
async fn details_of_every_listed_order_tell_the_listed_order_and_validate() {
    let server = start().await;
    let validator = details_validator();
    let customers = customer_ids(&server).await;
    assert!(!customers.is_empty());
    let orders = all_pages(&server, "/orders?per_page=60").await;
    assert!(orders.len() >= 50, "{} orders", orders.len());
    let mut answered_customers = BTreeSet::new();
    for listed in &orders {
        let (status, body) = get(&server, &format!("/orders/{}", listed["id"])).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_valid(&validator, &body);
        let details = &body["data"];
        assert_same_order(details, listed, &customers);
        answered_customers.insert(details["customer"]["id"].as_i64().unwrap());
        // The same answer on a second read.
        let (_, again) = get(&server, &format!("/orders/{}", listed["id"])).await;
        assert_eq!(again, body);
    }
    // Orders point to several customers, each as the customers endpoint has it.
    assert!(answered_customers.len() > 1, "{answered_customers:?}");
    let first = orders[0]["id"].clone();
    let (_, body) = get(&server, &format!("/orders/{first}")).await;
    let customer = &body["data"]["customer"];
    let (status, record) = get(&server, &format!("/customers/{}", customer["id"])).await;
    assert_eq!(status, StatusCode::OK);
    for field in ["first_name", "last_name", "email"] {
        assert_eq!(customer[field], record["data"][field], "{field}");
    }
    let (status, _) = get(&server, "/orders/123").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_order_with_a_shipment_ships_as_its_shipment_says() {
    let server = start().await;
    let shipments = all_pages(&server, "/shipments?per_page=60").await;
    let mut by_order: HashMap<i64, Vec<&Value>> = HashMap::new();
    for shipment in &shipments {
        by_order
            .entry(shipment["order_id"].as_i64().unwrap())
            .or_default()
            .push(shipment);
    }
    let (order, shipment) = by_order
        .iter()
        .find_map(|(order, list)| {
            (list.len() == 1 && list[0]["type"] == "shipment").then(|| (*order, list[0]))
        })
        .expect("an order with one shipment");
    let (status, body) = get(&server, &format!("/orders/{order}")).await;
    assert_eq!(status, StatusCode::OK);
    let shipping = &body["data"]["shipping"];
    assert_eq!(shipping["id"], shipment["courier_id"], "{shipping}");
    assert_eq!(shipping["company"], shipment["courier_name"]);
    assert_eq!(shipping["receiver"]["name"], shipment["ship_to"]["name"]);
    assert_eq!(
        shipping["address"]["shipping_address"],
        shipment["ship_to"]["address_line"]
    );
    assert_eq!(
        shipping["shipment"]["tracking_link"],
        shipment["tracking_link"]
    );
    assert_eq!(body["data"]["receiver"], shipping["receiver"]);
    // An order without a shipment has no shipping.
    let orders = all_pages(&server, "/orders?per_page=60").await;
    let without = orders
        .iter()
        .find(|o| !by_order.contains_key(&o["id"].as_i64().unwrap()))
        .expect("an order without shipment");
    let (_, body) = get(&server, &format!("/orders/{}", without["id"])).await;
    assert!(body["data"].get("shipping").is_none(), "{}", body["data"]);
}

#[tokio::test]
async fn created_updated_and_duplicated_orders_answer_their_details() {
    let server = start().await;
    let validator = details_validator();
    let customers = customer_ids(&server).await;
    let customer = *customers.iter().next().unwrap();
    let products = all_pages(&server, "/products?per_page=60").await;
    let (first, second) = (&products[0], &products[1]);
    let sku = second["sku"].as_str().expect("a product with a SKU");
    let (status, body) = post(
        &server,
        "/orders",
        json!({
            "customer": { "id": customer },
            "products": [
                { "identifier_type": "id", "identifier": first["id"], "quantity": 2 },
                { "identifier_type": "sku", "identifier": sku, "quantity": 1 },
            ],
            "payment": { "method": "cod" },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_valid(&validator, &body);
    let created = &body["data"];
    assert_eq!(created["customer"]["id"], customer);
    assert_eq!(created["payment_method"], "cod");
    assert_eq!(
        lines(created),
        vec![
            (first["name"].clone(), json!(2)),
            (second["name"].clone(), json!(1))
        ]
    );
    // The new order is the newest of the list, and its details tell the listed order.
    let orders = all_pages(&server, "/orders?per_page=60").await;
    assert_eq!(orders[0]["id"], created["id"]);
    let (_, read) = get(&server, &format!("/orders/{}", created["id"])).await;
    assert_eq!(read["data"], *created);
    assert_same_order(created, &orders[0], &customers);

    // Unknown products and customers are 422s naming the field.
    let (status, body) = post(
        &server,
        "/orders",
        json!({ "customer": { "id": 1 }, "products": [{ "identifier_type": "sku", "identifier": "no-such-sku" }] }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let fields = &body["error"]["fields"];
    assert!(fields["customer.id"].is_array() && fields["products.0.identifier"].is_array());

    // A new customer, by name and email, becomes a customer of the store.
    let id = created["id"].clone();
    let (status, body) = put(
        &server,
        &format!("/orders/{id}"),
        json!({
            "customer": { "name": "Sara Ahmed", "email": "sara.ahmed@example.com", "mobile": "+966501112233" },
            "receiver": { "name": "Ali", "country_code": "+966", "phone": "500000001" },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_valid(&validator, &body);
    let updated = &body["data"];
    assert_eq!(updated["customer"]["first_name"], "Sara");
    assert_eq!(updated["customer"]["email"], "sara.ahmed@example.com");
    assert!(
        customer_ids(&server)
            .await
            .contains(&updated["customer"]["id"].as_i64().unwrap())
    );
    assert_eq!(
        updated["receiver"],
        json!({ "name": "Ali", "phone": "+966500000001" })
    );
    assert_eq!(updated["amounts"]["total"], created["amounts"]["total"]);

    // A duplicate is a new order of the same customer, lines and total, waiting for its payment.
    let (status, body) = post(&server, "/orders/duplicate", json!({ "order_id": id })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_valid(&validator, &body);
    let copy = &body["data"];
    assert_ne!(copy["id"], id);
    assert_ne!(copy["reference_id"], updated["reference_id"]);
    assert_eq!(lines(copy), lines(updated));
    assert_eq!(copy["amounts"]["total"], updated["amounts"]["total"]);
    assert_eq!(copy["customer"], updated["customer"]);
    assert_eq!(copy["status"]["slug"], "payment_pending");
    let item_ids = |order: &Value| -> BTreeSet<i64> {
        order["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect()
    };
    assert!(item_ids(copy).is_disjoint(&item_ids(updated)));
    let (status, body) = post(&server, "/orders/duplicate", json!({ "order_id": 123 })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["order_id"].is_array());
}

/// `(id, name)` of each record of a list answer's `data`.
fn named(body: &Value) -> Vec<(i64, Value)> {
    body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| (r["id"].as_i64().expect("an id"), r["name"].clone()))
        .collect()
}

/// `GET /orders/assignment/{order_id}` (`list_order_assigned_employees`) lists the employees the
/// order is assigned to, as `/users` has them: those of the seed (the orders the
/// `assign_employee[]` filter finds), then those `update_order` assigns; an order the store does
/// not hold is a 404, and an employee it does not hold a 422.
#[tokio::test]
async fn an_orders_assigned_employees_are_the_employees_it_was_assigned() {
    let server = start().await;
    let (status, users) = get(&server, "/users?per_page=60").await;
    assert_eq!(status, StatusCode::OK, "{users}");
    let employees: HashMap<i64, Value> = named(&users).into_iter().collect();
    assert!(employees.len() >= 2, "{users}");

    // The seed's assignments: each names an employee of the store, and the list filter agrees.
    let orders = all_pages(&server, "/orders?per_page=60").await;
    let mut assigned = 0;
    for order in &orders {
        let id = &order["id"];
        let (status, body) = get(&server, &format!("/orders/assignment/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        for (employee, name) in named(&body) {
            assert_eq!(employees.get(&employee), Some(&name), "{body}");
            let filtered = all_pages(
                &server,
                &format!("/orders?per_page=60&assign_employee[]={employee}"),
            )
            .await;
            assert!(
                filtered.iter().any(|o| o["id"] == *id),
                "{id} by {employee}"
            );
            assigned += 1;
        }
    }
    assert!(assigned > 0, "the seed assigns some orders");

    // An assignment through `update_order` is what the list shows, in the order sent.
    let order = &orders[0]["id"];
    let mut chosen: Vec<i64> = employees.keys().copied().collect();
    chosen.sort_unstable();
    let chosen = &chosen[..2];
    let (status, body) = put(
        &server,
        &format!("/orders/{order}"),
        json!({ "employees": [chosen[1], chosen[0]] }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = get(&server, &format!("/orders/assignment/{order}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        named(&body),
        vec![
            (chosen[1], employees[&chosen[1]].clone()),
            (chosen[0], employees[&chosen[0]].clone())
        ]
    );
    let filtered = all_pages(
        &server,
        &format!("/orders?per_page=60&assign_employee[]={}", chosen[0]),
    )
    .await;
    assert!(filtered.iter().any(|o| o["id"] == *order));

    // No such employee: 422 on the field, and the assignment stays.
    let (status, body) = put(
        &server,
        &format!("/orders/{order}"),
        json!({ "employees": [chosen[0], 1] }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["employees.1"].is_array(), "{body}");
    let (_, body) = get(&server, &format!("/orders/assignment/{order}")).await;
    assert_eq!(named(&body).len(), 2, "{body}");

    // No such order.
    let (status, body) = get(&server, "/orders/assignment/1").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

/// `POST /orders/actions` (`run_order_actions`) acts on the orders its filters choose, as the
/// dashboard's bulk actions do: `assign_users` changes what `GET /orders/assignment/{order_id}`
/// and the `assign_employee[]` filter show for each chosen order (and no other),
/// `change_status` moves them with a history entry each, `mark_as_read` marks them; an employee
/// or a status the store does not have is a 422 and nothing runs.
#[tokio::test]
async fn bulk_actions_change_the_chosen_orders() {
    let server = start().await;
    let (_, users) = get(&server, "/users?per_page=60").await;
    let employees: HashMap<i64, Value> = named(&users).into_iter().collect();
    let mut ids: Vec<i64> = employees.keys().copied().collect();
    ids.sort_unstable();
    let orders = all_pages(&server, "/orders?per_page=60").await;
    let (first, second, other) = (&orders[0]["id"], &orders[1]["id"], &orders[2]["id"]);
    let before_other = get(&server, &format!("/orders/assignment/{other}")).await.1;

    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [
                { "action_name": "assign_users", "value": [ids[0], ids[1]] },
                { "action_name": "mark_as_read" },
            ],
            "filters": { "order_ids": [first, second] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let results = body["data"].as_array().expect("one result per operation");
    assert_eq!(results.len(), 2, "{body}");
    assert_eq!(results[0]["action_name"], "assign_users", "{body}");
    for order in [first, second] {
        let (status, body) = get(&server, &format!("/orders/assignment/{order}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            named(&body),
            vec![
                (ids[0], employees[&ids[0]].clone()),
                (ids[1], employees[&ids[1]].clone())
            ],
            "{order}"
        );
        let filtered = all_pages(
            &server,
            &format!("/orders?per_page=60&assign_employee[]={}", ids[1]),
        )
        .await;
        assert!(filtered.iter().any(|o| o["id"] == *order), "{order}");
    }
    // An order the filters did not choose keeps its assignment.
    let after_other = get(&server, &format!("/orders/assignment/{other}")).await.1;
    assert_eq!(after_other["data"], before_other["data"]);

    // A status change for every order of a status: each moves, with an entry in its history.
    let (_, statuses) = get(&server, "/orders/statuses").await;
    let status_of = |slug: &str| status_id(&statuses, slug);
    let (_, read) = get(&server, &format!("/orders/{first}")).await;
    let current = read["data"]["status"]["customized"]["id"].clone();
    let target = status_of("completed");
    let histories = |order: &Value| format!("/orders/{order}/histories");
    let entries_before = get(&server, &histories(first)).await.1["data"]
        .as_array()
        .map_or(0, Vec::len);
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "change_status", "value": { "status": target, "note": "bulk" } }],
            "filters": { "order_ids": [first] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body} from {current}");
    let (_, read) = get(&server, &format!("/orders/{first}")).await;
    assert_eq!(read["data"]["status"]["slug"], "completed", "{read}");
    let entries = get(&server, &histories(first)).await.1;
    assert_eq!(
        entries["data"].as_array().map_or(0, Vec::len),
        entries_before + 1,
        "{entries}"
    );

    // No such employee: 422, and no assignment changes.
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "assign_users", "value": [ids[2 % ids.len()], 1] }],
            "filters": { "order_ids": [first] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["fields"]["operations.0.value"].is_array(),
        "{body}"
    );
    let (_, body) = get(&server, &format!("/orders/assignment/{first}")).await;
    assert_eq!(named(&body).len(), 2, "{body}");
    // Filters that name no order of the store: 422.
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "mark_as_read" }],
            "filters": { "order_ids": [1] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["fields"]["filters.order_ids.0"].is_array(),
        "{body}"
    );
}

/// The tags an order's details show, as `(id, name)`.
async fn order_tags(server: &MockServer, order: &Value) -> Vec<(i64, String)> {
    let (status, body) = get(server, &format!("/orders/{order}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["tags"]
        .as_array()
        .unwrap_or_else(|| panic!("the details show tags: {body}"))
        .iter()
        .map(|t| {
            let id = t["id"].as_i64().expect("a tag id");
            (id, t["name"].as_str().expect("a tag name").to_owned())
        })
        .collect()
}

/// The ids of the orders `GET /orders?tags[]=TAG` lists.
async fn tagged(server: &MockServer, tag: i64) -> BTreeSet<i64> {
    all_pages(server, &format!("/orders?per_page=60&tags[]={tag}"))
        .await
        .iter()
        .filter_map(|o| o["id"].as_i64())
        .collect()
}

/// `assign_tags` (`POST /orders/actions`) adds tags to the chosen orders, and every read of an
/// order's tags shows them: the order's details (`tags`, `{id, name}`) and the orders list's
/// `tags[]` filter. A tag is named by id (one of the store's tags, `GET /products/tags`) or by
/// name; a name the store has no tag of makes one tag (once, whatever its case), listed with the
/// store's tags. The tags an order had are kept, none is shown twice, and orders the filters did
/// not choose keep theirs. A tag id the store does not have, or no tag at all, is a 422 naming the
/// value, and nothing changes (not even the new names of the refused request).
#[tokio::test]
async fn bulk_tagging_shows_in_every_read_of_the_orders_tags() {
    let server = start().await;
    let tags = all_pages(&server, "/products/tags").await;
    let known = tags[0]["id"].as_i64().expect("a tag of the store");
    let known_name = tags[0]["name"].as_str().expect("a tag name").to_owned();
    assert!(
        tags.iter().all(|t| t["name"] != "Gift wrap"),
        "the seed has no such tag"
    );
    let orders = all_pages(&server, "/orders?per_page=60").await;
    let (first, second, other) = (&orders[0]["id"], &orders[1]["id"], &orders[2]["id"]);
    let first_before = order_tags(&server, first).await;
    let other_before = order_tags(&server, other).await;

    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "assign_tags", "value": [known, "Gift wrap", " gift WRAP "] }],
            "filters": { "order_ids": [first, second] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"][0]["action_name"], "assign_tags", "{body}");

    let created: Vec<Value> = all_pages(&server, "/products/tags")
        .await
        .into_iter()
        .filter(|t| {
            t["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("gift wrap"))
        })
        .collect();
    assert_eq!(created.len(), 1, "one new tag: {created:?}");
    assert_eq!(created[0]["name"], "Gift wrap");
    let gift = created[0]["id"].as_i64().expect("the new tag's id");

    for order in [first, second] {
        let shown = order_tags(&server, order).await;
        assert!(
            shown.contains(&(known, known_name.clone())),
            "{order}: {shown:?}"
        );
        assert!(
            shown.contains(&(gift, "Gift wrap".to_owned())),
            "{order}: {shown:?}"
        );
        let ids: BTreeSet<i64> = shown.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids.len(), shown.len(), "{order}: a tag twice: {shown:?}");
    }
    let first_after = order_tags(&server, first).await;
    for tag in &first_before {
        assert!(
            first_after.contains(tag),
            "{tag:?} was kept: {first_after:?}"
        );
    }
    let expected: BTreeSet<i64> = [first, second].iter().filter_map(|o| o.as_i64()).collect();
    assert_eq!(tagged(&server, gift).await, expected, "tags[]={gift}");
    let with_known = tagged(&server, known).await;
    assert!(
        expected.is_subset(&with_known),
        "tags[]={known}: {with_known:?}"
    );
    assert_eq!(order_tags(&server, other).await, other_before, "not chosen");

    // Again, by the new tag's name in another case: nothing is added twice.
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "assign_tags", "value": ["GIFT WRAP", { "id": known }] }],
            "filters": { "order_ids": [first] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(order_tags(&server, first).await, first_after);
    let count = all_pages(&server, "/products/tags").await.len();
    assert_eq!(count, tags.len() + 1, "no other tag was made");

    // A tag id the store does not have: 422 on that element, and nothing changes.
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "assign_tags", "value": ["Fragile", 1] }],
            "filters": { "order_ids": [other] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["fields"]["operations.0.value.1"].is_array(),
        "{body}"
    );
    assert_eq!(order_tags(&server, other).await, other_before);
    let names = all_pages(&server, "/products/tags").await;
    assert!(names.iter().all(|t| t["name"] != "Fragile"), "{names:?}");
    // No tag at all: 422 on the value.
    let (status, body) = post(
        &server,
        "/orders/actions",
        json!({
            "operations": [{ "action_name": "assign_tags", "value": [] }],
            "filters": { "order_ids": [other] },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]["fields"]["operations.0.value"].is_array(),
        "{body}"
    );
}
