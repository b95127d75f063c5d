//! How the service writes amounts and local timestamps.

use serde_json::{Value, json};

/// Currency of every amount in the mock store.
pub(crate) const CURRENCY: &str = "SAR";
/// Time zone of every local timestamp.
pub(crate) const TIMEZONE: &str = "Asia/Riyadh";
/// [`TIMEZONE`]'s offset from UTC, in hours (Saudi Arabia keeps no daylight saving time).
pub(crate) const TIMEZONE_HOURS: i32 = 3;

/// A timestamp with an offset (RFC 3339: `2024-05-01T07:00:00Z`, `2024-05-01T10:00:00+03:00`)
/// as the service writes it, in the store's time zone without an offset (`2024-05-01
/// 10:00:00`); `None` for a text that is not one.
pub(crate) fn in_store_zone(text: &str) -> Option<String> {
    let instant = chrono::DateTime::parse_from_rfc3339(text.trim()).ok()?;
    let zone = chrono::FixedOffset::east_opt(TIMEZONE_HOURS * 3600)?;
    Some(
        instant
            .with_timezone(&zone)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string(),
    )
}

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
