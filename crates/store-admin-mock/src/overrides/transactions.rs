//! Transactions: `PUT /transactions/{transaction_id}` acts on one (`refund`, `void`,
//! `reverse`). The documentation says a transaction's `available_actions` are what it allows, but
//! a transaction's status is what decides them, as on the service's dashboard: a paid (or partly
//! refunded) transaction can be refunded up to what is left of its total, and a transaction not
//! refunded yet (initiated, pending or paid) can be voided or reversed, which cancels it. A refund
//! changes the transaction's status (`partial_refunded`, then `refunded` once the whole total is
//! refunded, when `refund` leaves its `available_actions`); what was refunded so far is kept with
//! the record (not shown: the document has no field for it) so that a second refund finds only
//! what is left.

use serde_json::{Value, json};

use crate::engine::Call;
use crate::error::{ApiError, FieldErrors, Text, required, selected_invalid};
use crate::respond::{Handled, Reply};
use crate::store::{object_mut, value_as_f64};

const TRANSACTIONS: &str = "/transactions";

/// The hidden field of what was refunded so far.
const REFUNDED: &str = "__refunded";

/// The transaction's status; one that has none (a record made from the documentation's example)
/// counts as `paid`, what a listed transaction is unless it says otherwise.
fn status_slug(record: &Value) -> &str {
    record
        .pointer("/status/slug")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or("paid")
}

fn status(slug: &str, lang: crate::language::Lang) -> Value {
    let name = match slug {
        "refunded" => Text::new("Refunded", "مسترجعة"),
        "partial_refunded" => Text::new("Partially refunded", "مسترجعة جزئياً"),
        _ => Text::new("Canceled", "ملغية"),
    };
    json!({ "name": name.get(lang), "slug": slug })
}

fn not_allowed(action: &str, slug: &str) -> Text {
    Text::new(
        format!("The transaction cannot be {action} in its status ({slug})."),
        format!("لا يمكن تنفيذ العملية على المعاملة في حالتها ({slug})."),
    )
}

fn too_much(left: f64) -> Text {
    if left == f64::MAX {
        return Text::new(
            "The amount must be more than 0.",
            "يجب أن يكون المبلغ أكبر من 0.",
        );
    }
    Text::new(
        format!("The amount must be more than 0 and at most {left:.2}."),
        format!("يجب أن يكون المبلغ أكبر من 0 وبحد أقصى {left:.2}."),
    )
}

/// Rounds to cents (amounts are decimals of two places).
fn cents(amount: f64) -> f64 {
    (amount * 100.0).round() / 100.0
}

/// `PUT /transactions/{transaction_id}` (update_transaction).
pub(super) fn update_transaction(call: &Call<'_>) -> Handled {
    let id = call.last_param().unwrap_or_default().trim().to_owned();
    let body = call.body_object();
    let mut store = call.state.write();
    let record = store
        .get(TRANSACTIONS, &id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let Some(action) = body.get("action").and_then(Value::as_str) else {
        return Err(ApiError::field("action", required("action")));
    };
    let slug = status_slug(&record).to_owned();
    // A total the record does not hold bounds nothing (the refund is then of what was sent).
    let total = record.pointer("/total/amount").and_then(value_as_f64);
    let refunded = record.get(REFUNDED).and_then(value_as_f64).unwrap_or(0.0);
    let mut errors = FieldErrors::new();
    let (new_slug, new_refunded, message) = match action {
        "refund" => {
            if !["paid", "partial_refunded"].contains(&slug.as_str()) {
                return Err(ApiError::unprocessable(
                    "action",
                    not_allowed("refunded", &slug),
                ));
            }
            let left = total.map_or(f64::MAX, |t| cents(t - refunded).max(0.0));
            let amount = match body.get("amount") {
                None | Some(Value::Null) => total.map(|_| left),
                Some(value) => value_as_f64(value).map(cents),
            };
            let currency = record.pointer("/total/currency").and_then(Value::as_str);
            if let (Some(sent), Some(held)) =
                (body.get("currency").and_then(Value::as_str), currency)
                && !sent.trim().eq_ignore_ascii_case(held)
            {
                errors.add("currency", selected_invalid("currency"));
            }
            let amount = match amount {
                Some(a) if a > 0.0 && a <= left => a,
                _ => {
                    errors.add("amount", too_much(left));
                    0.0
                }
            };
            errors.finish()?;
            let now = cents(refunded + amount);
            let slug = if total.is_none_or(|t| now >= cents(t)) {
                "refunded"
            } else {
                "partial_refunded"
            };
            (
                slug,
                now,
                Text::new(
                    "The amount has been refunded successfully",
                    "تم استرجاع المبلغ بنجاح",
                ),
            )
        }
        "void" | "reverse" => {
            if !["initiated", "pending", "paid"].contains(&slug.as_str()) {
                let done = if action == "void" {
                    "voided"
                } else {
                    "reversed"
                };
                return Err(ApiError::unprocessable("action", not_allowed(done, &slug)));
            }
            (
                "canceled",
                refunded,
                Text::new(
                    "The transaction has been canceled successfully",
                    "تم إلغاء المعاملة بنجاح",
                ),
            )
        }
        _ => return Err(ApiError::field("action", selected_invalid("action"))),
    };
    let Some(record) = store.get_mut(TRANSACTIONS, &id) else {
        return Err(ApiError::not_found());
    };
    let map = object_mut(record);
    map.insert("status".into(), status(new_slug, call.lang));
    map.insert(REFUNDED.into(), json!(new_refunded));
    let mut actions: Vec<Value> = map
        .get("available_actions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    actions.retain(|a| a != "refund");
    if new_slug == "partial_refunded" {
        actions.push(Value::from("refund"));
    }
    map.insert("available_actions".into(), Value::Array(actions));
    drop(store);
    Ok(Reply::Data(
        json!({ "message": message.get(call.lang), "code": 201 }),
    ))
}
