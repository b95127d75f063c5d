//! Customers: the blacklist. `PUT /customers/blacklist/{customer_id}` bans a customer of the store
//! and `DELETE` un-bans one; both name a record of `/customers` (the blacklist is no collection of
//! its own), so a customer created a moment ago can be banned, and deleting from the blacklist
//! never deletes the customer.

use serde_json::{Value, json};

use crate::engine::Call;
use crate::error::{ApiError, required};
use crate::respond::{Handled, Reply};
use crate::store::object_mut;

const CUSTOMERS: &str = "/customers";

/// Sets the customer's blacklist fields; answers the customer record (for the event).
fn set_blocked(call: &Call<'_>, reason: Option<String>) -> Result<Value, ApiError> {
    let id = call.last_param().unwrap_or_default().trim().to_owned();
    let mut store = call.state.write();
    let record = store
        .get_mut(CUSTOMERS, &id)
        .ok_or_else(ApiError::not_found)?;
    let map = object_mut(record);
    map.insert("is_blocked".into(), Value::Bool(reason.is_some()));
    map.insert(
        "block_reason".into(),
        reason.map_or(Value::Null, Value::String),
    );
    Ok(record.clone())
}

/// `PUT /customers/blacklist/{customer_id}`: the reason is required (the document's schema has
/// already refused a body without one).
pub(super) fn ban_customer(call: &Call<'_>) -> Handled {
    let reason = call
        .body_object()
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| ApiError::unprocessable("reason", required("reason")))?;
    let customer = set_blocked(call, Some(reason))?;
    call.state
        .emit("customer.banned", &crate::shape::strip_hidden(&customer));
    Ok(Reply::Data(
        json!({ "message": "The customer has been banned", "code": 200 }),
    ))
}

/// `DELETE /customers/blacklist/{customer_id}`: 202 with the message, as the service answers.
pub(super) fn unban_customer(call: &Call<'_>) -> Handled {
    let customer = set_blocked(call, None)?;
    call.state
        .emit("customer.unbanned", &crate::shape::strip_hidden(&customer));
    Ok(Reply::Data(
        json!({ "message": "The customer has been removed from the blacklist", "code": 202 }),
    ))
}
