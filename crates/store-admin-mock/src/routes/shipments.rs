//! Shipments: list, create, details, update, cancel, return, tracking, and the replaced order-scoped
//! operations.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use store_admin_client::types;

use super::{envelope, opt_bool, opt_int, opt_str, path_id};
use crate::app::{Shared, json_object, respond};
use crate::error::{ApiError, FieldErrors};
use crate::model::{Shipment, money_string};
use crate::paging::{PageRequest, QueryPairs, list_envelope, paginate};
use crate::store::{SHIPMENT_STATUSES, ShipmentInput, now_local, value_as_f64};

/// The message of the live service for returning a shipment that is not delivered.
const NOT_DELIVERED: &str = "يجب توصيل الشحنة اولا";

fn one_shipment(status: StatusCode, shipment: &Shipment) -> Response {
    respond::<types::ShipmentResponse>(status, envelope(status, shipment.to_json()))
}

fn list(state: &Shared, raw: Option<&str>, order_id: Option<i64>, url: String) -> Response {
    let query = QueryPairs::parse(raw);
    let page = match PageRequest::from_query(&query) {
        Ok(page) => page,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let order_filter = order_id.or(query.int("order_id", &mut errors));
    let store = state.read();
    let courier = match query.one("courier_slug") {
        None => None,
        Some(slug) => match store.shipping_companies.iter().find(|c| c.slug == slug) {
            Some(company) => Some(company.id),
            None => {
                errors.add("courier_slug", "حقل ترميز الشركة يحتوي على قيم غير صحيحة");
                None
            }
        },
    };
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let status = query.one("status");
    let shipments: Vec<&Shipment> = store
        .shipments
        .iter()
        .rev()
        .filter(|s| order_filter.is_none_or(|o| s.order_id == o))
        .filter(|s| courier.is_none_or(|c| s.courier_id == c))
        .filter(|s| status.is_none_or(|st| s.status == st))
        .collect();
    let (page_items, pagination) = paginate(&shipments, page, &url, &query);
    let data: Vec<Value> = page_items.iter().map(|s| s.to_json()).collect();
    respond::<types::ShipmentList>(StatusCode::OK, list_envelope(data, &pagination))
}

pub(super) async fn list_shipments(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Response {
    let url = format!("{}/shipments", state.base_url);
    list(&state, raw.as_deref(), None, url)
}

pub(super) async fn list_order_shipments(
    State(state): State<Shared>,
    Path(order): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let order_id = match path_id(&order) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    if !state.read().orders.iter().any(|o| o.id == order_id) {
        return ApiError::not_found().into_response();
    }
    let url = format!("{}/orders/{order_id}/shipments", state.base_url);
    list(&state, raw.as_deref(), Some(order_id), url)
}

fn text(value: Option<&Value>) -> Option<Value> {
    match value? {
        Value::String(s) => Some(Value::from(s.clone())),
        Value::Number(n) => Some(Value::from(n.to_string())),
        _ => None,
    }
}

fn int_or_string(value: Option<&Value>) -> Option<Value> {
    match value? {
        Value::String(s) => Some(Value::from(s.clone())),
        Value::Number(n) if n.is_i64() => Some(Value::Number(n.clone())),
        _ => None,
    }
}

fn first_number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Array(items) => items.first().and_then(value_as_f64),
        other => value_as_f64(other),
    }
}

/// Keeps the address fields of the document, with the document's types.
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
    ] {
        if let Some(value) = text(input.get(field)) {
            out.insert(field.into(), value);
        }
    }
    if let Some(email) = text(input.get("email")) {
        out.insert("email".into(), email);
    }
    for field in ["country", "city"] {
        if let Some(value) = int_or_string(input.get(field)) {
            out.insert(field.into(), value);
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

/// Largest price or weight a package may have (keeps totals exact enough and finite).
const MAX_AMOUNT: f64 = 1e12;
/// Largest quantity a package may have.
const MAX_QUANTITY: u64 = 1_000_000;

/// A package of a new shipment in the service's shape, and its price times its quantity; a price,
/// weight or quantity that is not a (finite) number is a 422 on `packages.{index}.…`.
fn normalize_package(
    input: &Map<String, Value>,
    index: usize,
    errors: &mut FieldErrors,
) -> (Value, f64) {
    // `{"amount": x}` or a bare amount; absent means 0.
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
            Some(_) => {
                errors.add(
                    format!("packages.{index}.{field}"),
                    format!("The {field} may not be greater than {MAX_AMOUNT}."),
                );
                0.0
            }
            None => {
                errors.add(
                    format!("packages.{index}.{field}"),
                    format!("The {field} must be a number."),
                );
                0.0
            }
        }
    };
    let price = number(input.get("price"), "amount", "price.amount");
    let weight = input.get("weight");
    let weight_value = number(weight, "value", "weight.value");
    let quantity = match input.get("quantity") {
        None | Some(Value::Null) => 1,
        Some(value) => match value.as_i64() {
            Some(n) if n.unsigned_abs() <= MAX_QUANTITY => n,
            _ => {
                errors.add(
                    format!("packages.{index}.quantity"),
                    format!("The quantity must be an integer of at most {MAX_QUANTITY}."),
                );
                1
            }
        },
    };
    let unit = weight
        .and_then(|w| w.get("unit").or_else(|| w.get("units")))
        .and_then(Value::as_str)
        .unwrap_or("kg");
    let mut package = json!({
        "external_id": int_or_string(input.get("external_id")),
        "name": text(input.get("name")).unwrap_or_else(|| Value::from("")),
        "sku": text(input.get("sku")),
        "price": money_string(price),
        "quantity": quantity,
        "weight": { "value": format!("{weight_value:.2}"), "unit": unit },
    });
    if let (Some(item_id), Some(map)) = (
        input.get("item_id").and_then(Value::as_i64),
        package.as_object_mut(),
    ) {
        map.insert("item_id".into(), Value::from(item_id));
    }
    (package, price * quantity as f64)
}

pub(super) async fn create_shipment(State(state): State<Shared>, body: Bytes) -> Response {
    let body = match json_object(&body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let courier_id = opt_int(&body, "courier_id", &mut errors);
    if courier_id.is_none() && !body.contains_key("courier_id") {
        errors.add("courier_id", "حقل رقم الشركة مطلوب.");
    }
    let order_id = opt_int(&body, "order_id", &mut errors);
    let shipment_type = opt_str(&body, "shipment_type", &mut errors);
    match shipment_type.as_deref() {
        Some("shipment" | "return") => {}
        Some(_) => errors.add(
            "shipment_type",
            "The shipment type must be shipment or return.",
        ),
        None => errors.required("shipment_type"),
    }
    let payment_method = opt_str(&body, "payment_method", &mut errors);
    match payment_method.as_deref() {
        Some("cod" | "pre_paid") => {}
        Some(_) => errors.add(
            "payment_method",
            "The payment method must be cod or pre_paid.",
        ),
        None => errors.required("payment_method"),
    }
    let _ = opt_bool(&body, "overwrite_exists_pending", &mut errors);
    let mut packages = Vec::new();
    let mut total = 0.0;
    match body.get("packages") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                match item.as_object() {
                    Some(package) => {
                        let (package, amount) = normalize_package(package, i, &mut errors);
                        packages.push(package);
                        total += amount;
                    }
                    None => errors.add(format!("packages.{i}"), "Each package must be an object."),
                }
            }
        }
        _ => errors.required("packages"),
    }
    if !total.is_finite() {
        errors.add("packages", "The packages' total amount is out of range.");
    }
    for (field, value) in [
        ("ship_to", body.get("ship_to")),
        ("ship_from", body.get("ship_from")),
    ] {
        if value.is_some_and(|v| !v.is_object() && !v.is_null()) {
            errors.add(field, format!("The {field} must be an object."));
        }
    }
    if let Some(name) = body.get("ship_to").and_then(|t| t.get("name"))
        && name.as_str().is_none_or(|n| n.trim().is_empty())
    {
        errors.add("ship_to.name", "حقل اسم المستلم مطلوب.");
    }
    let cash_on_delivery = body
        .get("cash_on_delivery")
        .and_then(|c| {
            c.get("amount")
                .and_then(value_as_f64)
                .or_else(|| value_as_f64(c))
        })
        .unwrap_or(0.0);
    let mut store = state.write();
    let company = courier_id.and_then(|id| {
        store
            .shipping_companies
            .iter()
            .find(|c| c.id == id)
            .cloned()
    });
    if courier_id.is_some() && company.is_none() {
        errors.add("courier_id", "The selected courier id is invalid.");
    }
    let order = order_id.map(|id| {
        store
            .orders
            .iter()
            .find(|o| o.id == id)
            .map(|o| (o.id, o.reference_id))
    });
    if let Some(None) = order {
        errors.add("order_id", "The selected order id is invalid.");
    }
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let Some(company) = company else {
        return ApiError::field("courier_id", "حقل رقم الشركة مطلوب.").into_response();
    };
    let (order_id, order_reference_id) = order.flatten().unwrap_or((0, 0));
    let branch_id = store.branches.first().map_or(0, |b| b.id);
    let mut ship_from = normalize_address(body.get("ship_from"), "branch");
    if ship_from.get("type") == Some(&Value::from("branch"))
        && ship_from.get("branch_id").is_none()
        && let Some(map) = ship_from.as_object_mut()
    {
        map.insert("branch_id".into(), Value::from(branch_id));
    }
    let mut shipment = store.make_shipment(ShipmentInput {
        order_id,
        order_reference_id,
        kind: shipment_type.unwrap_or_else(|| "shipment".into()),
        company: &company,
        payment_method: payment_method.unwrap_or_else(|| "pre_paid".into()),
        status: "creating".into(),
        cash_on_delivery,
        ship_from,
        ship_to: normalize_address(body.get("ship_to"), "address"),
        packages,
        policy_options: body
            .get("policy_options")
            .filter(|p| p.is_object())
            .cloned()
            .unwrap_or_else(|| json!([])),
        description: body
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        remarks: body
            .get("remarks")
            .and_then(Value::as_str)
            .map(str::to_owned),
        created_at: now_local(),
    });
    shipment.external_company_name = body
        .get("external_company_name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let data = shipment.to_json();
    store.shipments.push(shipment.clone());
    drop(store);
    state.emit("shipment.creating", &data);
    state.emit("shipment.created", &data);
    one_shipment(StatusCode::OK, &shipment)
}

pub(super) async fn get_shipment(State(state): State<Shared>, Path(id): Path<String>) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.shipments.iter().find(|s| s.id == id) {
        Some(shipment) => one_shipment(StatusCode::OK, shipment),
        None => ApiError::not_found().into_response(),
    }
}

pub(super) async fn get_shipment_tracking(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let store = state.read();
    match store.shipments.iter().find(|s| s.id == id) {
        Some(shipment) => respond::<types::ShipmentTrackingResponse>(
            StatusCode::OK,
            envelope(StatusCode::OK, shipment.tracking_json()),
        ),
        None => ApiError::not_found().into_response(),
    }
}

/// Applies an update body to the shipment `pick` selects; 404 when none, 422 on a bad body.
fn update(state: &Shared, body: &Bytes, pick: impl Fn(&Shipment) -> bool) -> Response {
    let body = match json_object(body) {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let mut errors = FieldErrors::new();
    let shipment_number = match body.get("shipment_number") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(Value::from(s.clone())),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            errors.required("shipment_number");
            None
        }
        Some(_) => {
            errors.add("shipment_number", "The shipment_number must be a string.");
            None
        }
    };
    let status = opt_str(&body, "status", &mut errors);
    match status.as_deref() {
        Some(s) if SHIPMENT_STATUSES.contains(&s) => {}
        Some(_) => errors.add("status", "The selected status is invalid."),
        None => errors.required("status"),
    }
    let tracking_number = opt_str(&body, "tracking_number", &mut errors);
    let tracking_link = opt_str(&body, "tracking_link", &mut errors);
    let note = opt_str(&body, "status_note", &mut errors);
    let label = opt_str(&body, "pdf_label", &mut errors);
    let external = opt_str(&body, "external_company_name", &mut errors);
    let _ = opt_int(&body, "order_id", &mut errors);
    let cost = match body.get("cost") {
        None | Some(Value::Null) => None,
        Some(v) => match value_as_f64(v) {
            Some(c) => Some(c),
            None => {
                errors.add("cost", "The cost must be a number.");
                None
            }
        },
    };
    let mut store = state.write();
    let Some(shipment) = store.shipments.iter_mut().rev().find(|s| pick(s)) else {
        return ApiError::not_found().into_response();
    };
    if let Err(error) = errors.finish() {
        return error.into_response();
    }
    let status = status.unwrap_or_default();
    if let Some(number) = shipment_number {
        shipment.shipping_number = number;
    }
    if let Some(tracking) = tracking_number {
        shipment.tracking_number = Value::from(tracking);
    }
    if let Some(link) = tracking_link {
        shipment.tracking_link = link;
    }
    if label.is_some() {
        shipment.label_url = label;
    }
    if external.is_some() {
        shipment.external_company_name = external;
    }
    if cost.is_some() {
        shipment.cost = cost;
    }
    if let Some(options) = body.get("policy_options").filter(|p| p.is_object()) {
        shipment.policy_options = options.clone();
    }
    shipment.status = status.clone();
    shipment
        .history
        .push((status, note.unwrap_or_default(), now_local()));
    let shipment = shipment.clone();
    drop(store);
    state.emit("shipment.updated", &shipment.to_json());
    one_shipment(StatusCode::OK, &shipment)
}

pub(super) async fn update_shipment(
    State(state): State<Shared>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    match path_id(&id) {
        Ok(id) => update(&state, &body, |s| s.id == id),
        Err(error) => error.into_response(),
    }
}

pub(super) async fn update_order_shipment(
    State(state): State<Shared>,
    Path(order): Path<String>,
    body: Bytes,
) -> Response {
    match path_id(&order) {
        Ok(order_id) => update(&state, &body, |s| {
            s.order_id == order_id && s.status != "cancelled"
        }),
        Err(error) => error.into_response(),
    }
}

fn cancel(state: &Shared, pick: impl Fn(&Shipment) -> bool) -> Response {
    let mut store = state.write();
    let Some(shipment) = store.shipments.iter_mut().rev().find(|s| pick(s)) else {
        return ApiError::not_found().into_response();
    };
    if shipment.status != "cancelled" {
        shipment.status = "cancelled".into();
        shipment
            .history
            .push(("cancelled".into(), String::new(), now_local()));
    }
    let shipment = shipment.clone();
    drop(store);
    state.emit("shipment.cancelled", &shipment.to_json());
    one_shipment(StatusCode::OK, &shipment)
}

pub(super) async fn cancel_shipment(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    match path_id(&id) {
        Ok(id) => cancel(&state, |s| s.id == id),
        Err(error) => error.into_response(),
    }
}

pub(super) async fn cancel_order_shipment(
    State(state): State<Shared>,
    Path(order): Path<String>,
) -> Response {
    match path_id(&order) {
        Ok(order_id) => cancel(&state, |s| {
            s.order_id == order_id && s.status != "cancelled"
        }),
        Err(error) => error.into_response(),
    }
}

pub(super) async fn return_shipment(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Response {
    let id = match path_id(&id) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let mut store = state.write();
    let Some(original) = store.shipments.iter().find(|s| s.id == id).cloned() else {
        return ApiError::not_found().into_response();
    };
    if original.status != "delivered" {
        return ApiError::unprocessable("status", NOT_DELIVERED).into_response();
    }
    let Some(company) = store
        .shipping_companies
        .iter()
        .find(|c| c.id == original.courier_id)
        .cloned()
    else {
        return ApiError::not_found().into_response();
    };
    let returned = store.make_shipment(ShipmentInput {
        order_id: original.order_id,
        order_reference_id: original.order_reference_id,
        kind: "return".into(),
        company: &company,
        payment_method: original.payment_method.clone(),
        status: "creating".into(),
        cash_on_delivery: 0.0,
        ship_from: original.ship_to.clone(),
        ship_to: original.ship_from.clone(),
        packages: original.packages.clone(),
        policy_options: original.policy_options.clone(),
        description: original.description.clone(),
        remarks: original.remarks.clone(),
        created_at: now_local(),
    });
    store.shipments.push(returned.clone());
    drop(store);
    state.emit("shipment.creating", &returned.to_json());
    one_shipment(StatusCode::OK, &returned)
}
