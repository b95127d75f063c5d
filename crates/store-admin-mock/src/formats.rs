//! How the service writes amounts and local timestamps.

use serde_json::{Value, json};

/// Currency of every amount in the mock store.
pub(crate) const CURRENCY: &str = "SAR";
/// Time zone of every local timestamp.
pub(crate) const TIMEZONE: &str = "Asia/Riyadh";

/// `{"amount": 12.5, "currency": "SAR"}`.
pub(crate) fn money(amount: f64) -> Value {
    json!({ "amount": number(amount), "currency": CURRENCY })
}

/// `{"amount": "12.50", "currency": "SAR"}`.
pub(crate) fn money_string(amount: f64) -> Value {
    json!({ "amount": format!("{amount:.2}"), "currency": CURRENCY })
}

/// A JSON number that is an integer when the amount has no fraction (as the service prints `55`).
pub(crate) fn number(amount: f64) -> Value {
    if amount.fract() == 0.0 && amount.abs() < 1e15 {
        Value::from(amount as i64)
    } else {
        serde_json::Number::from_f64(amount).map_or(Value::Null, Value::Number)
    }
}

/// `{"date": "YYYY-MM-DD HH:MM:SS.000000", "timezone_type": 3, "timezone": "Asia/Riyadh"}`.
pub(crate) fn local_date(timestamp: &str) -> Value {
    json!({ "date": format!("{timestamp}.000000"), "timezone_type": 3, "timezone": TIMEZONE })
}
