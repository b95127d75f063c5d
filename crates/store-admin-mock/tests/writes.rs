//! Writes act on the store as the service does: what a write did is what every read (the
//! record's own get, its list, its parent) shows. Child collections (an option's values, a
//! product's images and files, an order's items, a category's children and products) are kept
//! beside their parent and found by their own ids.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use store_admin_mock::MockServer;

use crate::common::{ADMIN, all_pages, client, delete, get, post, put, start};

fn id_of(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => panic!("no id: {other}"),
    }
}

fn ids(items: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = items.iter().map(|i| id_of(&i["id"])).collect();
    ids.sort();
    ids
}

fn amount(money: &Value) -> f64 {
    match money.get("amount").unwrap_or(money) {
        Value::Number(n) => n.as_f64().expect("a number"),
        Value::String(s) => s.parse().expect("a decimal string"),
        other => panic!("no amount in {money}: {other}"),
    }
}

async fn multipart(server: &MockServer, path: &str, form: Form) -> (StatusCode, Value) {
    let response = client()
        .post(format!("{}{path}", server.base_url()))
        .bearer_auth(ADMIN)
        .multipart(form)
        .send()
        .await
        .expect("sent");
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// A product of the store of type `product`, by id.
async fn a_product(server: &MockServer) -> Value {
    let (status, list) = get(server, "/products?per_page=50").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["data"]
        .as_array()
        .expect("products")
        .iter()
        .find(|p| p["type"] == "product")
        .cloned()
        .expect("a product")
}

#[tokio::test]
async fn an_options_value_is_added_to_it_and_found_by_its_own_id() {
    let server = start().await;
    let product = id_of(&a_product(&server).await["id"]);
    let (status, option) = post(
        &server,
        &format!("/products/{product}/options"),
        json!({"name": "Size", "values": [{"name": "S", "price": 0}]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{option}");
    let option_id = id_of(&option["data"]["id"]);

    let (status, answer) = post(
        &server,
        &format!("/products/options/{option_id}"),
        json!({"name": "XL", "price": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    // The documented answer is the option, with the new value among its values.
    assert_eq!(answer["data"]["id"].to_string(), option_id);
    assert_eq!(answer["data"]["name"], "Size", "the option is not renamed");
    let value = answer["data"]["values"]
        .as_array()
        .expect("values")
        .iter()
        .find(|v| v["name"] == "XL")
        .cloned()
        .expect("the new value is among the option's values");
    let value_id = id_of(&value["id"]);
    assert_ne!(value_id, option_id);

    let (status, option) = get(&server, &format!("/products/options/{option_id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(option["data"]["name"], "Size");
    assert!(
        option["data"]["values"]
            .as_array()
            .expect("values")
            .iter()
            .any(|v| id_of(&v["id"]) == value_id)
    );
    let (status, read) = get(&server, &format!("/products/options/values/{value_id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["data"]["name"], "XL");
    assert_eq!(id_of(&read["data"]["option_id"]), option_id);
    let (_, product_read) = get(&server, &format!("/products/{product}")).await;
    let in_product = product_read["data"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .flat_map(|o| o["values"].as_array().cloned().unwrap_or_default())
        .any(|v| id_of(&v["id"]) == value_id);
    assert!(in_product, "the product's read shows the value");

    let (status, _) = put(
        &server,
        &format!("/products/options/values/{value_id}"),
        json!({"name": "XXL"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, read) = get(&server, &format!("/products/options/values/{value_id}")).await;
    assert_eq!(read["data"]["name"], "XXL");
    let (status, _) = delete(&server, &format!("/products/options/values/{value_id}")).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _) = get(&server, &format!("/products/options/values/{value_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, option) = get(&server, &format!("/products/options/{option_id}")).await;
    assert!(
        !option["data"]["values"]
            .as_array()
            .expect("values")
            .iter()
            .any(|v| id_of(&v["id"]) == value_id)
    );
}

#[tokio::test]
async fn a_products_image_is_its_own_record_in_the_products_gallery() {
    let server = start().await;
    let product = id_of(&a_product(&server).await["id"]);
    let form = Form::new()
        .part(
            "photo",
            Part::bytes(vec![0x89, b'P', b'N', b'G'])
                .file_name("a.png")
                .mime_str("image/png")
                .expect("mime"),
        )
        .text("sort", "3")
        .text("alt", "front");
    let (status, image) = multipart(&server, &format!("/products/{product}/images"), form).await;
    assert_eq!(status, StatusCode::CREATED, "{image}");
    let image_id = id_of(&image["data"]["id"]);
    assert_ne!(
        image_id, product,
        "the answer is the image, not the product"
    );
    assert_eq!(image["data"]["sort"], 3);

    let gallery = |product: Value| -> Vec<String> {
        product["data"]["images"]
            .as_array()
            .map(|i| ids(i))
            .unwrap_or_default()
    };
    let (_, read) = get(&server, &format!("/products/{product}")).await;
    assert!(gallery(read).contains(&image_id), "the product shows it");

    let form = Form::new()
        .part(
            "photo",
            Part::bytes(vec![0x89, b'P', b'N', b'G'])
                .file_name("b.png")
                .mime_str("image/png")
                .expect("mime"),
        )
        .text("sort", "7");
    let (status, changed) = multipart(&server, &format!("/products/images/{image_id}"), form).await;
    assert_eq!(status, StatusCode::CREATED, "{changed}");
    assert_eq!(id_of(&changed["data"]["id"]), image_id);
    assert_eq!(changed["data"]["sort"], 7);

    let (status, _) = delete(&server, &format!("/products/images/{image_id}")).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, read) = get(&server, &format!("/products/{product}")).await;
    assert!(
        !gallery(read).contains(&image_id),
        "deleted from the product"
    );
    let (status, _) = delete(&server, &format!("/products/images/{image_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_digital_file_is_found_by_its_own_id() {
    let server = start().await;
    let product = id_of(&a_product(&server).await["id"]);
    let form = Form::new()
        .part(
            "file",
            Part::bytes(b"%PDF".to_vec())
                .file_name("guide.pdf")
                .mime_str("application/pdf")
                .expect("mime"),
        )
        .text("file_name", "Guide");
    let (status, file) =
        multipart(&server, &format!("/products/{product}/digital-files"), form).await;
    assert_eq!(status, StatusCode::CREATED, "{file}");
    // What was sent is kept, with what the upload says of the file (its bytes, its address).
    assert_eq!(file["data"]["name"], "Guide", "{file}");
    assert_eq!(file["data"]["size"], 4, "{file}");
    assert!(file["data"]["url"].is_string(), "{file}");
    // Its id (`ProductDigitalFile.id`) is the one the product's details list it by.
    let file_id = id_of(&file["data"]["id"]);
    let files = |read: &Value| -> Vec<Value> {
        read["data"]["digital_files"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let (status, read) = get(&server, &format!("/products/{product}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    let listed = files(&read);
    let shown = listed
        .iter()
        .find(|f| id_of(&f["id"]) == file_id)
        .unwrap_or_else(|| panic!("{file_id} is not in {read}"));
    assert_eq!(
        shown, &file["data"],
        "the details show the file as its create answered it"
    );
    // A second file is a record of its own; deleting the first by its id leaves the second.
    let form = Form::new()
        .part(
            "file",
            Part::bytes(b"%PDF-1.7".to_vec())
                .file_name("terms.pdf")
                .mime_str("application/pdf")
                .expect("mime"),
        )
        .text("file_name", "Terms");
    let (status, second) =
        multipart(&server, &format!("/products/{product}/digital-files"), form).await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    let second_id = id_of(&second["data"]["id"]);
    assert_ne!(second_id, file_id);
    let (status, body) = delete(&server, &format!("/products/digital-files/{file_id}")).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let (_, read) = get(&server, &format!("/products/{product}")).await;
    let ids: Vec<String> = files(&read).iter().map(|f| id_of(&f["id"])).collect();
    assert_eq!(ids, vec![second_id], "{read}");
    let (status, _) = delete(&server, &format!("/products/digital-files/{file_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Another product's details show none of them.
    let (_, list) = get(&server, "/products?per_page=5").await;
    let other = list["data"]
        .as_array()
        .expect("products")
        .iter()
        .map(|p| id_of(&p["id"]))
        .find(|id| *id != product)
        .expect("another product");
    let (_, read) = get(&server, &format!("/products/{other}")).await;
    assert!(files(&read).is_empty(), "{read}");
}

/// An order of the store and its items as the order's details show them.
async fn an_order(server: &MockServer) -> (String, Value) {
    let (_, list) = get(server, "/orders?per_page=5").await;
    let id = id_of(&list["data"][0]["id"]);
    let (status, order) = get(server, &format!("/orders/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    (id, order["data"].clone())
}

#[tokio::test]
async fn an_orders_items_are_its_own_and_a_new_item_is_priced_into_its_total() {
    let server = start().await;
    let (order_id, order) = an_order(&server).await;
    let (status, listed) = get(&server, &format!("/orders/items?order_id={order_id}")).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let listed = listed["data"].as_array().expect("items").clone();
    let in_order = order["items"].as_array().expect("items").clone();
    assert_eq!(
        ids(&listed),
        ids(&in_order),
        "the list is the order's lines"
    );
    let (_, other) = get(&server, "/orders?per_page=5").await;
    let other_id = id_of(&other["data"][1]["id"]);
    let (_, other_items) = get(&server, &format!("/orders/items?order_id={other_id}")).await;
    let other_items = ids(other_items["data"].as_array().expect("items"));
    assert!(ids(&listed).iter().all(|id| !other_items.contains(id)));

    let product = a_product(&server).await;
    let price = amount(&product["price"]);
    let total_before = amount(&order["amounts"]["total"]);
    let (status, answer) = post(
        &server,
        "/orders/items",
        json!({"order_id": order_id.parse::<i64>().unwrap(), "identifier_type": "id",
               "identifier": product["id"], "quantity": 2}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let answered = answer["data"].as_array().expect("the order's items");
    assert_eq!(answered.len(), in_order.len() + 1);
    let new_item = answered
        .iter()
        .find(|i| !ids(&in_order).contains(&id_of(&i["id"])))
        .cloned()
        .expect("the new line");
    assert_eq!(new_item["name"], product["name"]);
    assert_eq!(new_item["quantity"], 2);
    let new_id = id_of(&new_item["id"]);

    let (_, listed) = get(&server, &format!("/orders/items?order_id={order_id}")).await;
    assert!(ids(listed["data"].as_array().expect("items")).contains(&new_id));
    let (_, order) = get(&server, &format!("/orders/{order_id}")).await;
    assert!(ids(order["data"]["items"].as_array().expect("items")).contains(&new_id));
    let total_after = amount(&order["data"]["amounts"]["total"]);
    assert!(
        (total_after - (total_before + 2.0 * price)).abs() < 0.01,
        "{total_before} + 2 x {price} != {total_after}"
    );

    let (status, _) = put(
        &server,
        &format!("/orders/items/{new_id}"),
        json!({"quantity": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, order) = get(&server, &format!("/orders/{order_id}")).await;
    let total = amount(&order["data"]["amounts"]["total"]);
    assert!((total - (total_before + price)).abs() < 0.01, "{total}");
    let (status, _) = delete(&server, &format!("/orders/items/{new_id}")).await;
    assert_eq!(status, StatusCode::OK);
    let (_, order) = get(&server, &format!("/orders/{order_id}")).await;
    assert!(!ids(order["data"]["items"].as_array().expect("items")).contains(&new_id));
    let total = amount(&order["data"]["amounts"]["total"]);
    assert!((total - total_before).abs() < 0.01, "{total}");

    let (status, _) = post(
        &server,
        "/orders/items",
        json!({"order_id": 1, "identifier_type": "id", "identifier": product["id"]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// A product created through the API is priced into an order at its price (not 0), and a line
/// keeps the weight, weight unit and options it was sent with, on its create's answer and on
/// every read of the order's lines.
#[tokio::test]
async fn a_new_line_is_priced_from_a_created_product_and_keeps_what_was_sent() {
    let server = start().await;
    let (order_id, order) = an_order(&server).await;
    let (status, created) = post(
        &server,
        "/products",
        json!({"name": "Priced", "price": 20, "product_type": "product", "quantity": 50}),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let product_id = created["data"]["id"].clone();
    let total_before = amount(&order["amounts"]["total"]);
    let (status, answer) = post(
        &server,
        "/orders/items",
        json!({"order_id": order_id.parse::<i64>().unwrap(), "identifier_type": "id",
               "identifier": product_id, "quantity": 3, "weight": 150, "weight_type": "g",
               "options": [{"id": 789012, "value": ["gift wrap"]}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let line = answer["data"]
        .as_array()
        .expect("the order's items")
        .iter()
        .find(|i| i["name"] == "Priced")
        .cloned()
        .expect("the new line");
    assert!(
        (amount(&line["amounts"]["total"]) - 60.0).abs() < 0.01,
        "{line}"
    );
    let (_, listed) = get(&server, &format!("/orders/items?order_id={order_id}")).await;
    let read = listed["data"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["id"] == line["id"])
        .cloned()
        .expect("listed");
    for shown in [&line, &read] {
        assert_eq!(shown["weight"], 150, "{shown}");
        assert_eq!(shown["weight_type"], "g", "{shown}");
        assert_eq!(shown["options"][0]["product_option_id"], 789012, "{shown}");
        assert_eq!(
            shown["options"][0]["value"][0]["name"], "gift wrap",
            "{shown}"
        );
    }
    let (_, order) = get(&server, &format!("/orders/{order_id}")).await;
    let total_after = amount(&order["data"]["amounts"]["total"]);
    assert!(
        (total_after - (total_before + 60.0)).abs() < 0.01,
        "{total_before} + 3 x 20 != {total_after}"
    );
}

#[tokio::test]
async fn a_categorys_children_and_products_are_what_the_lists_say() {
    let server = start().await;
    let categories = all_pages(&server, "/categories").await;
    let parent = categories
        .iter()
        .find(|c| {
            let id = id_of(&c["id"]);
            categories
                .iter()
                .any(|k| k["parent_id"].is_number() && id_of(&k["parent_id"]) == id)
        })
        .cloned()
        .expect("a category with children");
    let parent_id = id_of(&parent["id"]);
    let children: Vec<Value> = categories
        .iter()
        .filter(|k| k["parent_id"].is_number() && id_of(&k["parent_id"]) == parent_id)
        .cloned()
        .collect();
    let (status, listed) = get(&server, &format!("/categories/{parent_id}/children")).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(
        ids(listed["data"].as_array().expect("children")),
        ids(&children)
    );
    let (_, read) = get(&server, &format!("/categories/{parent_id}")).await;
    assert_eq!(
        ids(read["data"]["items"].as_array().expect("items")),
        ids(&children),
        "the parent's read carries its sub-categories"
    );
    let name = children[0]["name"].as_str().expect("a name");
    let (status, found) = get(&server, &format!("/categories/search?keyword={name}")).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert!(ids(found["data"].as_array().expect("found")).contains(&id_of(&children[0]["id"])));

    // A new child is found by all of them.
    let (status, created) = post(
        &server,
        "/categories",
        json!({"name": "Gift boxes", "parent_id": parent_id.parse::<i64>().unwrap()}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let new_id = id_of(&created["data"]["id"]);
    let (_, listed) = get(&server, &format!("/categories/{parent_id}/children")).await;
    assert!(ids(listed["data"].as_array().expect("children")).contains(&new_id));

    for category in categories.iter().take(6) {
        let id = id_of(&category["id"]);
        let by_category = all_pages(&server, &format!("/categories/{id}/products")).await;
        let by_filter = all_pages(&server, &format!("/products?category={id}")).await;
        assert_eq!(ids(&by_category), ids(&by_filter), "category {id}");
    }
}

/// The stock of a product's variant and of a product without variants, as every read shows it.
async fn stock_reads(server: &MockServer, product: &str) -> (Value, Vec<Value>) {
    let (_, read) = get(server, &format!("/products/{product}")).await;
    let rows: Vec<Value> = all_pages(server, "/products/quantities")
        .await
        .into_iter()
        .filter(|r| id_of(&r["id"]) == product)
        .collect();
    (read["data"].clone(), rows)
}

#[tokio::test]
async fn stock_updates_change_what_the_product_its_variants_and_the_quantities_list_show() {
    let server = start().await;
    let products = all_pages(&server, "/products").await;
    let with_variants = products
        .iter()
        .find(|p| p["skus"].as_array().is_some_and(|s| s.len() >= 2))
        .cloned()
        .expect("a product with variants");
    let product = id_of(&with_variants["id"]);
    let variant = id_of(&with_variants["skus"][0]["id"]);
    let other = with_variants["skus"][1]["stock_quantity"]
        .as_i64()
        .expect("a stock");

    let (status, answer) = put(
        &server,
        &format!("/products/quantities/variant/{variant}"),
        json!({"quantity": 40}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert_eq!(answer["data"]["stock_quantity"], 40);
    let (read, rows) = stock_reads(&server, &product).await;
    assert_eq!(read["skus"][0]["stock_quantity"], 40);
    let (_, variant_read) = get(&server, &format!("/products/variants/{variant}")).await;
    assert_eq!(variant_read["data"]["stock_quantity"], 40);
    let row = rows
        .iter()
        .find(|r| id_of(&r["sku_id"]) == variant)
        .expect("the variant's row");
    assert_eq!(row["quantity"], 40);

    // Bulk, by variant id (incremented) and by SKU (overwritten).
    let sku = with_variants["skus"][1]["sku"]
        .as_str()
        .expect("a SKU")
        .to_owned();
    let (status, answer) = post(
        &server,
        "/products/quantities/bulk",
        json!({"products": [
            {"identifer_type": "variant_id", "identifer": variant, "quantity": 5, "mode": "increment"},
            {"identifer_type": "sku", "identifer": sku, "quantity": other + 3},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (read, rows) = stock_reads(&server, &product).await;
    assert_eq!(read["skus"][0]["stock_quantity"], 45);
    assert_eq!(read["skus"][1]["stock_quantity"], other + 3);
    let sum: i64 = read["skus"]
        .as_array()
        .expect("skus")
        .iter()
        .map(|v| v["stock_quantity"].as_i64().expect("a stock"))
        .sum();
    assert_eq!(
        read["quantity"], sum,
        "the product's stock is its variants'"
    );
    let listed: i64 = rows
        .iter()
        .map(|r| r["quantity"].as_i64().expect("a quantity"))
        .sum();
    assert_eq!(listed, sum);

    // A product with variants is stocked by its variants: by its own id, a 422 and nothing
    // changes.
    let (status, _) = post(
        &server,
        "/products/quantities/bulk",
        json!({"products": [
            {"identifer_type": "variant_id", "identifer": variant, "quantity": 1},
            {"identifer_type": "id", "identifer": product, "quantity": 1},
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (read, _) = stock_reads(&server, &product).await;
    assert_eq!(read["skus"][0]["stock_quantity"], 45);

    // A product without variants, by id.
    let plain = products
        .iter()
        .find(|p| p["skus"].as_array().is_none_or(Vec::is_empty) && p["unlimited_quantity"] != true)
        .map(|p| id_of(&p["id"]))
        .expect("a product without variants");
    let (status, _) = post(
        &server,
        "/products/quantities/bulk",
        json!({"products": [{"identifer_type": "id", "identifer": plain, "quantity": 12}]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (read, rows) = stock_reads(&server, &plain).await;
    assert_eq!(read["quantity"], 12);
    assert_eq!(rows[0]["quantity"], 12);
}

/// Every object of `value` holding an `amount` (money), with where it is.
fn moneys<'v>(value: &'v Value, at: String, out: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::Object(map) => {
            if map.contains_key("amount") {
                out.push((at.clone(), value));
            }
            for (key, inner) in map {
                moneys(inner, format!("{at}.{key}"), out);
            }
        }
        Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                moneys(inner, format!("{at}[{index}]"), out);
            }
        }
        _ => {}
    }
}

/// The product `id` as the products list shows it.
async fn listed_product(server: &MockServer, id: &str) -> Value {
    all_pages(server, "/products?per_page=60")
        .await
        .into_iter()
        .find(|p| id_of(&p["id"]) == id)
        .expect("listed")
}

/// Checks that `read` shows `price` as money in the store's currency, and that every money of
/// it carries that currency.
fn assert_priced(read: &Value, price: Value) {
    assert_eq!(
        read["price"],
        json!({"amount": price, "currency": "SAR"}),
        "{read}"
    );
    let mut found = Vec::new();
    moneys(read, String::new(), &mut found);
    for (at, money) in found {
        assert_eq!(money["currency"], "SAR", "{at}: {money}");
    }
}

/// A product created or updated through the API reads back its price as the service writes
/// money, with the store's currency, in the write's answer, its get and the list, as a seeded
/// product does; an order of it is priced from it (its lines, then shipping), not 0.
#[tokio::test]
async fn a_written_products_price_is_money_in_the_stores_currency_on_every_read() {
    let server = start().await;
    let seeded = a_product(&server).await;
    let (_, seeded_read) = get(&server, &format!("/products/{}", id_of(&seeded["id"]))).await;
    for shown in [&seeded, &seeded_read["data"]] {
        assert_priced(shown, seeded["price"]["amount"].clone());
    }
    let (status, created) = post(
        &server,
        "/products",
        json!({"name": "Priced Mug", "price": 20, "product_type": "product", "quantity": 40}),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let id = id_of(&created["data"]["id"]);
    let (status, read) = get(&server, &format!("/products/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    for shown in [
        &created["data"],
        &read["data"],
        &listed_product(&server, &id).await,
    ] {
        assert_priced(shown, json!(20));
    }

    let (status, updated) = put(&server, &format!("/products/{id}"), json!({"price": 35.5})).await;
    assert!(status.is_success(), "{status} {updated}");
    let (_, read) = get(&server, &format!("/products/{id}")).await;
    for shown in [
        &updated["data"],
        &read["data"],
        &listed_product(&server, &id).await,
    ] {
        assert_priced(shown, json!(35.5));
    }

    let (_, customers) = get(&server, "/customers?per_page=1").await;
    let customer = customers["data"][0]["id"].clone();
    let (status, order) = post(
        &server,
        "/orders",
        json!({"customer": {"id": customer},
               "products": [{"identifier_type": "id", "identifier": id.parse::<i64>().unwrap(), "quantity": 2}],
               "payment": {"method": "cod"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    let order_id = id_of(&order["data"]["id"]);
    let (_, read) = get(&server, &format!("/orders/{order_id}")).await;
    for shown in [&order["data"], &read["data"]] {
        let amounts = &shown["amounts"];
        assert!(
            (amount(&amounts["sub_total"]) - 71.0).abs() < 0.01,
            "{shown}"
        );
        assert!(
            (amount(&amounts["total"]) - (71.0 + amount(&amounts["shipping_cost"]))).abs() < 0.01,
            "{shown}"
        );
        assert_eq!(amounts["total"]["currency"], "SAR", "{shown}");
        assert!(
            (amount(&shown["items"][0]["amounts"]["total"]) - 71.0).abs() < 0.01,
            "{shown}"
        );
    }
    let (_, orders) = get(&server, "/orders?per_page=5").await;
    let row = &orders["data"][0];
    assert_eq!(id_of(&row["id"]), order_id);
    assert!(amount(&row["total"]) >= 71.0, "{row}");
}

/// A `prices` file imported through `POST /products/import` sets a product's price as money in
/// the store's currency, as a create or an update does (read when the import's job has run).
#[tokio::test]
async fn an_imported_price_is_money_in_the_stores_currency() {
    use store_admin_mock::{Limits, MockConfig};
    let server = crate::common::start_with(
        MockConfig::new()
            .seed(42)
            .products(30)
            .token_all_scopes(ADMIN)
            .limits(Limits {
                background_job: std::time::Duration::from_millis(10),
                ..Limits::default()
            }),
    )
    .await;
    let product = all_pages(&server, "/products?per_page=60")
        .await
        .into_iter()
        .find(|p| p["sku"].as_str().is_some_and(|s| !s.is_empty()) && p["skus"] == json!([]))
        .expect("a product with a SKU and no variants");
    let (id, sku) = (
        id_of(&product["id"]),
        product["sku"].as_str().unwrap().to_owned(),
    );
    let file = Part::bytes(format!("sku,price\n{sku},77.5\n").into_bytes()).file_name("prices.csv");
    let (status, body) = multipart(
        &server,
        "/products/import",
        Form::new().part("file", file).text("type", "prices"),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let mut read = Value::Null;
    for _ in 0..500 {
        read = get(&server, &format!("/products/{id}")).await.1;
        if amount(&read["data"]["price"]) == 77.5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_priced(&read["data"], json!(77.5));
    assert_priced(&listed_product(&server, &id).await, json!(77.5));
}

/// A variant's prices changed through `PUT /products/variants/{id}` read back as money in the
/// store's currency, from the variant and from its product; an order of the variant's SKU is
/// priced at its new price.
#[tokio::test]
async fn a_variants_written_price_is_money_in_the_stores_currency() {
    let server = start().await;
    let product = all_pages(&server, "/products?per_page=60")
        .await
        .into_iter()
        .find(|p| p["skus"].as_array().is_some_and(|s| !s.is_empty()))
        .expect("a product with variants");
    let variant = id_of(&product["skus"][0]["id"]);
    let (status, answer) = put(
        &server,
        &format!("/products/variants/{variant}"),
        json!({"price": 30, "sale_price": 25, "cost_price": 5, "barcode": "1", "gtin": "1",
               "mpn": "1", "sku": "VAR-30", "stock_quantity": 3, "weight": 1}),
    )
    .await;
    assert!(status.is_success(), "{status} {answer}");
    let (_, read) = get(&server, &format!("/products/variants/{variant}")).await;
    let (_, owner) = get(&server, &format!("/products/{}", id_of(&product["id"]))).await;
    let in_product = owner["data"]["skus"]
        .as_array()
        .expect("skus")
        .iter()
        .find(|s| id_of(&s["id"]) == variant)
        .cloned()
        .expect("the variant in its product");
    for shown in [&answer["data"], &read["data"], &in_product] {
        assert_priced(shown, json!(30));
        assert_eq!(
            shown["sale_price"],
            json!({"amount": 25, "currency": "SAR"}),
            "{shown}"
        );
    }
    let (_, customers) = get(&server, "/customers?per_page=1").await;
    let (status, order) = post(
        &server,
        "/orders",
        json!({"customer": {"id": customers["data"][0]["id"]},
               "products": [{"identifier_type": "sku", "identifier": "VAR-30", "quantity": 1}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{order}");
    assert!(
        (amount(&order["data"]["amounts"]["sub_total"]) - 30.0).abs() < 0.01,
        "{order}"
    );
}

/// Now in the store's time zone (Asia/Riyadh, UTC+3), as the service writes a local timestamp.
fn store_now() -> chrono::NaiveDateTime {
    (chrono::Utc::now() + chrono::Duration::hours(3)).naive_utc()
}

/// Whether `value` is the service's date object (`{date, timezone_type: 3, timezone:
/// "Asia/Riyadh"}`) of a moment between `from` and `to`, in the store's time zone.
fn is_store_date(value: &Value, from: chrono::NaiveDateTime, to: chrono::NaiveDateTime) -> bool {
    let Some(date) = value["date"].as_str() else {
        return false;
    };
    let moment = chrono::NaiveDateTime::parse_from_str(
        date.split('.').next().unwrap_or_default(),
        "%Y-%m-%d %H:%M:%S",
    );
    value["timezone_type"] == 3
        && value["timezone"] == "Asia/Riyadh"
        && moment.is_ok_and(|m| {
            m >= from - chrono::Duration::seconds(1) && m <= to + chrono::Duration::seconds(1)
        })
}

/// The records a create or an update writes carry their dates in the store's time zone, as the
/// service writes them and as the seed's are: a date object (`created_at`, `updated_at` of a
/// coupon) holds the local time of the write with `timezone_type` 3 and the store's
/// `timezone`, in the create's answer, the details and the list; a timestamp sent with an offset
/// (`2030-05-01T07:00:00Z`) reads back as the store's local time (`2030-05-01 10:00:00`).
#[tokio::test]
async fn written_dates_are_in_the_stores_time_zone() {
    let server = start().await;
    let from = store_now();
    let (status, created) = post(
        &server,
        "/coupons",
        json!({
            "code": "ZONE30", "type": "percentage", "amount": 10, "free_shipping": false,
            "expiry_date": "2030-12-31", "exclude_sale_products": false,
        }),
    )
    .await;
    assert!(status.is_success(), "{status} {created}");
    let id = id_of(&created["data"]["id"]);
    let (_, details) = get(&server, &format!("/coupons/{id}")).await;
    let listed = all_pages(&server, "/coupons?per_page=60")
        .await
        .into_iter()
        .find(|c| id_of(&c["id"]) == id)
        .expect("the coupon is listed");
    let to = store_now();
    for (read, record) in [
        ("create", &created["data"]),
        ("details", &details["data"]),
        ("list", &listed),
    ] {
        for field in ["created_at", "updated_at"] {
            if record.get(field).is_some() {
                assert!(
                    is_store_date(&record[field], from, to),
                    "{read} {field}: {} (now {from} to {to} in Riyadh)",
                    record[field]
                );
            }
        }
    }
    assert!(
        created["data"].get("created_at").is_some(),
        "the coupon's answer shows its creation: {created}"
    );
    let (status, updated) = put(
        &server,
        &format!("/coupons/{id}"),
        json!({ "amount": 15, "expiry_date": "2031-01-31" }),
    )
    .await;
    assert!(status.is_success(), "{status} {updated}");
    let (_, details) = get(&server, &format!("/coupons/{id}")).await;
    if let Some(updated_at) = details["data"].get("updated_at") {
        assert!(
            is_store_date(updated_at, from, store_now()),
            "details updated_at: {updated_at}"
        );
    }

    // A timestamp sent with an offset is written in the store's time zone.
    let (status, offer) = post(
        &server,
        "/specialoffers",
        json!({
            "name": "Zone offer", "applied_channel": "browser_and_application",
            "offer_type": "buy_x_get_y", "applied_to": "product",
            "start_date": "2030-05-01T07:00:00Z", "expiry_date": "2030-06-01T00:30:00+00:00",
        }),
    )
    .await;
    assert!(status.is_success(), "{status} {offer}");
    let offer_id = id_of(&offer["data"]["id"]);
    let (_, details) = get(&server, &format!("/specialoffers/{offer_id}")).await;
    let listed = all_pages(&server, "/specialoffers?per_page=60")
        .await
        .into_iter()
        .find(|o| id_of(&o["id"]) == offer_id)
        .expect("the offer is listed");
    for (read, record) in [
        ("create", &offer["data"]),
        ("details", &details["data"]),
        ("list", &listed),
    ] {
        for (field, local) in [
            ("start_date", "2030-05-01 10:00:00"),
            ("expiry_date", "2030-06-01 03:30:00"),
        ] {
            if let Some(value) = record.get(field) {
                let text = value.as_str().or_else(|| value["date"].as_str());
                assert_eq!(
                    text.map(|t| t.split('.').next().unwrap_or_default()),
                    Some(local),
                    "{read} {field}: {record}"
                );
            }
        }
    }
    assert!(details["data"].get("start_date").is_some(), "{details}");

    // An entry the store writes itself (a status change's history) is dated alike.
    let (_, orders) = get(&server, "/orders?per_page=5").await;
    let order = id_of(&orders["data"][0]["id"]);
    let (_, statuses) = get(&server, "/orders/statuses").await;
    let from = store_now();
    let (status, body) = post(
        &server,
        &format!("/orders/{order}/status"),
        json!({ "status_id": statuses["data"][0]["id"] }),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let (_, history) = get(&server, &format!("/orders/{order}/histories")).await;
    let entry = &history["data"][0];
    assert!(
        is_store_date(&entry["created_at"], from, store_now()),
        "{entry}"
    );
}
