//! The classes of documented bodies that the service's documentation shows and its document did
//! not: each as a property over every documented example of the shared half
//! (`tests/fixtures/examples/`, decoded through the CLI's decoders), rewritten in that class, or
//! (where no documented example has the shape to rewrite) as made-up bodies of some operations.
//!
//! Answers: a paged list without `pagination`, an error answer without `error` (Laravel's
//! `message`/`errors` at the top), a create answer without the record's `id`, a union that a value
//! of a JSON type no branch takes (kept as its JSON). Requests: a boolean or translations where text is declared,
//! an id where a record is declared, a required field left out (with a default, or without one:
//! a value set, a checked text, a record), each request also built again through its typed
//! builder (`decoders::REBUILDS`). And `sku_id` as a SKU's text.

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
    operation_id: &'static str,
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
            operation_id: id,
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
        if data.remove("id").is_none() {
            continue;
        }
        rewritten += 1;
        decodes(example, &body).unwrap_or_else(|e| panic!("{} without data.id: {e}", example.file));
    }
    assert!(rewritten >= 5, "{rewritten} create answers with an id");
}

/// Every create operation (a `POST` whose answer is a record with an `id`), documented in the
/// shared half or not: its answer without the `id` decodes, whether the record requires other
/// fields too (`lenient::absent_id`) or its `id` alone (`lenient::Created`, in a create answer's
/// `data`). Made up from the operation's own answer type: the record with its `id` alone, then
/// with another field instead of the `id`.
#[test]
fn every_create_answer_decodes_without_the_record_s_id() {
    let mut creates = 0;
    for meta in store_admin_client::OPERATIONS
        .iter()
        .filter(|m| m.method.eq_ignore_ascii_case("POST"))
    {
        let Some(decoder) = decoders::find(meta.operation_id) else {
            continue;
        };
        let answer = |data: Value| json!({"status": 201, "success": true, "data": data});
        // A record that requires its id alone: the id is enough (and a list is no record).
        let decodes = |data: Value| (decoder.success)(answer(data).to_string().as_bytes());
        if decodes(json!({"id": 7})).is_err() || decodes(json!([])).is_ok() {
            continue;
        }
        creates += 1;
        for data in [json!({"name": "made up"}), json!({})] {
            (decoder.success)(answer(data.clone()).to_string().as_bytes()).unwrap_or_else(|e| {
                panic!(
                    "{}: a create answer's data {data} without its id: {e}",
                    meta.operation_id
                )
            });
        }
    }
    assert!(
        creates >= 25,
        "{creates} create operations whose record requires its id alone"
    );
    // Typed: the id reads as 0 (no record has it), the rest as sent.
    let answer: types::ShipmentResponse = serde_json::from_value(json!({
        "status": 201, "success": true, "data": {"remarks": "fragile"}
    }))
    .expect("a shipment answer without its id");
    assert_eq!(answer.data.id, 0);
    assert_eq!(answer.data.remarks.as_deref(), Some("fragile"));
    let answer: types::ShipmentResponse = serde_json::from_value(json!({
        "status": 201, "success": true, "data": {"id": 12, "remarks": "fragile"}
    }))
    .expect("with its id");
    assert_eq!(answer.data.id, 12);
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

/// A property over every documented request: each of its fields may be left out, required or
/// not, whatever its type (a value set, a checked text, a record, a union: a required field
/// without a default is an `Option` in a type only requests use), and the body still decodes;
/// and every documented request, whole or without that field, is one its typed builder builds
/// again (`decoders::REBUILDS`): the builder sends what was given, leaves out what was left out
/// (a required field with a default is sent as that default), and what it sends builds to itself.
#[test]
fn every_documented_request_decodes_and_builds_without_any_of_its_fields() {
    let mut fields = 0;
    let mut rebuilt = 0;
    for example in examples().iter().filter(|e| e.request) {
        let Some(object) = example.body.as_object() else {
            continue;
        };
        // A union body (`oneOf`, no typed builder): its branches' required fields tell them apart,
        // so they stay required; the whole body still decodes.
        if decoders::rebuild(example.operation_id, b"{}").is_none() {
            decodes(example, &example.body).unwrap_or_else(|e| panic!("{}: {e}", example.file));
            continue;
        }
        let mut bodies = vec![(None, example.body.clone())];
        for key in object.keys() {
            let mut body = example.body.clone();
            body.as_object_mut().expect("an object").remove(key);
            bodies.push((Some(key.as_str()), body));
        }
        for (left_out, body) in bodies {
            let what = || format!("{} without {left_out:?}", example.file);
            decodes(example, &body).unwrap_or_else(|e| panic!("{}: {e}", what()));
            fields += usize::from(left_out.is_some());
            let Some(built) = decoders::rebuild(example.operation_id, body.to_string().as_bytes())
            else {
                continue;
            };
            let built = built.unwrap_or_else(|e| panic!("{}: the builder: {e}", what()));
            rebuilt += 1;
            let sent = built.as_object().expect("an object");
            for (key, value) in sent {
                // What the body left out is left out again, or sent as the type's default.
                if body.get(key).is_none() {
                    let default = matches!(value, Value::Bool(false) | Value::Null)
                        || value.as_i64() == Some(0)
                        || value.as_f64() == Some(0.0)
                        || value.as_str() == Some("")
                        || value.as_array().is_some_and(Vec::is_empty)
                        || value.as_object().is_some_and(|o| o.is_empty());
                    assert!(default, "{}: the builder sent {key}: {value}", what());
                }
            }
            if let Some(left_out) = left_out
                && let Some(value) = sent.get(left_out)
            {
                assert!(
                    !value.is_string() || value.as_str() == Some(""),
                    "{}: sent {left_out} = {value}",
                    what()
                );
            }
            // What it sends builds to itself.
            let again = decoders::rebuild(example.operation_id, built.to_string().as_bytes())
                .expect("the same operation")
                .unwrap_or_else(|e| panic!("{}: built again: {e}", what()));
            assert_eq!(again, built, "{}", what());
        }
    }
    assert!(fields > 150, "{fields} fields left out");
    assert!(rebuilt > 150, "{rebuilt} bodies built again");
    let with_builder = examples()
        .iter()
        .filter(|e| e.request && decoders::rebuild(e.operation_id, b"{}").is_some())
        .count();
    assert!(
        with_builder > 30,
        "{with_builder} documented requests have a typed builder"
    );
}

/// A property over made-up bodies of every operation whose request has a typed builder: the
/// empty body (every field left out: each required field without a default is then `None`, each
/// one with a default its default) decodes and is built again; `{}` is what a documented request
/// leaving out everything would be.
#[test]
fn every_request_with_a_typed_builder_decodes_and_builds_with_every_field_left_out() {
    let mut operations = 0;
    for (id, rebuild) in decoders::REBUILDS {
        let built = rebuild(b"{}").unwrap_or_else(|e| panic!("{id}: {{}}: {e}"));
        operations += 1;
        for (key, value) in built.as_object().expect("an object") {
            // `null`: a required field that may be null, left out.
            let default = matches!(value, Value::Bool(false) | Value::Null)
                || value.as_i64() == Some(0)
                || value.as_f64() == Some(0.0)
                || value.as_str() == Some("")
                || value.as_array().is_some_and(Vec::is_empty)
                || value.as_object().is_some_and(|o| o.is_empty())
                // A value the document gives as the field's default (`"branch"`).
                || value.is_string();
            assert!(default, "{id}: the builder sent {key}: {value}");
        }
    }
    assert!(operations > 80, "{operations} operations");
}

/// The typed builder of a body whose required fields have no default (a shipment's
/// `payment_method` and `shipment_type`, value sets): it still asks for each, a caller leaves
/// one out on purpose with `None` (as the service's documented requests do), and what it sends
/// then has no such key.
#[test]
fn a_typed_builder_still_asks_for_a_required_field_and_takes_none_to_leave_it_out() {
    let start = || {
        types::CreateShipmentRequest::builder()
            .courier_id(3)
            .packages(Vec::<types::ShipmentPackageInput>::new())
    };
    let forgotten = types::CreateShipmentRequest::try_from(start().shipment_type("shipment"))
        .expect_err("payment_method not given");
    assert!(
        forgotten.to_string().contains("payment_method"),
        "{forgotten}"
    );
    let body = types::CreateShipmentRequest::try_from(
        start().shipment_type("shipment").payment_method(None),
    )
    .expect("left out on purpose");
    let sent = serde_json::to_value(&body).expect("JSON");
    assert_eq!(sent["shipment_type"], "shipment");
    assert!(sent.get("payment_method").is_none(), "{sent}");
    let body = types::CreateShipmentRequest::try_from(
        start().shipment_type("shipment").payment_method("cod"),
    )
    .expect("given as text");
    assert_eq!(
        body.payment_method,
        Some(types::CreateShipmentRequestPaymentMethod::Cod)
    );
    // A value outside the set is still refused, naming the field.
    let refused = types::CreateShipmentRequest::try_from(
        start().shipment_type("by air").payment_method(None),
    )
    .expect_err("not a shipment type");
    assert!(refused.to_string().contains("shipment_type"), "{refused}");
    // Decoded from a request that leaves both out, it converts into its builder as it is.
    let decoded: types::CreateShipmentRequest =
        serde_json::from_value(json!({"courier_id": 3, "packages": []})).expect("decodes");
    assert_eq!(decoded.payment_method, None);
    let again = types::CreateShipmentRequest::try_from(
        types::builder::CreateShipmentRequest::from(decoded.clone()),
    )
    .expect("builds");
    assert_eq!(again, decoded);
}
