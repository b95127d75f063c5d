//! Shipments: their transitions (created as `creating`, updated with a status history, cancelled,
//! returned only once delivered), the tracking view, the courier a new shipment needs, and the
//! replaced order-scoped operations.

use serde_json::{Map, Value, json};

use crate::engine::Call;
use crate::error::{ApiError, FieldErrors, Text, selected_invalid};
use crate::formats::{local_date, money, money_string};
use crate::respond::{Handled, Reply};
use crate::seed::tables::keys::{BRANCHES, ORDERS, SHIPMENTS, SHIPPING_COMPANIES};
use crate::store::{Store, id_text_value, now_local, object_mut, value_as_f64};

/// The message of the live service for returning a shipment that is not delivered.
/// The service's answer to returning a shipment not delivered yet.
fn not_delivered() -> Text {
    Text::new(
        "The shipment must be delivered first.",
        "يجب توصيل الشحنة اولا",
    )
}
fn delivered_already() -> Text {
    Text::new(
        "The shipment has been delivered and cannot be cancelled.",
        "تم توصيل الشحنة ولا يمكن إلغاؤها",
    )
}
/// Largest price or weight a package may have (keeps totals exact enough and finite).
const MAX_AMOUNT: f64 = 1e12;

/// The shipment statuses the document knows (empty when it lists none: any status goes).
fn known_statuses(call: &Call<'_>) -> Vec<String> {
    let doc = &call.engine.doc;
    doc.operations
        .iter()
        .filter(|op| op.path.starts_with("/shipments"))
        .filter_map(|op| op.success_schema.as_ref())
        .filter_map(|s| doc.property(s, "data.status"))
        .flat_map(|s| doc.known_values(s))
        .fold(Vec::new(), |mut all, status| {
            if !all.contains(&status) {
                all.push(status);
            }
            all
        })
}

/// `GET /shipments`: `courier_slug` must name a shipping company (422 otherwise); the rest is the
/// generic list.
pub(super) fn list_shipments(call: &Call<'_>) -> Handled {
    let store = call.state.read();
    let mut records: Vec<&Value> = store.records(SHIPMENTS).iter().rev().collect();
    if let Some(slug) = call.query.one("courier_slug") {
        let company = store
            .records(SHIPPING_COMPANIES)
            .iter()
            .find(|c| c.get("__slug").and_then(Value::as_str) == Some(slug))
            .and_then(|c| c.get("id").and_then(Value::as_i64));
        let Some(company) = company else {
            return Err(ApiError::field(
                "courier_slug",
                Text::new(
                    "The courier slug field holds an invalid value.",
                    "حقل ترميز الشركة يحتوي على قيم غير صحيحة",
                ),
            ));
        };
        records.retain(|s| s.get("courier_id").and_then(Value::as_i64) == Some(company));
    }
    Ok(Reply::Response(call.engine.list_response(call, records)))
}

fn text(value: Option<&Value>) -> Option<Value> {
    match value? {
        Value::String(s) => Some(Value::from(s.clone())),
        Value::Number(n) => Some(Value::from(n.to_string())),
        _ => None,
    }
}

fn first_number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Array(items) => items.first().and_then(value_as_f64),
        other => value_as_f64(other),
    }
}

/// Keeps the address fields of the document.
fn normalize_address(input: Option<&Value>, default_type: &str) -> Value {
    let empty = Map::new();
    let input = input.and_then(Value::as_object).unwrap_or(&empty);
    let mut out = Map::new();
    out.insert(
        "type".into(),
        text(input.get("type")).unwrap_or_else(|| Value::from(default_type)),
    );
    for field in [
        "name",
        "phone",
        "country_code",
        "address_line",
        "street_number",
        "block",
        "postal_code",
        "email",
    ] {
        if let Some(value) = text(input.get(field)) {
            out.insert(field.into(), value);
        }
    }
    for field in ["country", "city"] {
        match input.get(field) {
            Some(Value::String(s)) => {
                out.insert(field.into(), Value::from(s.clone()));
            }
            Some(Value::Number(n)) if n.is_i64() => {
                out.insert(field.into(), Value::Number(n.clone()));
            }
            _ => {}
        }
    }
    for field in ["branch_id", "country_id", "city_id"] {
        if let Some(id) = input.get(field).and_then(Value::as_i64) {
            out.insert(field.into(), Value::from(id));
        }
    }
    let geo = input.get("geo_coordinates");
    let latitude = first_number(input.get("latitude"))
        .or_else(|| first_number(geo.and_then(|g| g.get("lat"))))
        .or_else(|| first_number(geo.and_then(|g| g.get("latitude"))));
    let longitude = first_number(input.get("longitude"))
        .or_else(|| first_number(geo.and_then(|g| g.get("lng"))))
        .or_else(|| first_number(geo.and_then(|g| g.get("longitude"))));
    if let (Some(lat), Some(lng)) = (latitude, longitude) {
        out.insert("latitude".into(), json!(lat));
        out.insert("longitude".into(), json!(lng));
    }
    Value::Object(out)
}

/// A package in the service's shape, and its price times its quantity.
fn normalize_package(
    input: &Map<String, Value>,
    index: usize,
    errors: &mut FieldErrors,
) -> (Value, f64) {
    let mut number = |value: Option<&Value>, inner: &str, field: &str| -> f64 {
        let raw = match value {
            None | Some(Value::Null) => return 0.0,
            Some(Value::Object(map)) => match map.get(inner) {
                None | Some(Value::Null) => return 0.0,
                Some(raw) => raw,
            },
            Some(raw) => raw,
        };
        match value_as_f64(raw) {
            Some(n) if n.abs() <= MAX_AMOUNT => n,
            _ => {
                errors.add(
                    format!("packages.{index}.{field}"),
                    Text::new(
                        format!("The {field} must be a number of at most {MAX_AMOUNT}."),
                        format!("يجب أن يكون {field} رقمًا لا يتجاوز {MAX_AMOUNT}."),
                    ),
                );
                0.0
            }
        }
    };
    let price = number(input.get("price"), "amount", "price.amount");
    let weight = input.get("weight");
    let weight_value = number(weight, "value", "weight.value");
    let quantity = input
        .get("quantity")
        .and_then(Value::as_i64)
        .filter(|q| q.unsigned_abs() <= 1_000_000)
        .unwrap_or(1);
    let unit = weight
        .and_then(|w| w.get("unit").or_else(|| w.get("units")))
        .and_then(Value::as_str)
        .unwrap_or("kg");
    let mut package = json!({
        "external_id": input.get("external_id").filter(|v| v.is_string() || v.is_i64()).cloned(),
        "name": text(input.get("name")).unwrap_or_else(|| Value::from("")),
        "sku": text(input.get("sku")),
        "price": money_string(price),
        "quantity": quantity,
        "weight": { "value": format!("{weight_value:.2}"), "unit": unit },
    });
    if let Some(item_id) = input.get("item_id").and_then(Value::as_i64) {
        object_mut(&mut package).insert("item_id".into(), Value::from(item_id));
    }
    (package, price * quantity as f64)
}

/// The parts of a new shipment.
struct NewShipment {
    order: (i64, i64),
    kind: String,
    company: Value,
    payment_method: String,
    cash_on_delivery: f64,
    ship_from: Value,
    ship_to: Value,
    packages: Vec<Value>,
    total: f64,
    policy_options: Value,
    description: Value,
    remarks: Value,
    external_company_name: Value,
}

/// A new shipment record, `creating`, with its first history entry.
fn new_shipment(store: &mut Store, new: NewShipment) -> Value {
    let id = store.new_id();
    let number = {
        use rand::Rng;
        store.rng.random_range(10_000_000_000_i64..99_999_999_999)
    };
    let created_at = now_local();
    let company = &new.company;
    let slug = company
        .get("__slug")
        .and_then(Value::as_str)
        .unwrap_or_default();
    json!({
        "id": id,
        "order_id": new.order.0,
        "order_reference_id": new.order.1,
        "created_at": local_date(&created_at),
        "type": new.kind,
        "courier_id": company.get("id"),
        "courier_name": company.get("name"),
        "courier_logo": company.get("__logo"),
        "shipping_number": number.to_string(),
        "tracking_number": number.to_string(),
        "pickup_id": Value::Null,
        "trackable": true,
        "tracking_link": format!("https://track.example/{slug}/{number}"),
        "label": [],
        "payment_method": new.payment_method,
        "source": "api",
        "status": "creating",
        "total": money((new.total * 100.0).round() / 100.0),
        "cash_on_delivery": money_string(new.cash_on_delivery),
        "meta": { "app_id": Value::Null, "policy_options": new.policy_options },
        "ship_from": new.ship_from,
        "ship_to": new.ship_to,
        "packages": new.packages,
        "description": new.description,
        "remarks": new.remarks,
        "external_company_name": new.external_company_name,
        "__history": [["creating", "", created_at]],
    })
}

/// `POST /shipments`: the courier (and the order, when given) must exist.
pub(super) fn create_shipment(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let mut errors = FieldErrors::new();
    let mut packages = Vec::new();
    let mut total = 0.0;
    for (i, item) in body
        .get("packages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        match item.as_object() {
            Some(package) => {
                let (package, amount) = normalize_package(package, i, &mut errors);
                packages.push(package);
                total += amount;
            }
            None => errors.add(
                format!("packages.{i}"),
                Text::new(
                    "Each package must be an object.",
                    "يجب أن تكون كل شحنة كائنًا.",
                ),
            ),
        }
    }
    if !total.is_finite() {
        errors.add(
            "packages",
            Text::new(
                "The packages' total amount is out of range.",
                "المبلغ الإجمالي للطرود خارج النطاق المسموح.",
            ),
        );
    }
    if let Some(name) = body.get("ship_to").and_then(|t| t.get("name"))
        && name.as_str().is_none_or(|n| n.trim().is_empty())
    {
        errors.add(
            "ship_to.name",
            Text::new(
                "The recipient's name field is required.",
                "حقل اسم المستلم مطلوب.",
            ),
        );
    }
    let cash_on_delivery = body
        .get("cash_on_delivery")
        .and_then(|c| {
            c.get("amount")
                .and_then(value_as_f64)
                .or_else(|| value_as_f64(c))
        })
        .filter(|c| c.abs() <= MAX_AMOUNT)
        .unwrap_or(0.0);
    let mut store = call.state.write();
    let courier = body.get("courier_id").and_then(id_text_value);
    let company = courier
        .as_deref()
        .and_then(|id| store.get(SHIPPING_COMPANIES, id))
        .cloned();
    if company.is_none() {
        errors.add("courier_id", selected_invalid("courier id"));
    }
    let order = match body.get("order_id").and_then(id_text_value) {
        None => Some((0, 0)),
        Some(id) => store.get(ORDERS, &id).map(|o| {
            (
                o.get("id").and_then(Value::as_i64).unwrap_or(0),
                o.get("reference_id").and_then(Value::as_i64).unwrap_or(0),
            )
        }),
    };
    if order.is_none() {
        errors.add("order_id", selected_invalid("order id"));
    }
    errors.finish()?;
    let (Some(company), Some(order)) = (company, order) else {
        return Err(ApiError::field(
            "courier_id",
            Text::new(
                "The courier number field is required.",
                "حقل رقم الشركة مطلوب.",
            ),
        ));
    };
    let branch_id = store
        .records(BRANCHES)
        .iter()
        .next_back()
        .and_then(|b| b.get("id").cloned())
        .unwrap_or(Value::from(0));
    let mut ship_from = normalize_address(body.get("ship_from"), "branch");
    if ship_from.get("type") == Some(&Value::from("branch")) && ship_from.get("branch_id").is_none()
    {
        object_mut(&mut ship_from).insert("branch_id".into(), branch_id);
    }
    let field_text = |name: &str| {
        body.get(name)
            .filter(|v| v.is_string())
            .cloned()
            .unwrap_or(Value::Null)
    };
    let shipment = new_shipment(
        &mut store,
        NewShipment {
            order,
            kind: body
                .get("shipment_type")
                .and_then(Value::as_str)
                .unwrap_or("shipment")
                .to_owned(),
            company,
            payment_method: body
                .get("payment_method")
                .and_then(Value::as_str)
                .unwrap_or("pre_paid")
                .to_owned(),
            cash_on_delivery,
            ship_from,
            ship_to: normalize_address(body.get("ship_to"), "address"),
            packages,
            total,
            policy_options: body
                .get("policy_options")
                .filter(|p| p.is_object())
                .cloned()
                .unwrap_or_else(|| json!([])),
            description: field_text("description"),
            remarks: field_text("remarks"),
            external_company_name: field_text("external_company_name"),
        },
    );
    store.insert(SHIPMENTS, shipment.clone());
    drop(store);
    let data = crate::shape::strip_hidden(&shipment);
    call.state.emit("shipment.creating", &data);
    call.state.emit("shipment.created", &data);
    Ok(Reply::Data(shipment))
}

/// The id of the newest shipment `pick` selects.
fn newest(store: &Store, pick: impl Fn(&Value) -> bool) -> Option<String> {
    store
        .records(SHIPMENTS)
        .iter()
        .rev()
        .find(|s| pick(s))
        .and_then(|s| s.get("id").and_then(id_text_value))
}

fn push_history(shipment: &mut Value, status: &str, note: &str) {
    let map = object_mut(shipment);
    map.insert("status".into(), Value::from(status));
    let history = map.entry("__history").or_insert_with(|| json!([]));
    if let Value::Array(history) = history {
        history.push(json!([status, note, now_local()]));
    }
}

/// Applies an update body to the shipment `pick` selects; 404 when none.
fn update(call: &Call<'_>, pick: impl Fn(&Value) -> bool) -> Handled {
    let body = call.body_object();
    let status = body
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let known = known_statuses(call);
    let mut errors = FieldErrors::new();
    if !known.is_empty() && !known.contains(&status) {
        errors.add("status", selected_invalid("status"));
    }
    let mut store = call.state.write();
    let id = newest(&store, pick).ok_or_else(ApiError::not_found)?;
    errors.finish()?;
    let Some(shipment) = store.get_mut(SHIPMENTS, &id) else {
        return Err(ApiError::not_found());
    };
    let map = object_mut(shipment);
    let string = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    if let Some(number) = string("shipment_number") {
        map.insert("shipping_number".into(), Value::from(number));
    }
    if let Some(tracking) = string("tracking_number") {
        map.insert("tracking_number".into(), Value::from(tracking));
    }
    if let Some(link) = string("tracking_link") {
        map.insert("tracking_link".into(), Value::from(link));
    }
    if let Some(label) = string("pdf_label") {
        map.insert("label".into(), json!({ "format": "pdf", "url": label }));
    }
    if let Some(external) = string("external_company_name") {
        map.insert("external_company_name".into(), Value::from(external));
    }
    if let Some(options) = body.get("policy_options").filter(|p| p.is_object()) {
        map.insert(
            "meta".into(),
            json!({ "app_id": Value::Null, "policy_options": options }),
        );
    }
    if let Some(cost) = body.get("cost").and_then(value_as_f64) {
        map.insert("__cost".into(), json!(cost));
    }
    push_history(
        shipment,
        &status,
        &string("status_note").unwrap_or_default(),
    );
    let shipment = shipment.clone();
    drop(store);
    call.state
        .emit("shipment.updated", &crate::shape::strip_hidden(&shipment));
    Ok(Reply::Data(shipment))
}

fn path_id(call: &Call<'_>) -> String {
    call.last_param().unwrap_or_default().trim().to_owned()
}

fn is(record: &Value, field: &str, id: &str) -> bool {
    record.get(field).and_then(id_text_value).as_deref() == Some(id)
}

/// `PUT /shipments/{shipment_id}`.
pub(super) fn update_shipment(call: &Call<'_>) -> Handled {
    let id = path_id(call);
    update(call, |s| is(s, "id", &id))
}

/// `PUT /orders/{order_id}/update-shipment`: the order's newest shipment not cancelled.
pub(super) fn update_order_shipment(call: &Call<'_>) -> Handled {
    let order = path_id(call);
    update(call, |s| {
        is(s, "order_id", &order) && s.get("status") != Some(&Value::from("cancelled"))
    })
}

fn cancel(call: &Call<'_>, pick: impl Fn(&Value) -> bool) -> Handled {
    let mut store = call.state.write();
    let id = newest(&store, pick).ok_or_else(ApiError::not_found)?;
    let Some(shipment) = store.get_mut(SHIPMENTS, &id) else {
        return Err(ApiError::not_found());
    };
    // A delivered shipment is done: the service refuses to cancel it (422) and it keeps its
    // status, numbers and history; a return (`return_shipment`) is what follows a delivery.
    if shipment.get("status") == Some(&Value::from("delivered")) {
        return Err(ApiError::unprocessable("status", delivered_already()));
    }
    if shipment.get("status") != Some(&Value::from("cancelled")) {
        push_history(shipment, "cancelled", "");
    }
    let shipment = shipment.clone();
    drop(store);
    call.state
        .emit("shipment.cancelled", &crate::shape::strip_hidden(&shipment));
    Ok(Reply::Data(shipment))
}

/// `POST /shipments/{shipment_id}/cancel`.
pub(super) fn cancel_shipment(call: &Call<'_>) -> Handled {
    let id = path_id(call);
    cancel(call, |s| is(s, "id", &id))
}

/// `POST /orders/{order_id}/cancel-shipment`: the order's newest shipment not cancelled.
pub(super) fn cancel_order_shipment(call: &Call<'_>) -> Handled {
    let order = path_id(call);
    cancel(call, |s| {
        is(s, "order_id", &order) && s.get("status") != Some(&Value::from("cancelled"))
    })
}

/// `POST /shipments/{shipment_id}/return`: a return shipment of a delivered one (422 before).
pub(super) fn return_shipment(call: &Call<'_>) -> Handled {
    let id = path_id(call);
    let mut store = call.state.write();
    let original = store
        .get(SHIPMENTS, &id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    if original.get("status") != Some(&Value::from("delivered")) {
        return Err(ApiError::unprocessable("status", not_delivered()));
    }
    let company = original
        .get("courier_id")
        .and_then(id_text_value)
        .and_then(|c| store.get(SHIPPING_COMPANIES, &c))
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let field = |name: &str| original.get(name).cloned().unwrap_or(Value::Null);
    let returned = new_shipment(
        &mut store,
        NewShipment {
            order: (
                field("order_id").as_i64().unwrap_or(0),
                field("order_reference_id").as_i64().unwrap_or(0),
            ),
            kind: "return".into(),
            company,
            payment_method: field("payment_method")
                .as_str()
                .unwrap_or("pre_paid")
                .to_owned(),
            cash_on_delivery: 0.0,
            ship_from: field("ship_to"),
            ship_to: field("ship_from"),
            packages: field("packages").as_array().cloned().unwrap_or_default(),
            total: original
                .pointer("/total/amount")
                .and_then(value_as_f64)
                .unwrap_or(0.0),
            policy_options: original
                .pointer("/meta/policy_options")
                .cloned()
                .unwrap_or(json!([])),
            description: field("description"),
            remarks: field("remarks"),
            external_company_name: Value::Null,
        },
    );
    store.insert(SHIPMENTS, returned.clone());
    drop(store);
    call.state
        .emit("shipment.creating", &crate::shape::strip_hidden(&returned));
    Ok(Reply::Data(returned))
}

/// `GET /shipments/{shipment_id}/tracking`: the shipment and its history, newest first.
pub(super) fn get_shipment_tracking(call: &Call<'_>) -> Handled {
    let id = path_id(call);
    let store = call.state.read();
    let shipment = store
        .get(SHIPMENTS, &id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let history: Vec<Value> = shipment
        .get("__history")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .rev()
        .map(|entry| {
            json!({
                "status": entry.get(0), "note": entry.get(1),
                "create_at": local_date(entry.get(2).and_then(Value::as_str).unwrap_or_default()),
            })
        })
        .collect();
    let mut view = shipment;
    object_mut(&mut view).insert("history".into(), Value::Array(history));
    Ok(Reply::Data(view))
}
