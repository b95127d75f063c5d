//! Typed views of the generated types' open-ended and loosely typed fields.
//!
//! The document keeps statuses and event names as strings (the service adds values), amounts as
//! "number or string" and timestamps as the service's local text, so that every real response
//! decodes. These extension traits read them as the typed values of [`crate::values`]:
//!
//! ```
//! use store_admin::ext::{OrderExt, MoneyExt};
//! use store_admin::values::OrderStatusSlug;
//! use store_admin::types;
//!
//! let order: types::Order = serde_json::from_str(r#"{"id": 1, "reference_id": 2,
//!     "total": {"amount": "10.70", "currency": "SAR"},
//!     "date": {"date": "2022-06-16 14:48:20.000000", "timezone_type": 3, "timezone": "Asia/Riyadh"},
//!     "status": {"id": 3, "name": "x", "slug": "under_review"}}"#).unwrap();
//! assert_eq!(order.status_slug(), OrderStatusSlug::UnderReview);
//! assert_eq!(order.total.decimal().unwrap().to_string(), "10.70");
//! assert_eq!(order.created_at().unwrap().to_rfc3339(), "2022-06-16T14:48:20+03:00");
//! ```

use chrono::{DateTime, FixedOffset};

use crate::types;
#[cfg(feature = "orders")]
use crate::values::OrderStatusSlug;
use crate::values::{Money, MoneyError, TimestampError, parse_local_timestamp};
#[cfg(feature = "shipping")]
use crate::values::{ShipmentStatus, ShipmentType};

/// A "number or string" decimal as an exact [`Money`] amount.
pub trait DecimalExt {
    /// The value as an exact decimal, whichever wire form arrived.
    fn decimal(&self) -> Result<Money, MoneyError>;
}

impl DecimalExt for types::NumberOrString {
    fn decimal(&self) -> Result<Money, MoneyError> {
        match self {
            types::NumberOrString::Number(n) => Money::from_f64(*n),
            types::NumberOrString::String(s) => s.parse(),
            // A value no branch fits (kept as its JSON): read as the service's amounts are.
            types::NumberOrString::Other(value) => Money::from_json(value),
        }
    }
}

/// [`types::Money`] as an exact amount.
pub trait MoneyExt {
    /// The amount as an exact decimal, whichever wire form arrived.
    fn decimal(&self) -> Result<Money, MoneyError>;
}

impl MoneyExt for types::Money {
    fn decimal(&self) -> Result<Money, MoneyError> {
        self.amount.decimal()
    }
}

/// The service's `{date, timezone_type, timezone}` timestamps.
pub trait ServiceDateTimeExt {
    /// The instant, with the zone's offset (`Asia/Riyadh` when the zone is missing: the service's
    /// own zone in every documented example).
    fn to_datetime(&self) -> Result<DateTime<FixedOffset>, TimestampError>;
}

impl ServiceDateTimeExt for types::ServiceDateTime {
    fn to_datetime(&self) -> Result<DateTime<FixedOffset>, TimestampError> {
        parse_local_timestamp(
            &self.date,
            self.timezone.as_deref().unwrap_or("Asia/Riyadh"),
        )
    }
}

/// Typed views of an order.
#[cfg(feature = "orders")]
pub trait OrderExt {
    /// The built-in status the order is in (customized names aside).
    fn status_slug(&self) -> OrderStatusSlug;
    /// When the order was created.
    fn created_at(&self) -> Result<DateTime<FixedOffset>, TimestampError>;
}

#[cfg(feature = "orders")]
impl OrderExt for types::Order {
    fn status_slug(&self) -> OrderStatusSlug {
        self.status.slug.as_str().into()
    }

    fn created_at(&self) -> Result<DateTime<FixedOffset>, TimestampError> {
        self.date.to_datetime()
    }
}

/// Typed views of a shipment.
#[cfg(feature = "shipping")]
pub trait ShipmentExt {
    /// The status, whether it came as a string or as an object.
    fn status(&self) -> Option<ShipmentStatus>;
    /// `shipment` or `return`.
    fn kind(&self) -> Option<ShipmentType>;
}

#[cfg(feature = "shipping")]
impl ShipmentExt for types::Shipment {
    fn status(&self) -> Option<ShipmentStatus> {
        self.status.as_ref().map(|status| match status {
            types::ShipmentStatusValue::String(slug) => slug.as_str().into(),
            types::ShipmentStatusValue::ShipmentStatusObject(object) => object.slug.as_str().into(),
            // A value no branch fits (kept as its JSON): its `slug` if it has one, else its text.
            types::ShipmentStatusValue::Other(value) => value
                .get("slug")
                .unwrap_or(value)
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned)
                .as_str()
                .into(),
        })
    }

    fn kind(&self) -> Option<ShipmentType> {
        self.type_.as_ref().map(|kind| kind.as_str().into())
    }
}

/// The pagination object's links, which the service sends as `{"next": .., "previous": ..}`, `{}`
/// or `[]` (the document leaves them untyped so that every generator accepts them).
pub trait PaginationExt {
    /// The full URL of the next page, when there is one.
    fn next_url(&self) -> Option<&str>;
    /// The full URL of the previous page, when there is one.
    fn previous_url(&self) -> Option<&str>;
}

impl PaginationExt for types::Pagination {
    fn next_url(&self) -> Option<&str> {
        self.links.as_ref()?.get("next")?.as_str()
    }

    fn previous_url(&self) -> Option<&str> {
        self.links.as_ref()?.get("previous")?.as_str()
    }
}

/// A shipment's label, `[]` while there is none, else `{"format": .., "url": ..}`.
#[cfg(feature = "shipping")]
pub trait ShipmentLabelExt {
    /// The label file's address, when there is a label.
    fn label_url(&self) -> Option<&str>;
    /// The label file's format (`pdf`), when there is a label.
    fn label_format(&self) -> Option<&str>;
}

#[cfg(feature = "shipping")]
impl ShipmentLabelExt for types::ShipmentLabel {
    fn label_url(&self) -> Option<&str> {
        self.get("url")?.as_str()
    }

    fn label_format(&self) -> Option<&str> {
        self.get("format")?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "shipping")]
    fn shipment(status: serde_json::Value) -> types::Shipment {
        serde_json::from_value(serde_json::json!({"id": 1, "status": status, "type": "return"}))
            .expect("decodes")
    }

    #[test]
    #[cfg(feature = "shipping")]
    fn shipment_status_reads_both_wire_forms_and_keeps_unknown_ones() {
        assert_eq!(
            shipment("delivered".into()).status(),
            Some(ShipmentStatus::Delivered)
        );
        let object = serde_json::json!({"id": 5, "name": "x", "slug": "in_transit"});
        assert_eq!(shipment(object).status(), Some(ShipmentStatus::InTransit));
        assert_eq!(
            shipment("teleported".into()).status(),
            Some(ShipmentStatus::Other("teleported".into()))
        );
        assert_eq!(
            shipment("delivered".into()).kind(),
            Some(ShipmentType::Return)
        );
    }

    #[test]
    fn pagination_links_read_every_wire_form() {
        let page = |links: serde_json::Value| -> types::Pagination {
            serde_json::from_value(serde_json::json!({"count": 1, "total": 1, "perPage": 15,
                "currentPage": 2, "totalPages": 3, "links": links}))
            .expect("decodes")
        };
        let both = page(
            serde_json::json!({"next": "https://x/p?page=3", "previous": "https://x/p?page=1"}),
        );
        assert_eq!(both.next_url(), Some("https://x/p?page=3"));
        assert_eq!(both.previous_url(), Some("https://x/p?page=1"));
        assert_eq!(page(serde_json::json!({})).next_url(), None);
        assert_eq!(page(serde_json::json!([])).next_url(), None);
        assert_eq!(page(serde_json::json!(["string"])).previous_url(), None);
    }

    #[test]
    #[cfg(feature = "shipping")]
    fn shipment_label_reads_the_file_or_nothing() {
        let label: types::ShipmentLabel =
            serde_json::from_value(serde_json::json!({"format": "pdf", "url": "https://x/l.pdf"}))
                .expect("decodes");
        assert_eq!(label.label_url(), Some("https://x/l.pdf"));
        assert_eq!(label.label_format(), Some("pdf"));
        let none: types::ShipmentLabel =
            serde_json::from_value(serde_json::json!([])).expect("decodes");
        assert_eq!(none.label_url(), None);
    }

    #[test]
    fn amounts_are_exact_in_both_wire_forms() {
        let number = types::NumberOrString::Number(13.5);
        let string = types::NumberOrString::String("10.70".into());
        assert_eq!(number.decimal().expect("decimal").to_string(), "13.5");
        assert_eq!(string.decimal().expect("decimal").to_string(), "10.70");
        assert!(
            types::NumberOrString::String("ten".into())
                .decimal()
                .is_err()
        );
    }
}
