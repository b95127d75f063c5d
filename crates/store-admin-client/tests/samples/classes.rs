//! The classes of documented bodies that the service's documentation shows and its document did
//! not: each as a property over every documented example of the shared half
//! (`tests/fixtures/examples/`, decoded through the CLI's decoders), rewritten in that class, or
//! (where no documented example has the shape to rewrite) as made-up bodies of some operations.
//!
//! Answers: a paged list without `pagination`, an error answer without `error` (Laravel's
//! `message`/`errors` at the top), a create answer without the record's `id`, a union that a value
//! of a JSON type no branch takes (kept as its JSON). Requests: a boolean or translations where text is declared,
//! an id where a record is declared, a required field left out. And `sku_id` as a SKU's text.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use store_admin_client::decoders;
use store_admin_client::types;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/examples")
}

/// One documented example: its body and the decoder `store-admin decode` uses for it.
struct Example {
    file: String,
    method: String,
    body: Value,
    decode: decoders::DecodeFn,
    /// A success answer (not an error, not a request).
    success: bool,
    request: bool,
}

/// The operation of `method path` (the documentation's parameter names need not match).
fn operation_id(method: &str, path: &str) -> Option<&'static str> {
    let key = |p: &str| -> Vec<String> {
        p.trim_matches('/')
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    "{}".into()
                } else {
                    s.into()
                }
            })
            .collect()
    };
    let wanted = key(path);
    let mut best: Option<(usize, &'static str)> = None;
    for meta in store_admin_client::OPERATIONS {
        if !meta.method.eq_ignore_ascii_case(method) {
            continue;
        }
        let have = key(meta.path);
        if have.len() != wanted.len() {
            continue;
        }
        let mut literal = 0;
        let fits = have.iter().zip(&wanted).all(|(h, w)| {
            if h == "{}" {
                true
            } else {
                literal += usize::from(h == w);
                h == w
            }
        });
        if fits && best.is_none_or(|(score, _)| literal > score) {
            best = Some((literal, meta.operation_id));
        }
    }
    best.map(|(_, id)| id)
}

fn examples() -> Vec<Example> {
    let manifest = std::fs::read_to_string(examples_dir().join("MANIFEST.tsv")).expect("manifest");
    let mut out = Vec::new();
    for line in manifest.lines().skip(1) {
        let cells: Vec<&str> = line.split('\t').collect();
        let [file, method, path, status, ..] = cells[..] else {
            continue;
        };
        if !file.ends_with(".json") {
            continue;
        }
        let text = std::fs::read_to_string(examples_dir().join(file)).expect("example");
        let body: Value = serde_json::from_str(&text).expect("JSON");
        let id = operation_id(method, path).unwrap_or_else(|| panic!("{file}: no operation"));
        let decoder = decoders::find(id).expect("a decoder");
        let request = status == "request";
        let success = !request
            && status.starts_with('2')
            && body.get("success").and_then(Value::as_bool) != Some(false);
        let decode = if request {
            decoder.request.expect("a request body")
        } else if success {
            decoder.success
        } else {
            decoder.error
        };
        out.push(Example {
            file: file.to_owned(),
            method: method.to_owned(),
            body,
            decode,
            success,
            request,
        });
    }
    assert!(out.len() >= 360, "{} examples", out.len());
    out
}

fn decodes(example: &Example, body: &Value) -> Result<(), String> {
    (example.decode)(body.to_string().as_bytes())
}

#[test]
fn a_paged_list_documented_without_pagination_decodes() {
    let mut rewritten = 0;
    for example in examples().iter().filter(|e| e.success) {
        let mut body = example.body.clone();
        let Some(envelope) = body.as_object_mut() else {
            continue;
        };
        if envelope.remove("pagination").is_none() {
            continue;
        }
        rewritten += 1;
        decodes(example, &body)
            .unwrap_or_else(|e| panic!("{} without pagination: {e}", example.file));
    }
    assert!(rewritten > 10, "{rewritten} paged examples");
    // And typed: the page is there, its pagination absent.
    let page: types::OrderList = serde_json::from_value(json!({
        "status": 200, "success": true, "data": []
    }))
    .expect("a page without pagination");
    assert!(page.pagination.is_none());
    assert!(page.data.is_empty());
}

#[test]
fn an_error_answer_without_error_decodes_with_its_message_kept() {
    let mut rewritten = 0;
    for example in examples().iter().filter(|e| !e.success && !e.request) {
        let Some(detail) = example.body.get("error").cloned() else {
            continue;
        };
        rewritten += 1;
        // Laravel's form: the message (and the fields' messages) at the top.
        let mut body = example.body.clone();
        let envelope = body.as_object_mut().expect("an object");
        envelope.remove("error");
        if let Some(message) = detail.get("message") {
            envelope.insert("message".into(), message.clone());
        }
        if let Some(fields) = detail.get("fields") {
            envelope.insert("errors".into(), fields.clone());
        }
        decodes(example, &body).unwrap_or_else(|e| panic!("{} without error: {e}", example.file));
        let typed: types::ErrorResponse =
            serde_json::from_value(body).expect("decodes as the error envelope");
        assert!(typed.error.is_none(), "{}", example.file);
        assert_eq!(
            typed.message.as_deref(),
            detail.get("message").and_then(Value::as_str),
            "{}: the message kept",
            example.file
        );
    }
    assert!(rewritten > 100, "{rewritten} error examples");
    let typed: types::ErrorResponse = serde_json::from_value(json!({
        "status": 422, "success": false, "message": "The given data was invalid.",
        "errors": {"name": ["The name field is required."]}
    }))
    .expect("Laravel's validation error");
    assert_eq!(typed.errors["name"], ["The name field is required."]);
}

#[test]
fn a_create_answer_without_the_record_s_id_decodes() {
    let mut rewritten = 0;
    for example in examples()
        .iter()
        .filter(|e| e.success && e.method == "POST")
    {
        let mut body = example.body.clone();
        let Some(data) = body.get_mut("data").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(id) = data.remove("id") else {
            continue;
        };
        // A record that requires nothing but its id is a reference: its id stays required (it
        // is what a single value stands for, and an empty object is no such record).
        let reference = json!({"status": 200, "success": true, "data": {"id": id}});
        if decodes(example, &reference).is_ok() {
            continue;
        }
        rewritten += 1;
        decodes(example, &body).unwrap_or_else(|e| panic!("{} without data.id: {e}", example.file));
    }
    assert!(rewritten >= 2, "{rewritten} create answers with an id");
}

#[test]
fn a_value_that_fits_no_branch_of_a_union_is_kept_as_its_json() {
    // An amount (number or string) as a boolean or an object; an id (integer or string) as a
    // fraction; a shipment's status (a slug or an object) as a number.
    let amount: types::NumberOrString = serde_json::from_value(json!({"amount": 5})).expect("kept");
    assert_eq!(amount, types::NumberOrString::Other(json!({"amount": 5})));
    assert_eq!(
        serde_json::to_value(&amount).expect("sent back"),
        json!({"amount": 5})
    );
    let flag: types::NumberOrString = serde_json::from_value(json!(true)).expect("kept");
    assert_eq!(flag.to_string(), "true");
    let id: types::IntegerOrString = serde_json::from_value(json!(true)).expect("kept");
    assert_eq!(id, types::IntegerOrString::Other(json!(true)));
    // A value of a type a branch takes, that the branch refuses, stays an error: a fraction
    // for an integer-or-string.
    assert!(serde_json::from_value::<types::IntegerOrString>(json!(1.5)).is_err());
    // The branches still come first.
    let id: types::IntegerOrString = serde_json::from_value(json!(7)).expect("an integer");
    assert_eq!(id, types::IntegerOrString::Int64(7));
    let status: types::ShipmentStatusValue = serde_json::from_value(json!(3)).expect("kept");
    assert_eq!(status, types::ShipmentStatusValue::Other(json!(3)));
    // In an answer: the whole page decodes.
    let page = json!({
        "status": 200, "success": true,
        "data": [{"id": 1, "name": "p", "image": null, "sku_id": null, "sku": null,
                  "quantity": 1, "price": {"amount": "5.00"}, "unlimited_quantity": false,
                  "variant": null}],
        "pagination": {"count": 1, "total": 1, "perPage": 15, "currentPage": 1, "totalPages": 1}
    });
    let list = decoders::find("list_product_quantities").expect("operation");
    (list.success)(page.to_string().as_bytes()).expect("a price no branch fits");
}

#[test]
fn sku_id_may_be_a_sku_s_text() {
    let row = json!({"id": 1, "name": "Phone", "image": "", "sku_id": "K-1", "sku": "K-1",
                     "quantity": 3, "price": 10, "unlimited_quantity": false,
                     "variant": "128G - black"});
    let page = json!({"status": 200, "success": true, "data": [row, {
        "id": 2, "name": "Case", "image": null, "sku_id": 55, "sku": "", "quantity": 1,
        "price": "5.00", "unlimited_quantity": true, "variant": null}],
        "pagination": {"count": 2, "total": 2, "perPage": 15, "currentPage": 1, "totalPages": 1}});
    let typed: types::ProductQuantityList =
        serde_json::from_value(page.clone()).expect("the page decodes");
    assert_eq!(
        typed.data[0].sku_id,
        Some(types::ProductQuantitySkuId::String("K-1".into()))
    );
    assert_eq!(
        typed.data[1].sku_id,
        Some(types::ProductQuantitySkuId::Int64(55))
    );
    let list = decoders::find("list_product_quantities").expect("operation");
    (list.success)(page.to_string().as_bytes()).expect("through the CLI's decoder");
}

/// Every leaf of `value` that is a string, by JSON pointer.
fn string_leaves(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::String(_) => out.push(pointer),
        Value::Object(map) => {
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                string_leaves(child, format!("{pointer}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                string_leaves(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn with(body: &Value, pointer: &str, new: Value) -> Value {
    let mut body = body.clone();
    *body.pointer_mut(pointer).expect("the site") = new;
    body
}

/// A property over every documented request: wherever any text is accepted (the site takes a
/// made-up text: no value set, no pattern), a boolean and the text's translations by locale
/// (`{"ar": .., "en": ..}`) are accepted too.
#[test]
fn every_documented_request_takes_a_boolean_or_translations_where_it_takes_any_text() {
    let mut sites = 0;
    for example in examples().iter().filter(|e| e.request) {
        decodes(example, &example.body).unwrap_or_else(|e| panic!("{}: {e}", example.file));
        let mut leaves = Vec::new();
        string_leaves(&example.body, String::new(), &mut leaves);
        for pointer in leaves {
            let probe = with(&example.body, &pointer, json!("any text, made up"));
            if decodes(example, &probe).is_err() {
                continue;
            }
            sites += 1;
            let original = example.body.pointer(&pointer).cloned().expect("a leaf");
            for new in [
                json!(true),
                json!(false),
                json!({"ar": original, "en": "x"}),
            ] {
                let body = with(&example.body, &pointer, new.clone());
                decodes(example, &body)
                    .unwrap_or_else(|e| panic!("{} with {new} at {pointer}: {e}", example.file));
            }
        }
    }
    assert!(sites > 50, "{sites} text sites");
}

/// Every object of `value` with an `id`, by JSON pointer.
fn records_with_id(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if map
                .get("id")
                .is_some_and(|id| id.is_number() || id.is_string())
                && !pointer.is_empty()
            {
                out.push(pointer.clone());
            }
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                records_with_id(child, format!("{pointer}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                records_with_id(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// A property over every documented request: wherever a record given by its id alone
/// (`{"id": 7}`) is accepted, the id alone (`7`) is accepted too.
#[test]
fn every_documented_request_takes_an_id_where_it_takes_a_record_by_its_id() {
    let mut sites = 0;
    for example in examples().iter().filter(|e| e.request) {
        let mut records = Vec::new();
        records_with_id(&example.body, String::new(), &mut records);
        for pointer in records {
            let id = example
                .body
                .pointer(&format!("{pointer}/id"))
                .cloned()
                .expect("id");
            let probe = with(&example.body, &pointer, json!({"id": id}));
            if decodes(example, &probe).is_err() {
                continue;
            }
            sites += 1;
            let body = with(&example.body, &pointer, id.clone());
            decodes(example, &body)
                .unwrap_or_else(|e| panic!("{} with {id} at {pointer}: {e}", example.file));
        }
    }
    assert!(sites > 0, "{sites} record sites");
    // Made up: an order option's categories sent as ids, records whose other required field
    // (the category's name) the service looks up itself.
    let update = decoders::find("update_order_option").expect("operation");
    let body = json!({"categories": [11, {"id": 12, "name": "Cakes"}]});
    (update.request.expect("a body"))(body.to_string().as_bytes()).expect("ids for categories");
}

/// A property over every documented request: a field whose value is a boolean, a list or any
/// text, the empty text included (no value set, no length or pattern), may be left out,
/// required or not (the service reads its absence as false, empty, or the value it keeps).
#[test]
fn every_documented_request_decodes_without_a_boolean_list_or_text_field() {
    let mut sites = 0;
    for example in examples().iter().filter(|e| e.request) {
        let Some(fields) = example.body.as_object() else {
            continue;
        };
        for (key, value) in fields {
            let free_text = value.is_string()
                && decodes(example, &{
                    let mut b = example.body.clone();
                    b[key] = json!("");
                    b
                })
                .is_ok();
            if !(value.is_boolean() || value.is_array() || free_text) {
                continue;
            }
            sites += 1;
            let mut body = example.body.clone();
            body.as_object_mut().expect("an object").remove(key);
            decodes(example, &body)
                .unwrap_or_else(|e| panic!("{} without {key}: {e}", example.file));
        }
    }
    assert!(sites > 50, "{sites} fields");
}
