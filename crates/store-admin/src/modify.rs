//! Changing some fields of a record without restating the others: read-modify-write.
//!
//! Most of the service's updates (`PUT`) are documented with every field required: a brand's
//! name cannot change without sending its logo, banner, description, search engine metadata and
//! translations again. And what a read answers is not what an update takes: an advertisement's
//! `expire_date` is read as a local timestamp object and written as `YYYY-MM-DD`, a variant's
//! price is read as a money object and written as an amount, a special offer's products are read
//! as records and written as ids.
//!
//! For each update whose body requires fields and whose path also has a read (`PUT
//! /brands/{brand_id}` and `GET /brands/{brand_id}`), [`StoreAdmin`] has a `modify_*` method,
//! generated from the document (`cargo xtask generate`, `xtask/src/modify.rs`), that:
//!
//! 1. reads the record with the read of the same path (asking for the related data the update
//!    needs, such as a brand's `translations`);
//! 2. converts the read shape into the write shape, field by field, as the [`Pairing`] table
//!    says (a money object to its amount, a local timestamp to the text the update takes, a
//!    record to its id, a flattened `metadata_title` from `metadata.title`, nested objects by
//!    the same rules);
//! 3. hands the body's builder to the caller's `change`, which sets the fields it changes;
//! 4. sends the update, and answers [`Modified`]: the record it read and the update's answer.
//!
//! ```no_run
//! # async fn run(admin: store_admin::StoreAdmin) -> Result<(), store_admin::Error> {
//! let modified = admin.modify_brand(7, |b| b.name("Acme")).await?;
//! println!("was {:?}, now {:?}", modified.before.name, modified.after.data.name);
//! # Ok(()) }
//! ```
//!
//! **Cost:** one read more than the update alone.
//!
//! **Race:** it is not atomic. A change another writer makes to the record between the read and
//! the write is overwritten with what was read. The service offers no conditional update
//! (`If-Match`, an `ETag` or a version field), so this cannot be detected; serialize your own
//! writers to one record if that matters.
//!
//! A read that fails (a 404: no such record) fails the call with nothing written. A required
//! field that the record read lacks (a `null`, or a field the service left out) fails with
//! [`Error::InvalidRequest`] naming it, with nothing written; a required text field read as
//! `null` is sent as `""` (the service reads an empty text as none).
//!
//! The updates with required fields that have no read of their own path (`update_export_template`,
//! `update_order_shipment`, `ban_customer`, `change_special_offer_status`,
//! `update_product_variant_quantity`) and those whose read lacks a required field
//! (`update_special_offer`: its read has no `applied_channel` nor `applied_to`; `update_shipment`:
//! its read has no `shipment_number`) have no `modify_*`: send them with every required field.
//! For most of them the required fields are the change itself (a status, a quantity, a reason).
//! [`UNPAIRED`] lists them, each with why, as generated from the document.
//!
//! A body field that the read does not show (a shipping zone's `shipping`, a tax's `country_id`)
//! is left out of the body unless `change` sets it; the service keeps what it has for a field
//! left out of an update, as it does for the optional fields of every update.
//!
//! **A day loses its time of day.** Where an update takes a day (`YYYY-MM-DD`, an advertisement's
//! `expire_date`) and the read answers a timestamp, the day is written back without the record's
//! time of day: an advertisement read as expiring at 18:30 on 1 March is sent `2025-03-01` by a
//! `modify_advertisement` that changed only its title, and then expires at whatever time the
//! service gives a bare day. The update cannot carry more than a day.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

#[allow(unused_imports)]
use crate::{Call, Error, StoreAdmin, types};
#[allow(unused_imports)]
use store_admin_client::prelude::*;

/// How one field of an update's body is made from the record read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Convert {
    /// The value as read.
    Copy,
    /// A number-or-string read as a number: its text.
    Text,
    /// A local timestamp object (`{"date": "2025-01-31 14:00:00.000000", ..}`): its date,
    /// `2025-01-31`.
    Date,
    /// A local timestamp object: its date and time without fractions, `2025-01-31 14:00:00`.
    DateTime,
    /// A money object (`{"amount": "149.50", "currency": "SAR"}`): its amount.
    Amount,
    /// A record (`{"id": 5, ..}`): its id.
    Id,
    /// A list of records: their ids.
    Ids,
    /// An object: its fields, each by its own rule.
    Record(&'static [Field]),
}

/// One field of an update's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Its name in the body.
    pub name: &'static str,
    /// Where it is in the record read (`["metadata", "title"]` for `metadata_title`); empty when
    /// the read has no such field.
    pub from: &'static [&'static str],
    /// How it is converted.
    pub convert: Convert,
    /// Whether the body requires it.
    pub required: bool,
}

/// An update paired with the read of the same path, and how the read shape becomes the write
/// shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    /// The update's operationId.
    pub update: &'static str,
    /// The read's operationId.
    pub get: &'static str,
    /// The path both share.
    pub path: &'static str,
    /// The values of the read's `with` parameter it is called with (the related data the update
    /// needs, such as a brand's `translations`).
    pub with: &'static [&'static str],
    /// The body's fields.
    pub fields: &'static [Field],
    /// The record's fields that no body field is made from (its id, labels, counts...).
    pub read_only: &'static [&'static str],
}

/// What a `modify_*` call read and what the update answered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Modified<R, A> {
    /// The record as it was read, before the change.
    pub before: R,
    /// The update's answer.
    pub after: A,
}

include!("generated_modify.rs");

/// The pairing of an update (by operationId), if it has one.
pub fn pairing(update: &str) -> Option<&'static Pairing> {
    PAIRINGS.iter().copied().find(|p| p.update == update)
}

impl Pairing {
    /// The body of the update made from `record`, a record as its read answers it (the `data`
    /// of the answer, as `get -o json` prints it). Fields already in the write shape are kept;
    /// fields of neither shape are kept too, so that a check of the body names them; the read's
    /// own fields ([`Pairing::read_only`]) are dropped.
    pub fn write_shape(&self, record: &Map<String, Value>) -> Map<String, Value> {
        let mut out = convert_fields(self.fields, record);
        for (key, value) in record {
            let known = self.read_only.contains(&key.as_str())
                || self
                    .fields
                    .iter()
                    .any(|f| f.name == key || f.from.first() == Some(&key.as_str()));
            if !known {
                out.insert(key.clone(), value.clone());
            }
        }
        out
    }

    /// The body of the update made from `record` as its read answers it:
    /// [`write_shape`](Self::write_shape), and a required text field read as `null` made `""` (the service
    /// reads an empty text as none).
    pub fn body_from_record(&self, record: &Map<String, Value>) -> Map<String, Value> {
        let mut body = self.write_shape(record);
        for name in self.missing(&body) {
            if read_is_null_text(self, name, record) {
                body.insert(name.to_owned(), Value::String(String::new()));
            }
        }
        body
    }

    /// The required fields that `body` lacks.
    pub fn missing(&self, body: &Map<String, Value>) -> Vec<&'static str> {
        self.fields
            .iter()
            .filter(|f| f.required && body.get(f.name).is_none_or(Value::is_null))
            .map(|f| f.name)
            .collect()
    }
}

fn lookup<'v>(record: &'v Map<String, Value>, path: &[&str]) -> Option<&'v Value> {
    let (first, rest) = path.split_first()?;
    let mut value = record.get(*first)?;
    for key in rest {
        value = value.as_object()?.get(*key)?;
    }
    Some(value)
}

fn convert_fields(fields: &[Field], record: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for field in fields {
        // The write shape (a body file) wins over the read shape of the same field.
        let value = record
            .get(field.name)
            .filter(|v| !v.is_null())
            .or_else(|| lookup(record, field.from));
        let value = match value {
            Some(Value::Null) | None => continue,
            Some(value) => convert(field.convert, value),
        };
        out.insert(field.name.to_owned(), value);
    }
    out
}

/// Converts one read value; a value not in the read shape the rule expects is kept as it is.
fn convert(rule: Convert, value: &Value) -> Value {
    match (rule, value) {
        (Convert::Text, Value::Number(n)) => Value::String(n.to_string()),
        (Convert::Date | Convert::DateTime, Value::Object(o)) => match o.get("date") {
            Some(Value::String(date)) => Value::String(timestamp_text(rule, date)),
            _ => value.clone(),
        },
        (Convert::Amount, Value::Object(o)) => o.get("amount").cloned().unwrap_or(Value::Null),
        (Convert::Id, Value::Object(o)) => o.get("id").cloned().unwrap_or(Value::Null),
        (Convert::Ids, Value::Array(items)) => Value::Array(
            items
                .iter()
                .map(|item| convert(Convert::Id, item))
                .collect(),
        ),
        (Convert::Record(fields), Value::Object(o)) => {
            // Keys the rule does not name (a translation's languages) are converted by name.
            let mut out = convert_fields(fields, o);
            for (key, inner) in o {
                if !out.contains_key(key) && !fields.iter().any(|f| f.name == key) {
                    out.insert(key.clone(), inner.clone());
                }
            }
            Value::Object(out)
        }
        _ => value.clone(),
    }
}

/// `2025-01-31 14:00:00.000000` as the update takes it.
fn timestamp_text(rule: Convert, date: &str) -> String {
    let date = date.trim();
    match rule {
        Convert::Date => date.get(..10).unwrap_or(date).to_owned(),
        _ => date.split('.').next().unwrap_or(date).to_owned(),
    }
}

/// The body of `pairing`'s update from `record` (read), changed by `change`.
pub(crate) fn write_body<R, W, B>(
    pairing: &Pairing,
    record: &R,
    change: impl FnOnce(B) -> B,
) -> Result<W, Error>
where
    R: Serialize,
    W: DeserializeOwned,
    B: From<W> + TryInto<W>,
    <B as TryInto<W>>::Error: std::fmt::Display,
{
    let read = match serde_json::to_value(record) {
        Ok(Value::Object(read)) => read,
        _ => {
            return Err(Error::InvalidRequest(format!(
                "{}: the record read is not an object",
                pairing.get
            )));
        }
    };
    let body = pairing.body_from_record(&read);
    let missing = pairing.missing(&body);
    if !missing.is_empty() {
        return Err(Error::InvalidRequest(format!(
            "{}: the record read by {} has no {}, which the update requires; nothing was sent \
             (send the update with every required field)",
            pairing.update,
            pairing.get,
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let body: W = serde_path_to_error::deserialize(Value::Object(body)).map_err(|e| {
        Error::InvalidRequest(format!(
            "{}: the record read by {} does not make a valid body at `{}`: {}; nothing was sent",
            pairing.update,
            pairing.get,
            e.path(),
            e.inner()
        ))
    })?;
    change(B::from(body))
        .try_into()
        .map_err(|e| Error::InvalidRequest(format!("{}: {e}", pairing.update)))
}

/// Whether the required field `name` was read as `null` and its rule copies text.
fn read_is_null_text(pairing: &Pairing, name: &str, read: &Map<String, Value>) -> bool {
    pairing.fields.iter().any(|f| {
        f.name == name
            && f.convert == Convert::Copy
            && !f.from.is_empty()
            && lookup(read, f.from).is_some_and(Value::is_null)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TRANSLATION: &[Field] = &[Field {
        name: "name",
        from: &["name"],
        convert: Convert::Copy,
        required: true,
    }];
    const FIELDS: &[Field] = &[
        Field {
            name: "title",
            from: &["metadata", "title"],
            convert: Convert::Copy,
            required: true,
        },
        Field {
            name: "expire_date",
            from: &["expire_date"],
            convert: Convert::Date,
            required: true,
        },
        Field {
            name: "price",
            from: &["price"],
            convert: Convert::Amount,
            required: false,
        },
        Field {
            name: "tax",
            from: &["tax"],
            convert: Convert::Text,
            required: false,
        },
        Field {
            name: "products",
            from: &["products"],
            convert: Convert::Ids,
            required: false,
        },
        Field {
            name: "translations",
            from: &["translations"],
            convert: Convert::Record(TRANSLATION),
            required: false,
        },
    ];
    const PAIRING: Pairing = Pairing {
        update: "update_thing",
        get: "get_thing",
        path: "/things/{id}",
        with: &[],
        fields: FIELDS,
        read_only: &["id"],
    };

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(o) => o,
            _ => unreachable!(),
        }
    }

    #[test]
    fn each_rule_turns_the_read_shape_into_the_write_shape() {
        let read = object(json!({
            "id": 5,
            "metadata": {"title": "T"},
            "expire_date": {"date": "2030-01-31 14:00:00.000000", "timezone": "Asia/Riyadh"},
            "price": {"amount": "149.50", "currency": "SAR"},
            "tax": 15,
            "products": [{"id": 1, "name": "a"}, {"id": 2}],
            "translations": {"en": {"name": "E"}},
            "unknown": 1,
        }));
        let body = PAIRING.write_shape(&read);
        assert_eq!(
            Value::Object(body),
            json!({
                "title": "T",
                "expire_date": "2030-01-31",
                "price": "149.50",
                "tax": "15",
                "products": [1, 2],
                "translations": {"en": {"name": "E"}},
                "unknown": 1,
            })
        );
    }

    #[test]
    fn the_write_shape_is_kept_as_it_is() {
        let written = object(json!({
            "title": "T",
            "expire_date": "2030-01-31",
            "price": 10,
            "tax": "15",
            "products": [1, 2],
        }));
        assert_eq!(PAIRING.write_shape(&written), written);
    }

    #[test]
    fn missing_names_the_required_fields_absent_or_null() {
        let body = object(json!({"title": null}));
        assert_eq!(PAIRING.missing(&body), ["title", "expire_date"]);
    }
}
