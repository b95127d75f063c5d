//! What the seed and the writes store agrees with itself, read over HTTP (issue 40, item 3): an
//! order made through the API names its customer as a seeded one does; an invoice's lines add up
//! to its subtotal; `country_id` and `country` tell one country; free text reads as sentences and
//! names as the things they name, never a generated "Word Noun N".

use std::collections::HashMap;

use reqwest::StatusCode;
use serde_json::{Value, json};
use store_admin_mock::MockServer;

use crate::common::{all_pages, get, post, put, start};

/// An amount: a number, a decimal string, or money's `amount`.
fn amount(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Object(map) => map.get("amount").and_then(amount),
        _ => None,
    }
}

/// The record of `list` (every page) whose id is `id`.
async fn listed(server: &MockServer, list: &str, id: &Value) -> Value {
    all_pages(server, list)
        .await
        .into_iter()
        .find(|r| r["id"] == *id)
        .unwrap_or_else(|| panic!("{id} is not in {list}"))
}

/// Whether the customer an order shows is `customer` of the customers list: the same id, and the
/// same value for every field both show.
fn assert_same_customer(shown: &Value, customer: &Value) {
    assert_eq!(shown["id"], customer["id"], "{shown}");
    let shown = shown.as_object().expect("a customer object");
    let mut common = 0;
    for field in ["first_name", "last_name", "email", "name"] {
        if let (Some(a), Some(b)) = (shown.get(field), customer.get(field)) {
            assert_eq!(a, b, "{field} of {shown:?}");
            common += 1;
        }
    }
    assert!(common > 0, "{shown:?} shows none of the customer's names");
}

/// An order made through the API is listed and read with its customer, as the seed's orders are,
/// and an update that names another customer shows that one.
#[tokio::test]
async fn an_order_made_through_the_api_reads_back_with_its_customer() {
    let server = start().await;
    let (status, seeded) = get(&server, "/orders?per_page=60").await;
    assert_eq!(status, StatusCode::OK, "{seeded}");
    for order in seeded["data"].as_array().expect("orders") {
        assert!(order["customer"]["id"].is_i64(), "a seeded order: {order}");
    }
    let customers = all_pages(&server, "/customers?per_page=60").await;
    let (first, second) = (&customers[0], &customers[1]);
    let (_, products) = get(&server, "/products?per_page=5").await;
    let product = products["data"][0]["id"].clone();
    let (status, body) = post(
        &server,
        "/orders",
        json!({
            "customer": { "id": first["id"] },
            "products": [{ "identifier_type": "id", "identifier": product, "quantity": 1 }],
        }),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let id = body["data"]["id"].clone();
    assert_same_customer(&body["data"]["customer"], first);
    let order = listed(&server, "/orders?per_page=60", &id).await;
    assert_same_customer(&order["customer"], first);
    let (status, details) = get(&server, &format!("/orders/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert_same_customer(&details["data"]["customer"], first);

    let (status, body) = put(
        &server,
        &format!("/orders/{id}"),
        json!({ "customer": { "id": second["id"] } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let order = listed(&server, "/orders?per_page=60", &id).await;
    assert_same_customer(&order["customer"], second);
}

/// Checks that each line's total is its price times its quantity less its discount and that the
/// lines add up to the invoice's subtotal; answers the subtotal.
fn assert_lines_add_up(invoice: &Value) -> f64 {
    let subtotal = amount(&invoice["subtotal"])
        .or_else(|| amount(&invoice["sub_total"]))
        .unwrap_or_else(|| panic!("no subtotal: {invoice}"));
    let lines = invoice["items"].as_array().expect("the invoice's lines");
    assert!(!lines.is_empty(), "{invoice}");
    let mut sum = 0.0;
    for line in lines {
        let price = amount(&line["price"]).expect("a line's price");
        let quantity = line["quantity"].as_f64().unwrap_or(1.0);
        let discount = amount(&line["discount"]).unwrap_or(0.0);
        let total = amount(&line["total"]).expect("a line's total");
        assert!(
            (price * quantity - discount - total).abs() < 0.011,
            "a line: {line}"
        );
        assert!(discount <= price * quantity + 0.001, "a line: {line}");
        sum += total;
    }
    assert!(
        (sum - subtotal).abs() < 0.011,
        "lines add up to {sum}, the subtotal is {subtotal}: {invoice}"
    );
    subtotal
}

/// The seed's invoices and one created with its amounts (`data_type: data`): the lines add up to
/// the subtotal, in the list and in the details.
#[tokio::test]
async fn an_invoices_lines_add_up_to_its_subtotal() {
    let server = start().await;
    let invoices = all_pages(&server, "/orders/invoices?per_page=60").await;
    assert!(!invoices.is_empty());
    for invoice in &invoices {
        let (status, details) = get(&server, &format!("/orders/invoices/{}", invoice["id"])).await;
        assert_eq!(status, StatusCode::OK, "{details}");
        assert_lines_add_up(&details["data"]);
    }
    let (_, orders) = get(&server, "/orders?per_page=1").await;
    let order = orders["data"][0]["id"].clone();
    let (status, body) = post(
        &server,
        "/orders/invoices",
        json!({
            "order_id": order,
            "type": "tax_invoice",
            "data_type": "data",
            "sub_total": "300.00",
            "total": "345.00",
            "tax": "45.00",
        }),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let id = body["data"]["id"].clone();
    let (status, details) = get(&server, &format!("/orders/invoices/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert!((assert_lines_add_up(&details["data"]) - 300.0).abs() < 0.001);
}

/// Every object of `value` that holds both `country_id` and a `country` text, with its path.
fn with_country<'v>(value: &'v Value, at: String, out: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::Object(map) => {
            if map.contains_key("country_id") && map.get("country").is_some_and(Value::is_string) {
                out.push((at.clone(), value));
            }
            for (name, inner) in map {
                with_country(inner, format!("{at}/{name}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                with_country(inner, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// `country_id` and `country` (and `country_code`) tell one country of `/countries`, in every
/// list of the seeded store and in a tax rate written with a `country_id`.
#[tokio::test]
async fn country_id_and_country_name_one_country() {
    let server = start().await;
    let countries: HashMap<String, Value> = all_pages(&server, "/countries?per_page=60")
        .await
        .into_iter()
        .map(|c| (c["id"].to_string(), c))
        .collect();
    assert!(countries.len() > 1);
    let doc = crate::sandbox::document();
    let mut checked = 0;
    for path in doc["paths"].as_object().expect("paths").keys() {
        if path.contains('{') || doc["paths"][path].get("get").is_none() {
            continue;
        }
        let (status, body) = get(&server, &format!("{path}?per_page=60")).await;
        if status != StatusCode::OK {
            continue;
        }
        let mut found = Vec::new();
        with_country(&body["data"], path.clone(), &mut found);
        for (at, record) in found {
            let country = countries
                .get(&record["country_id"].to_string())
                .unwrap_or_else(|| panic!("{at}: no country {}", record["country_id"]));
            assert_eq!(record["country"], country["name"], "{at}: {record}");
            if let Some(code) = record.get("country_code").filter(|c| c.is_string()) {
                assert_eq!(*code, country["code"], "{at}: {record}");
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no record holds both");

    // A tax rate of another country: its `country` is that country's name, after a create and
    // after an update.
    let mut others = countries
        .values()
        .filter(|c| c["code"] != "SA")
        .map(|c| (c["id"].clone(), c["name"].clone()));
    let (kuwait, kuwait_name) = others.next().expect("a country");
    let (other, other_name) = others.next().expect("another country");
    let (status, body) = post(
        &server,
        "/taxes",
        json!({ "tax": "5", "country_id": kuwait }),
    )
    .await;
    assert!(status.is_success(), "{status} {body}");
    let id = body["data"]["id"].clone();
    assert_eq!(body["data"]["country"], kuwait_name, "{body}");
    assert_eq!(
        listed(&server, "/taxes?per_page=60", &id).await["country"],
        kuwait_name
    );
    let (status, body) = put(
        &server,
        &format!("/taxes/{id}"),
        json!({ "tax": "7", "country_id": other }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        listed(&server, "/taxes?per_page=60", &id).await["country"],
        other_name
    );
}

/// The words the generator once made every name and text of ("Golden Honey 8", "Desert mug for
/// the store, item 3.").
const GENERATED: &[&str] = &[
    "Classic", "Premium", "Desert", "Golden", "Urban", "Royal", "Smart", "Fresh", "Eco", "Silver",
];

/// Whether `text` is a generated "Word Noun N" name.
fn word_noun_number(text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    words.len() == 3
        && GENERATED.contains(&words[0])
        && words[2].chars().all(|c| c.is_ascii_digit())
}

/// Whether `text` is a name told from others by a number at its end ("Classic Watch 112"): a
/// name of several words whose last is a number.
fn numbered(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() > 1
        && words
            .last()
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
}

/// Whether a field's name says it holds free text.
fn free_text(field: &str) -> bool {
    [
        "description",
        "reason",
        "note",
        "message",
        "comment",
        "review",
    ]
    .iter()
    .any(|w| field.contains(w))
}

/// Every `(path, field, text)` of the strings of `value`.
fn texts<'v>(value: &'v Value, at: &str, out: &mut Vec<(String, String, &'v str)>) {
    match value {
        Value::Object(map) => {
            for (name, inner) in map {
                match inner {
                    Value::String(text) => out.push((at.to_owned(), name.clone(), text)),
                    other => texts(other, &format!("{at}/{name}"), out),
                }
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                texts(inner, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// In every list of the seeded store (and the customers with their extra fields): no name is a
/// generated "Word Noun N" nor told from others by a number at its end (the catalogue's products
/// included: "Signature Leather Watch", not "Classic Watch 112"), free text (a blocked customer's `block_reason`, a description, a
/// note) is a sentence of a few words, and an employee's name is a person's.
#[tokio::test]
async fn names_and_free_text_read_as_what_the_field_holds() {
    let server = start().await;
    let doc = crate::sandbox::document();
    let mut lists: Vec<String> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .filter(|p| !p.contains('{') && doc["paths"][*p].get("get").is_some())
        .map(|p| format!("{p}?per_page=60"))
        .collect();
    lists.push("/customers?per_page=60&fields[]=block_reason&fields[]=is_blocked".to_owned());
    let mut bad = Vec::new();
    let mut sentences = 0;
    let mut reasons = 0;
    for list in &lists {
        let (status, body) = get(&server, list).await;
        if status != StatusCode::OK {
            continue;
        }
        let mut found = Vec::new();
        texts(&body["data"], list, &mut found);
        for (at, field, text) in found {
            if word_noun_number(text) {
                bad.push(format!("{at} {field}: {text:?} is a generated name"));
            }
            if (field == "name" || field.ends_with("_name")) && numbered(text) {
                bad.push(format!("{at} {field}: {text:?} is a numbered name"));
            }
            if free_text(&field) && !field.ends_with("_id") && !text.is_empty() {
                let words = text.split_whitespace().count();
                let generated = text.contains("for the store, item");
                if words < 3 || generated {
                    bad.push(format!("{at} {field}: {text:?} is no sentence"));
                } else {
                    sentences += 1;
                    reasons += usize::from(field == "block_reason");
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(sentences > 0, "no free text was read");
    assert!(reasons > 0, "no customer's block_reason was read");

    // Employees are people: a first and a last name, letters only.
    let employees = all_pages(&server, "/users?per_page=60").await;
    assert!(!employees.is_empty());
    let named: Vec<&str> = employees
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(!named.is_empty(), "no employee has a name");
    for name in named {
        let words: Vec<&str> = name.split(' ').collect();
        assert!(
            words.len() >= 2
                && words.iter().all(
                    |w| w.chars().all(char::is_alphabetic) && w.starts_with(char::is_uppercase)
                ),
            "an employee named {name:?}"
        );
    }
}

/// The catalogue's products have names of words (a range, a kind and the noun: "Signature
/// Leather Watch"), each different from the others, and the same seed names them alike.
#[tokio::test]
async fn seeded_product_names_are_words_unique_and_reproducible() {
    let names = |server: MockServer| async move {
        all_pages(&server, "/products?per_page=60")
            .await
            .iter()
            .map(|p| p["name"].as_str().expect("a product's name").to_owned())
            .collect::<Vec<String>>()
    };
    let first = names(start().await).await;
    assert_eq!(first.len(), 120);
    for name in &first {
        let words: Vec<&str> = name.split_whitespace().collect();
        assert!(
            words.len() >= 3
                && words.iter().all(|w| {
                    w.starts_with(|c: char| c.is_ascii_uppercase())
                        && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
                }),
            "{name:?}"
        );
    }
    let unique: std::collections::HashSet<&String> = first.iter().collect();
    assert_eq!(unique.len(), first.len(), "names repeat: {first:?}");
    assert_eq!(
        names(start().await).await,
        first,
        "the same seed names alike"
    );
    let other = crate::common::start_with(
        store_admin_mock::MockConfig::new()
            .seed(43)
            .products(120)
            .token_all_scopes(crate::common::ADMIN),
    )
    .await;
    assert_ne!(names(other).await, first, "another seed names otherwise");
}
