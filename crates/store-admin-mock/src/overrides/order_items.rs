//! An order's items (`/orders/items`): the lines its record holds (`items`), which the engine
//! finds by their own ids wherever they are (an embedded collection, named by the paths); what
//! the engine cannot say is the money. A line added by `POST /orders/items` is priced from the
//! product the store holds now (by id or SKU, a variant's SKU giving the variant's price), or is
//! a custom line of the body's `name` and `price`; after any change of its lines the order's
//! total moves by what its lines' sum moved (its shipping and other charges kept; a draft's is
//! its lines and their shipping), and every answer is the order's lines as its details show them.

use serde_json::{Value, json};

use super::order_details::details;
use super::orders::order_line;
use crate::engine::Call;
use crate::error::{ApiError, FieldErrors, selected_invalid};
use crate::formats::{money, number};
use crate::respond::{Handled, Reply};
use crate::seed::tables::SHIPPING_COST;
use crate::seed::tables::keys::ORDERS;
use crate::store::{Store, id_text_value, object_mut, value_as_f64};

/// The sum of an order record's lines (unit price times quantity).
fn lines_sum(order: &Value) -> f64 {
    order
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|line| {
            line.get("price").and_then(value_as_f64).unwrap_or(0.0)
                * line.get("quantity").and_then(value_as_f64).unwrap_or(1.0)
        })
        .sum()
}

/// Moves the order's total by what its lines' sum moved since `before`, its shipping and other
/// charges kept (what the customer was charged at checkout). A draft has had no checkout: its
/// total is its lines and, once it holds something to ship, the flat rate for shipping that a new
/// order pays ([`SHIPPING_COST`], as `create_order` charges). Either way the order's `features`
/// say what its lines are now (something to ship, something digital).
fn reprice(order: &mut Value, before: f64) {
    let after = lines_sum(order);
    let has_kind = |kind: &str| {
        order
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|line| line.get("product_type").and_then(Value::as_str) == Some(kind))
    };
    let (shippable, digitalable) = (has_kind("product"), has_kind("digital"));
    let draft = order.get("draft").and_then(Value::as_bool) == Some(true);
    let map = object_mut(order);
    let currency = map.get("total").and_then(|t| t.get("currency")).cloned();
    let total = map
        .get("total")
        .and_then(|t| t.get("amount").or(Some(t)))
        .and_then(value_as_f64)
        .unwrap_or(before);
    let total = if draft {
        after + if shippable { SHIPPING_COST } else { 0.0 }
    } else {
        total - before + after
    };
    let amount = ((total * 100.0).round() / 100.0).max(0.0);
    let mut value = money(amount);
    if let (Some(currency), Some(object)) = (currency, value.as_object_mut()) {
        object.insert("currency".into(), currency);
    }
    map.insert("total".into(), value);
    let features = map
        .entry("features")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(features) = features.as_object_mut() {
        features.insert("shippable".into(), Value::Bool(shippable));
        features.insert("digitalable".into(), Value::Bool(digitalable));
    }
    if let Some(stamp) = map.get_mut("updated_at") {
        *stamp = Value::from(crate::store::now_local());
    }
}

/// The order's lines as its details show them.
fn lines_answer(call: &Call<'_>, store: &Store, order_id: &str) -> Handled {
    let order = store
        .get(ORDERS, order_id)
        .ok_or_else(ApiError::not_found)?;
    let shown = details(store, call.engine, order);
    let items = shown
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(Reply::Records(items))
}

/// The order holding the line `item_id`.
fn holder_of(store: &Store, item_id: &str) -> Option<String> {
    store.records(ORDERS).iter().rev().find_map(|order| {
        let holds = order
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|line| line.get("id").and_then(id_text_value).as_deref() == Some(item_id.trim()));
        holds
            .then(|| order.get("id").and_then(id_text_value))
            .flatten()
    })
}

/// `GET /orders/items?order_id=` (`list_order_items`): the order's lines, as its details show
/// them (a 422 on `order_id` when the store has no such order).
pub(super) fn list_order_items(call: &Call<'_>) -> Handled {
    let store = call.state.read();
    let order_id = call.query.one("order_id").unwrap_or_default().trim();
    if store.get(ORDERS, order_id).is_none() {
        return Err(ApiError::field("order_id", selected_invalid("order id")));
    }
    lines_answer(call, &store, order_id)
}

/// `POST /orders/items` (`create_order_item`): a line priced from the store's product (or a
/// custom line), added to the order named by `order_id`, whose total grows by it.
pub(super) fn create_order_item(call: &Call<'_>) -> Handled {
    let body = call.body_object();
    let order_id = body
        .get("order_id")
        .and_then(id_text_value)
        .unwrap_or_default();
    let mut store = call.state.write();
    if store.get(ORDERS, &order_id).is_none() {
        return Err(ApiError::field("order_id", selected_invalid("order id")));
    }
    let mut errors = FieldErrors::new();
    // A custom line when the body names no product of the store but gives a name.
    let names_product = body.contains_key("identifier") && {
        let mut probe = FieldErrors::new();
        order_line(
            &mut store,
            "identifier",
            &Value::Object(body.clone()),
            &mut probe,
        )
        .is_some()
    };
    let custom = !names_product && body.contains_key("name");
    let line = if custom {
        let id = store.new_id();
        Some(json!({
            "id": id,
            "name": body.get("name"),
            "price": number(body.get("price").and_then(value_as_f64).unwrap_or(0.0)),
            "quantity": body.get("quantity").and_then(Value::as_i64).unwrap_or(1),
            "product_type": "product",
            "sku": Value::Null,
        }))
    } else {
        order_line(
            &mut store,
            "identifier",
            &Value::Object(body.clone()),
            &mut errors,
        )
    };
    errors.finish()?;
    // What the body says of the line is what it keeps (a product's line renamed or repriced).
    let line = line.map(|mut line| {
        for field in [
            "name",
            "price",
            "weight",
            "weight_type",
            "cost_price",
            "options",
        ] {
            if let Some(value) = body.get(field).filter(|v| !v.is_null()) {
                object_mut(&mut line).insert(field.into(), value.clone());
            }
        }
        line
    });
    let Some(line) = line else {
        return Err(ApiError::field("identifier", selected_invalid("product")));
    };
    let order = store
        .get_mut(ORDERS, &order_id)
        .ok_or_else(ApiError::not_found)?;
    let before = lines_sum(order);
    let items = object_mut(order)
        .entry("items")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(items) = items {
        items.push(line);
    }
    reprice(order, before);
    let changed = order.clone();
    let answer = lines_answer(call, &store, &order_id);
    drop(store);
    call.state
        .emit("order.updated", &crate::shape::strip_hidden(&changed));
    answer
}

/// `PUT` and `DELETE /orders/items/{item_id}`: the engine's change of the line, then the order
/// repriced; a change answers the order's lines.
pub(super) fn change_order_item(call: &Call<'_>) -> Handled {
    let item_id = call.last_param().unwrap_or_default().to_owned();
    let (order_id, before) = {
        let store = call.state.read();
        let order_id = holder_of(&store, &item_id).ok_or_else(ApiError::not_found)?;
        let before = store.get(ORDERS, &order_id).map_or(0.0, lines_sum);
        (order_id, before)
    };
    let handled = crate::engine::generic(call)?;
    let mut store = call.state.write();
    let order = store
        .get_mut(ORDERS, &order_id)
        .ok_or_else(ApiError::not_found)?;
    reprice(order, before);
    let changed = order.clone();
    let answer = match call.op.method {
        axum::http::Method::DELETE => Ok(handled),
        _ => lines_answer(call, &store, &order_id),
    };
    drop(store);
    call.state
        .emit("order.updated", &crate::shape::strip_hidden(&changed));
    answer
}
