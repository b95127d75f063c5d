//! Typed views of the service's loosely typed values: open-ended string enums, money amounts
//! that arrive as numbers or strings, and local timestamps.
//!
//! The OpenAPI document keeps these fields as plain strings (or "number or string") so that the
//! generated client never rejects a response; the types here give them meaning afterwards.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDateTime, TimeZone};
use rust_decimal::Decimal;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

open_enum! {
    /// The slug of an order status (`OrderStatus.slug` in `openapi/store-admin.yaml`). Merchants
    /// customize names, not slugs.
    pub enum OrderStatusSlug {
        /// Waiting for payment (top level, sort 0).
        PaymentPending => "payment_pending",
        /// Under review (top level, sort 1).
        UnderReview => "under_review",
        /// Being prepared (top level, sort 2).
        InProgress => "in_progress",
        /// Completed (top level, sort 3).
        Completed => "completed",
        /// Out for delivery (child of `completed`).
        Delivering => "delivering",
        /// Delivered (child of `completed`).
        Delivered => "delivered",
        /// Shipped (child of `completed`; may be inactive).
        Shipped => "shipped",
        /// Cancelled (the service spells it with one `l`).
        Canceled => "canceled",
        /// Restored (returned).
        Restored => "restored",
        /// Being restored.
        Restoring => "restoring",
    }
}

impl OrderStatusSlug {
    /// The slug of the parent status, for the built-in sub-statuses (`OrderStatus.parent` in
    /// `openapi/store-admin.yaml`).
    pub fn parent(&self) -> Option<OrderStatusSlug> {
        match OrderStatusSlug::from(self.as_str()) {
            OrderStatusSlug::Delivering | OrderStatusSlug::Delivered | OrderStatusSlug::Shipped => {
                Some(OrderStatusSlug::Completed)
            }
            _ => None,
        }
    }
}

open_enum! {
    /// The status of a shipment (`ShipmentStatusValue` in `openapi/store-admin.yaml`). Some
    /// responses carry `status` as an object `{id, name, slug}`: use its `slug` with this type.
    pub enum ShipmentStatus {
        /// Created.
        Created => "created",
        /// Being created by the shipping company.
        Creating => "creating",
        /// In progress.
        InProgress => "in_progress",
        /// In transit.
        InTransit => "in_transit",
        /// Received at the final hub.
        ReceivedAtFinalHub => "received_at_final_hub",
        /// Delivery will be attempted again.
        ToBeReattempted => "to_be_reattempted",
        /// Delivery was attempted again.
        Reattempted => "reattempted",
        /// Could not be delivered.
        UnableToDeliver => "unable_to_deliver",
        /// Out for delivery.
        Delivering => "delivering",
        /// Delivered.
        Delivered => "delivered",
        /// Part of the packages were delivered.
        PartiallyDelivered => "partially_delivered",
        /// Shipped.
        Shipped => "shipped",
        /// Cancelled (shipments use two `l`s, unlike order statuses).
        Cancelled => "cancelled",
        /// Lost.
        Lost => "lost",
        /// Damaged.
        Damaged => "damaged",
        /// Returned to the origin.
        ReturnToOrigin => "return_to_origin",
        /// Return under way.
        ReturnInProgress => "return_in_progress",
    }
}

open_enum! {
    /// The kind of a shipment: outbound or a return.
    pub enum ShipmentType {
        /// An outbound shipment to the customer.
        Shipment => "shipment",
        /// A return shipment from the customer.
        Return => "return",
    }
}

open_enum! {
    /// How a shipping company is linked to the store (`ShippingCompany.activation_type` in
    /// `openapi/store-admin.yaml`).
    pub enum ActivationType {
        /// The company belongs to the merchant side and cannot be linked from the dashboard.
        Manual => "manual",
        /// The company is linked through the platform.
        Api => "api",
    }
}

/// Why a money amount could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    /// The text is not a decimal number (`"10.70"`, `"127"`, `"-3.5"` are).
    #[error("not a decimal amount: {0:?}")]
    NotDecimal(String),
    /// The number does not fit a 96-bit decimal.
    #[error("amount out of range: {0}")]
    OutOfRange(String),
    /// The JSON value is neither a number nor a string.
    #[error("an amount must be a JSON number or string, found {0}")]
    WrongType(&'static str),
}

/// A money amount, exact to the cent and beyond.
///
/// The service sends amounts as JSON numbers (`127`, `13.5`) or strings (`"10.70"`). Numbers are read
/// through their shortest textual form, so `13.5` becomes exactly `13.5` and `0.1` exactly `0.1`,
/// with no binary floating-point artefacts. The scale of a string is kept (`"10.70"` stays
/// `10.70`); compare amounts with `==`, which ignores trailing zeros.
///
/// Serializes as a JSON string (`"10.70"`), which every endpoint seen accepts and which never
/// loses precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Money(pub Decimal);

impl Money {
    /// The amount as a decimal.
    pub fn amount(self) -> Decimal {
        self.0
    }

    /// Reads an amount from a JSON value (number or string).
    pub fn from_json(value: &serde_json::Value) -> Result<Self, MoneyError> {
        match value {
            serde_json::Value::String(s) => s.parse(),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Ok(Money(Decimal::from(i)))
                } else if let Some(u) = n.as_u64() {
                    Ok(Money(Decimal::from(u)))
                } else if let Some(f) = n.as_f64() {
                    Money::from_f64(f)
                } else {
                    Err(MoneyError::NotDecimal(n.to_string()))
                }
            }
            serde_json::Value::Null => Err(MoneyError::WrongType("null")),
            serde_json::Value::Bool(_) => Err(MoneyError::WrongType("a boolean")),
            serde_json::Value::Array(_) => Err(MoneyError::WrongType("an array")),
            serde_json::Value::Object(_) => Err(MoneyError::WrongType("an object")),
        }
    }

    /// Reads an amount from a float through its shortest round-trip text (`13.5` → `13.5`).
    pub fn from_f64(value: f64) -> Result<Self, MoneyError> {
        if !value.is_finite() {
            return Err(MoneyError::NotDecimal(value.to_string()));
        }
        let text = value.to_string();
        Decimal::from_str(&text)
            .map(Money)
            .map_err(|_| MoneyError::OutOfRange(text))
    }
}

impl FromStr for Money {
    type Err = MoneyError;

    /// Parses `"10.70"`, `"127"`, `"-3.5"`, `"+1"` (surrounding spaces allowed) and scientific
    /// notation (`"1.5e2"`). Empty text, thousands separators and currency signs are errors.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let not_decimal = || MoneyError::NotDecimal(s.to_owned());
        let trimmed = s.trim();
        let signed = trimmed.strip_prefix('+').unwrap_or(trimmed);
        let unsigned = signed.strip_prefix('-').unwrap_or(signed);
        let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
            Some((m, e)) => (m, Some(e)),
            None => (unsigned, None),
        };
        let mantissa_ok = mantissa.chars().any(|c| c.is_ascii_digit())
            && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.')
            && mantissa.matches('.').count() <= 1;
        let exponent_ok = exponent.is_none_or(|e| {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
        });
        if !mantissa_ok || !exponent_ok {
            return Err(not_decimal());
        }
        let parsed = if exponent.is_some() {
            Decimal::from_scientific(signed)
        } else {
            Decimal::from_str_exact(signed)
        };
        parsed
            .map(Money)
            .map_err(|_| MoneyError::OutOfRange(s.to_owned()))
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<Decimal> for Money {
    fn from(value: Decimal) -> Self {
        Money(value)
    }
}

impl From<Money> for Decimal {
    fn from(value: Money) -> Self {
        value.0
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MoneyVisitor;

        impl Visitor<'_> for MoneyVisitor {
            type Value = Money;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal amount as a JSON number or string")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Money, E> {
                Ok(Money(Decimal::from(v)))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Money, E> {
                Ok(Money(Decimal::from(v)))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Money, E> {
                Money::from_f64(v).map_err(E::custom)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Money, E> {
                v.parse().map_err(E::custom)
            }
        }

        deserializer.deserialize_any(MoneyVisitor)
    }
}

/// An amount with its currency, as in `{"amount": "10.70", "currency": "SAR"}` or
/// `{"amount": 13.5, "currency": "SAR"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrencyAmount {
    /// The amount.
    pub amount: Money,
    /// The ISO 4217 currency code, e.g. `SAR`.
    pub currency: String,
}

/// Why a timestamp could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// The text is not one of the accepted date-time shapes.
    #[error(
        "malformed timestamp {input:?}: expected `YYYY-MM-DD HH:MM:SS[.ffffff]` or `YYYY-MM-DDTHH:MM:SS[.ffffff]`"
    )]
    Malformed {
        /// The text that was given.
        input: String,
    },
    /// The time zone is neither an IANA name (`Asia/Riyadh`), `UTC`/`Z` nor an offset (`+03:00`).
    #[error(
        "unknown time zone {0:?}: expected an IANA name such as `Asia/Riyadh` or an offset such as `+03:00`"
    )]
    UnknownTimeZone(String),
    /// The local time does not exist in that zone (skipped by a daylight-saving change).
    #[error("{local} does not exist in time zone {zone} (skipped by a clock change)")]
    NonexistentLocalTime {
        /// The local time given.
        local: NaiveDateTime,
        /// The zone it was read in.
        zone: String,
    },
}

const NAIVE_FORMATS: [&str; 2] = ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"];

/// Parses the service's zone-less timestamps: `2024-02-13 13:48:33`, `2024-02-16T00:00:00`, and
/// either form with a fraction (`2022-06-16 14:48:20.000000`).
///
/// Anything else is an error, including the broken `2024-02-16T:23:59:59` seen in the samples.
///
/// ```
/// use store_admin::values::parse_naive_timestamp;
/// assert!(parse_naive_timestamp("2024-02-16T00:00:00").is_ok());
/// assert!(parse_naive_timestamp("2024-02-16T:23:59:59").is_err());
/// ```
pub fn parse_naive_timestamp(input: &str) -> Result<NaiveDateTime, TimestampError> {
    let trimmed = input.trim();
    NAIVE_FORMATS
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(trimmed, format).ok())
        .ok_or_else(|| TimestampError::Malformed {
            input: input.to_owned(),
        })
}

/// Parses a local timestamp with its zone, the `{date, timezone}` pair of the service
/// (`2022-06-16 14:48:20.000000` in `Asia/Riyadh`), into a date-time carrying the zone's offset at
/// that instant.
///
/// `timezone` may be an IANA name, `UTC`/`Z`, or a fixed offset (`+03:00`, `-0430`). When a local
/// time is ambiguous (clocks turned back), the earlier instant is chosen.
///
/// ```
/// use store_admin::values::parse_local_timestamp;
/// let t = parse_local_timestamp("2022-06-16 14:48:20.000000", "Asia/Riyadh").unwrap();
/// assert_eq!(t.to_rfc3339(), "2022-06-16T14:48:20+03:00");
/// ```
pub fn parse_local_timestamp(
    date: &str,
    timezone: &str,
) -> Result<DateTime<FixedOffset>, TimestampError> {
    let local = parse_naive_timestamp(date)?;
    let zone = timezone.trim();
    if let Some(offset) = parse_offset(zone) {
        return resolve(offset.from_local_datetime(&local), local, zone);
    }
    let tz = chrono_tz::Tz::from_str(zone)
        .map_err(|_| TimestampError::UnknownTimeZone(timezone.to_owned()))?;
    resolve(tz.from_local_datetime(&local), local, zone).map(|t| t.fixed_offset())
}

fn resolve<Tz: TimeZone>(
    result: LocalResult<DateTime<Tz>>,
    local: NaiveDateTime,
    zone: &str,
) -> Result<DateTime<Tz>, TimestampError> {
    match result {
        LocalResult::Single(t) => Ok(t),
        LocalResult::Ambiguous(earlier, _) => Ok(earlier),
        LocalResult::None => Err(TimestampError::NonexistentLocalTime {
            local,
            zone: zone.to_owned(),
        }),
    }
}

/// `UTC`, `Z`, `+03:00`, `+0300`, `-04:30`; `None` for anything else.
fn parse_offset(zone: &str) -> Option<FixedOffset> {
    if zone.eq_ignore_ascii_case("utc") || zone == "Z" {
        return FixedOffset::east_opt(0);
    }
    let (sign, rest) = match zone.as_bytes().first()? {
        b'+' => (1, &zone[1..]),
        b'-' => (-1, &zone[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    if minutes >= 60 {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

/// The service's zoned timestamp object, `{"date": "2022-06-16 14:48:20.000000",
/// "timezone_type": 3, "timezone": "Asia/Riyadh"}` (a PHP `DateTime` serialized as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZonedTimestamp {
    /// The local date-time text.
    pub date: String,
    /// PHP's zone kind: 1 offset, 2 abbreviation, 3 IANA identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone_type: Option<i64>,
    /// The zone, e.g. `Asia/Riyadh` or `+03:00`.
    pub timezone: String,
}

impl ZonedTimestamp {
    /// The instant this object denotes, with the zone's offset. See [`parse_local_timestamp`].
    pub fn to_datetime(&self) -> Result<DateTime<FixedOffset>, TimestampError> {
        parse_local_timestamp(&self.date, &self.timezone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Datelike, Timelike};
    use std::collections::HashSet;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn open_enum_known_values_parse_to_their_variant() {
        assert_eq!(
            "delivered".parse::<ShipmentStatus>(),
            Ok(ShipmentStatus::Delivered)
        );
        assert_eq!(
            OrderStatusSlug::from("payment_pending"),
            OrderStatusSlug::PaymentPending
        );
        assert_eq!(ShipmentType::from("return"), ShipmentType::Return);
        assert_eq!(ActivationType::from("api"), ActivationType::Api);
    }

    #[test]
    fn open_enum_unknown_value_is_kept_verbatim() {
        let s = ShipmentStatus::from("teleported");
        assert_eq!(s, ShipmentStatus::Other("teleported".into()));
        assert_eq!(s.as_str(), "teleported");
        assert!(!s.is_known());
        assert_eq!(s.to_string(), "teleported");
    }

    #[test]
    fn open_enum_is_case_sensitive_like_the_service() {
        assert!(!ShipmentType::from("Shipment").is_known());
    }

    #[test]
    fn open_enum_other_holding_a_known_string_equals_the_variant() {
        let other = ActivationType::Other("manual".into());
        assert_eq!(other, ActivationType::Manual);
        assert!(other.is_known());
        let set: HashSet<_> = [other, ActivationType::Manual].into_iter().collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn open_enum_round_trips_through_serde_as_a_plain_string() {
        for status in ShipmentStatus::KNOWN {
            let json = serde_json::to_string(status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
            let back: ShipmentStatus = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, status);
            assert!(back.is_known());
        }
        let other: OrderStatusSlug = serde_json::from_str("\"on_hold\"").unwrap();
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"on_hold\"");
    }

    #[test]
    fn open_enum_rejects_non_string_json() {
        assert!(serde_json::from_str::<ShipmentType>("3").is_err());
        assert!(serde_json::from_str::<ShipmentType>("null").is_err());
    }

    #[test]
    fn open_enum_known_lists_match_the_documented_sets() {
        assert_eq!(OrderStatusSlug::KNOWN.len(), 10);
        assert_eq!(ShipmentStatus::KNOWN.len(), 17);
        assert_eq!(ShipmentType::KNOWN.len(), 2);
        assert_eq!(ActivationType::KNOWN.len(), 2);
        let wires: HashSet<&str> = ShipmentStatus::KNOWN.iter().map(|s| s.as_str()).collect();
        assert_eq!(wires.len(), 17, "wire strings are distinct");
    }

    #[test]
    fn open_enum_debug_names_the_variant() {
        assert_eq!(format!("{:?}", ShipmentStatus::InTransit), "InTransit");
        assert_eq!(format!("{:?}", ShipmentStatus::from("x")), "Other(\"x\")");
    }

    #[test]
    fn order_status_sub_statuses_have_completed_as_parent() {
        assert_eq!(
            OrderStatusSlug::Delivered.parent(),
            Some(OrderStatusSlug::Completed)
        );
        assert_eq!(
            OrderStatusSlug::Other("shipped".into()).parent(),
            Some(OrderStatusSlug::Completed)
        );
        assert_eq!(OrderStatusSlug::Canceled.parent(), None);
        assert_eq!(OrderStatusSlug::from("new_one").parent(), None);
    }

    #[test]
    fn money_reads_json_strings_keeping_their_scale() {
        let m: Money = serde_json::from_str("\"10.70\"").unwrap();
        assert_eq!(m.0, dec("10.70"));
        assert_eq!(m.to_string(), "10.70");
    }

    #[test]
    fn money_reads_json_integers_and_floats_exactly() {
        let m: Money = serde_json::from_str("127").unwrap();
        assert_eq!(m.0, dec("127"));
        let m: Money = serde_json::from_str("13.5").unwrap();
        assert_eq!(m.0, dec("13.5"));
        assert_eq!(m.to_string(), "13.5");
        // 0.1 has no exact binary form; the shortest text keeps it exact.
        let m: Money = serde_json::from_str("0.1").unwrap();
        assert_eq!(m.0, dec("0.1"));
        let m: Money = serde_json::from_str("-0.07").unwrap();
        assert_eq!(m.0, dec("-0.07"));
        let m: Money = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(m.0, dec("18446744073709551615"));
    }

    #[test]
    fn money_serializes_as_a_string() {
        assert_eq!(
            serde_json::to_string(&Money(dec("10.70"))).unwrap(),
            "\"10.70\""
        );
    }

    #[test]
    fn money_rejects_malformed_strings_with_a_clear_error() {
        for bad in ["", " ", "abc", "1,234.50", "SAR 10", "1.2.3", "--1", "."] {
            let err = bad.parse::<Money>().unwrap_err();
            assert!(
                matches!(err, MoneyError::NotDecimal(_)),
                "{bad:?} gave {err:?}"
            );
        }
        let err = serde_json::from_str::<Money>("\"ten\"").unwrap_err();
        assert!(err.to_string().contains("not a decimal amount"), "{err}");
    }

    #[test]
    fn money_accepts_sign_spaces_and_scientific_text() {
        assert_eq!("+1".parse::<Money>().unwrap().0, dec("1"));
        assert_eq!(" 2.50 ".parse::<Money>().unwrap().0, dec("2.50"));
        assert_eq!("1.5e2".parse::<Money>().unwrap().0, dec("150"));
    }

    #[test]
    fn money_out_of_range_is_an_error_not_a_panic() {
        assert!(matches!(
            "1e40".parse::<Money>(),
            Err(MoneyError::NotDecimal(_) | MoneyError::OutOfRange(_))
        ));
        assert!(serde_json::from_str::<Money>("1e300").is_err());
        assert!(matches!(
            "99999999999999999999999999999999".parse::<Money>(),
            Err(MoneyError::OutOfRange(_))
        ));
        assert!(Money::from_f64(f64::NAN).is_err());
        assert!(Money::from_f64(f64::INFINITY).is_err());
    }

    #[test]
    fn money_rejects_non_scalar_json() {
        assert!(serde_json::from_str::<Money>("null").is_err());
        assert!(serde_json::from_str::<Money>("true").is_err());
        assert!(serde_json::from_str::<Money>("[1]").is_err());
        assert_eq!(
            Money::from_json(&serde_json::json!({"a": 1})),
            Err(MoneyError::WrongType("an object"))
        );
    }

    #[test]
    fn money_from_json_value_matches_deserialize() {
        for v in [
            serde_json::json!("10.70"),
            serde_json::json!(127),
            serde_json::json!(13.5),
        ] {
            let a = Money::from_json(&v).unwrap();
            let b: Money = serde_json::from_value(v).unwrap();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn currency_amount_decodes_both_shapes_from_the_samples() {
        let a: CurrencyAmount =
            serde_json::from_str(r#"{"amount":"10.70","currency":"SAR"}"#).unwrap();
        let b: CurrencyAmount =
            serde_json::from_str(r#"{"amount":13.5,"currency":"SAR"}"#).unwrap();
        assert_eq!(a.amount.0, dec("10.7"));
        assert_eq!(b.amount.0, dec("13.5"));
    }

    #[test]
    fn local_timestamp_in_riyadh_has_plus_three_offset() {
        let t = parse_local_timestamp("2022-06-16 14:48:20.000000", "Asia/Riyadh").unwrap();
        assert_eq!(t.offset().local_minus_utc(), 3 * 3600);
        assert_eq!(t.to_rfc3339(), "2022-06-16T14:48:20+03:00");
        assert_eq!(
            t.with_timezone(&chrono::Utc).to_rfc3339(),
            "2022-06-16T11:48:20+00:00"
        );
    }

    #[test]
    fn local_timestamp_keeps_fractional_seconds() {
        let t = parse_local_timestamp("2022-06-16 14:48:20.123456", "UTC").unwrap();
        assert_eq!(t.nanosecond(), 123_456_000);
    }

    #[test]
    fn local_timestamp_uses_the_offset_in_force_at_that_date() {
        let winter = parse_local_timestamp("2023-01-15 12:00:00", "Europe/London").unwrap();
        let summer = parse_local_timestamp("2023-07-15 12:00:00", "Europe/London").unwrap();
        assert_eq!(winter.offset().local_minus_utc(), 0);
        assert_eq!(summer.offset().local_minus_utc(), 3600);
    }

    #[test]
    fn local_timestamp_accepts_fixed_offsets() {
        let t = parse_local_timestamp("2024-02-13 13:48:33", "+03:00").unwrap();
        assert_eq!(t.offset().local_minus_utc(), 3 * 3600);
        let t = parse_local_timestamp("2024-02-13 13:48:33", "-0430").unwrap();
        assert_eq!(t.offset().local_minus_utc(), -(4 * 3600 + 30 * 60));
        let t = parse_local_timestamp("2024-02-13 13:48:33", "Z").unwrap();
        assert_eq!(t.offset().local_minus_utc(), 0);
    }

    #[test]
    fn local_timestamp_rejects_unknown_zones() {
        for zone in ["Mars/Olympus", "", "+3", "+03:75", "AST"] {
            assert!(
                matches!(
                    parse_local_timestamp("2024-02-13 13:48:33", zone),
                    Err(TimestampError::UnknownTimeZone(_))
                ),
                "{zone:?}"
            );
        }
    }

    #[test]
    fn local_timestamp_in_a_dst_gap_is_an_error() {
        let err = parse_local_timestamp("2023-03-26 01:30:00", "Europe/London").unwrap_err();
        assert!(matches!(err, TimestampError::NonexistentLocalTime { .. }));
    }

    #[test]
    fn local_timestamp_ambiguous_picks_the_earlier_instant() {
        let t = parse_local_timestamp("2023-10-29 01:30:00", "Europe/London").unwrap();
        assert_eq!(t.offset().local_minus_utc(), 3600);
    }

    #[test]
    fn naive_timestamp_accepts_space_and_t_forms() {
        let a = parse_naive_timestamp("2024-02-13 13:48:33").unwrap();
        assert_eq!((a.year(), a.month(), a.day()), (2024, 2, 13));
        assert_eq!((a.hour(), a.minute(), a.second()), (13, 48, 33));
        let b = parse_naive_timestamp("2024-02-16T00:00:00").unwrap();
        assert_eq!((b.day(), b.hour()), (16, 0));
        let c = parse_naive_timestamp("2024-02-19T10:30:00.5").unwrap();
        assert_eq!(c.nanosecond(), 500_000_000);
    }

    #[test]
    fn naive_timestamp_broken_sample_is_an_error_not_a_panic() {
        let err = parse_naive_timestamp("2024-02-16T:23:59:59").unwrap_err();
        assert_eq!(
            err,
            TimestampError::Malformed {
                input: "2024-02-16T:23:59:59".into()
            }
        );
        assert!(err.to_string().contains("2024-02-16T:23:59:59"));
    }

    #[test]
    fn naive_timestamp_rejects_other_malformed_input() {
        for bad in [
            "",
            "2024-02-16",
            "2024-13-01 00:00:00",
            "2024-02-30 00:00:00",
            "2024-02-16 25:00:00",
            "16/02/2024 10:00:00",
            "2024-02-16 10:00",
            "\u{0663}\u{0660}\u{0662}\u{0664}-02-16 10:00:00",
        ] {
            assert!(parse_naive_timestamp(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn zoned_timestamp_object_decodes_and_converts() {
        let z: ZonedTimestamp = serde_json::from_str(
            r#"{"date":"2023-01-18 09:35:03.000000","timezone_type":3,"timezone":"Asia/Riyadh"}"#,
        )
        .unwrap();
        assert_eq!(
            z.to_datetime().unwrap().to_rfc3339(),
            "2023-01-18T09:35:03+03:00"
        );
    }
}
