//! Orders: a status change (`POST /orders/{order_id}/status`) moves the order to a status of the
//! store and tells the webhooks.

use serde_json::{Value, json};

use crate::engine::Call;
use crate::error::ApiError;
use crate::respond::{Handled, Reply};
use crate::seed::tables::keys::{ORDER_STATUSES, ORDERS};
use crate::store::{id_text_value, object_mut};

/// `POST /orders/{order_id}/status` (`change_order_status`): the body names the status by
/// `status_id`, `status` or `slug`; an unknown one is a 422. Answers a confirmation message.
pub(super) fn change_order_status(call: &Call<'_>) -> Handled {
    let order_id = call.last_param().unwrap_or_default().trim().to_owned();
    let body = call.body_object();
    let wanted: Vec<String> = ["status_id", "status", "slug", "id"]
        .iter()
        .filter_map(|f| body.get(*f).and_then(id_text_value))
        .collect();
    let mut store = call.state.write();
    if store.get(ORDERS, &order_id).is_none() {
        return Err(ApiError::not_found());
    }
    let status = store
        .records(ORDER_STATUSES)
        .iter()
        .find(|s| {
            ["id", "slug"].iter().any(|f| {
                s.get(*f)
                    .and_then(id_text_value)
                    .is_some_and(|v| wanted.contains(&v))
            })
        })
        .cloned();
    let Some(status) = status else {
        let field = ["status_id", "status", "slug"]
            .into_iter()
            .find(|f| body.contains_key(*f))
            .unwrap_or("status_id");
        return Err(ApiError::field(field, "The selected status is invalid."));
    };
    let original = status.get("original").cloned().unwrap_or(Value::Null);
    let order_status = json!({
        "id": original.get("id").cloned().unwrap_or_else(|| status.get("id").cloned().unwrap_or(Value::Null)),
        "name": original.get("name").cloned().unwrap_or_else(|| status.get("name").cloned().unwrap_or(Value::Null)),
        "slug": status.get("slug"),
        "customized": { "id": status.get("id"), "name": status.get("name") },
    });
    let Some(order) = store.get_mut(ORDERS, &order_id) else {
        return Err(ApiError::not_found());
    };
    object_mut(order).insert("status".into(), order_status);
    let order = order.clone();
    drop(store);
    call.state
        .emit("order.status.updated", &crate::shape::strip_hidden(&order));
    Ok(Reply::Data(
        json!({ "message": "The order status has been updated successfully", "code": 201 }),
    ))
}
