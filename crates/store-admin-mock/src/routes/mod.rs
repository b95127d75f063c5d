//! One handler per operation of the document, looked up by `operationId`.

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{MethodFilter, MethodRouter, on};
use serde_json::{Map, Value, json};

use crate::app::Shared;
use crate::error::{ApiError, FieldErrors};

mod catalogue;
mod orders;
mod shipments;
mod shipping;
mod webhooks;

/// The handler of `operation_id`, for requests of `filter`'s method. An operation the mock does not
/// know answers 501 in the error envelope (a test asserts that none does).
pub(crate) fn handler(operation_id: &str, filter: MethodFilter) -> MethodRouter<Shared> {
    match operation_id {
        "list_product_quantities" => on(filter, catalogue::list_product_quantities),
        "create_product_option" => on(filter, catalogue::create_product_option),
        "get_product_variant" => on(filter, catalogue::get_product_variant),
        "add_languages" => on(filter, catalogue::add_languages),
        "create_category" => on(filter, catalogue::create_category),
        "list_reservations" => on(filter, orders::list_reservations),
        "list_orders" => on(filter, orders::list_orders),
        "list_order_statuses" => on(filter, orders::list_order_statuses),
        "get_order" => on(filter, orders::get_order),
        "list_order_shipments" => on(filter, shipments::list_order_shipments),
        "update_order_shipment" => on(filter, shipments::update_order_shipment),
        "cancel_order_shipment" => on(filter, shipments::cancel_order_shipment),
        "list_shipments" => on(filter, shipments::list_shipments),
        "create_shipment" => on(filter, shipments::create_shipment),
        "get_shipment" => on(filter, shipments::get_shipment),
        "update_shipment" => on(filter, shipments::update_shipment),
        "cancel_shipment" => on(filter, shipments::cancel_shipment),
        "return_shipment" => on(filter, shipments::return_shipment),
        "get_shipment_tracking" => on(filter, shipments::get_shipment_tracking),
        "list_shipping_companies" => on(filter, shipping::list_shipping_companies),
        "get_shipping_company" => on(filter, shipping::get_shipping_company),
        "get_shipping_rule" => on(filter, shipping::get_shipping_rule),
        "list_shipping_routes" => on(filter, shipping::list_shipping_routes),
        "get_shipping_route" => on(filter, shipping::get_shipping_route),
        "list_webhooks" => on(filter, webhooks::list_webhooks),
        "list_webhook_events" => on(filter, webhooks::list_webhook_events),
        "subscribe_webhook" => on(filter, webhooks::subscribe_webhook),
        "unsubscribe_webhooks" => on(filter, webhooks::unsubscribe_webhooks),
        "update_webhook" => on(filter, webhooks::update_webhook),
        _ => on(filter, not_implemented),
    }
}

/// Operation ids the mock implements (for the test that every documented operation is served).
pub const IMPLEMENTED: &[&str] = &[
    "list_product_quantities",
    "create_product_option",
    "get_product_variant",
    "add_languages",
    "create_category",
    "list_reservations",
    "list_orders",
    "list_order_statuses",
    "get_order",
    "list_order_shipments",
    "update_order_shipment",
    "cancel_order_shipment",
    "list_shipments",
    "create_shipment",
    "get_shipment",
    "update_shipment",
    "cancel_shipment",
    "return_shipment",
    "get_shipment_tracking",
    "list_shipping_companies",
    "get_shipping_company",
    "get_shipping_rule",
    "list_shipping_routes",
    "get_shipping_route",
    "list_webhooks",
    "list_webhook_events",
    "subscribe_webhook",
    "unsubscribe_webhooks",
    "update_webhook",
];

async fn not_implemented() -> impl IntoResponse {
    ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "not_implemented",
        "The mock store does not implement this operation.",
    )
}

/// A path id: anything but an integer cannot name a record, so it is a 404.
pub(crate) fn path_id(raw: &str) -> Result<i64, ApiError> {
    raw.trim().parse().map_err(|_| ApiError::not_found())
}

/// `{"status": status, "success": true, "data": data}`.
pub(crate) fn envelope(status: StatusCode, data: Value) -> Value {
    json!({ "status": status.as_u16(), "success": true, "data": data })
}

/// Reads an optional string field; a present non-string (a number included, as the document
/// types these fields `string`) is a 422 on that field.
pub(crate) fn opt_str(
    body: &Map<String, Value>,
    field: &str,
    errors: &mut FieldErrors,
) -> Option<String> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            errors.add(field, format!("The {field} must be a string."));
            None
        }
    }
}

/// Reads a required string field (non-empty).
pub(crate) fn req_str(
    body: &Map<String, Value>,
    field: &str,
    errors: &mut FieldErrors,
) -> Option<String> {
    let wrong_type = matches!(body.get(field), Some(v) if !(v.is_string() || v.is_null()));
    match opt_str(body, field, errors) {
        Some(s) if !s.trim().is_empty() => Some(s),
        _ => {
            if !wrong_type {
                errors.required(field);
            }
            None
        }
    }
}

/// Reads an optional integer field (a string of digits is accepted).
pub(crate) fn opt_int(
    body: &Map<String, Value>,
    field: &str,
    errors: &mut FieldErrors,
) -> Option<i64> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
        Some(Value::String(s)) if s.trim().parse::<i64>().is_ok() => s.trim().parse().ok(),
        Some(_) => {
            errors.add(field, format!("The {field} must be an integer."));
            None
        }
    }
}

/// Reads an optional boolean field (`0`/`1` and `"true"`/`"false"` are accepted).
pub(crate) fn opt_bool(
    body: &Map<String, Value>,
    field: &str,
    errors: &mut FieldErrors,
) -> Option<bool> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Number(n)) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => {
            Some(n.as_i64() == Some(1))
        }
        Some(Value::String(s)) if s == "true" || s == "false" => Some(s == "true"),
        Some(_) => {
            errors.add(field, format!("The {field} field must be true or false."));
            None
        }
    }
}
