//! A page's records read one by one, so that one record that does not decode costs that record
//! and not its page (nor the rest of the list).
//!
//! A page is read in one pass (`read_page`: its records pushed onto the page's list as they
//! decode), so a clean page costs one decode. When a record does not decode, the records before
//! it stay decoded, and only then is the page read again from that record on: its body as an
//! envelope whose records stay raw text (`&RawValue`: no `serde_json::Value` tree), each record
//! from the one that failed decoded on its own, through `serde_path_to_error` for where it fails
//! (a page with one bad record costs about what a clean page costs, not twice). A record that
//! does not decode is an [`UndecodableRecord`]: the operation, the page, its index in the page,
//! the JSON path and the record itself, shortened, with its secrets hidden and its control
//! characters escaped. What the list does with it is the caller's choice ([`Undecodable`]): fail
//! there, as a list always did (the default), or skip it into a [`Skipped`] the caller keeps and
//! read it afterwards. A page whose envelope itself does not decode (a broken `pagination`), or
//! whose records all decode one by one, fails as it did before: that is not a record's fault.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use store_admin_client::{lenient, types};

use crate::error::Error;
pub use crate::error::UndecodableRecord;

/// How much of a record an [`UndecodableRecord`] keeps, in characters (then `…`).
pub const RECORD_SNIPPET_LIMIT: usize = 200;

/// How many [`UndecodableRecord`]s a [`Skipped`] keeps in full; past that it counts them.
pub const SKIPPED_KEPT: usize = 1_000;

/// Property names whose values are secrets: a record's snippet shows `[redacted]` for them (the
/// command line's list, `store-admin-cli`'s `output::SECRET_KEYS`).
const SECRET_KEYS: &[&str] = &[
    "secret",
    "access_token",
    "refresh_token",
    "client_secret",
    "password",
];

/// What a list does with a record that does not decode ([`PageOptions::undecodable`]).
///
/// [`PageOptions::undecodable`]: crate::PageOptions::undecodable
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Undecodable {
    /// The list fails there with [`Error::Record`], naming it (the default).
    #[default]
    Fail,
    /// The record is left out, reported to this [`Skipped`], and the list goes on.
    Skip(Skipped),
}

/// The records a list skipped ([`PageOptions::skip_undecodable`]): keep a clone, pass it to the
/// options, and read it when the stream is done (or while it runs). Clones share one report.
///
/// [`PageOptions::skip_undecodable`]: crate::PageOptions::skip_undecodable
#[derive(Clone, Default)]
pub struct Skipped {
    inner: Arc<Mutex<SkippedInner>>,
}

#[derive(Default)]
struct SkippedInner {
    count: usize,
    kept: Vec<UndecodableRecord>,
}

impl Skipped {
    /// An empty report.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records were skipped (all of them, also past [`SKIPPED_KEPT`]).
    pub fn len(&self) -> usize {
        self.lock().count
    }

    /// Whether no record was skipped.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The skipped records, in the order they were met (the first [`SKIPPED_KEPT`]); pages
    /// fetched concurrently report in page order, as their items are yielded.
    pub fn records(&self) -> Vec<UndecodableRecord> {
        self.lock().kept.clone()
    }

    pub(crate) fn push(&self, record: UndecodableRecord) {
        let mut inner = self.lock();
        inner.count += 1;
        if inner.kept.len() < SKIPPED_KEPT {
            inner.kept.push(record);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SkippedInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skipped")
            .field("count", &self.len())
            .finish_non_exhaustive()
    }
}

/// A page read record by record: the records that decoded, the pagination object, and how many
/// records the page held (decoded or not).
pub(crate) struct RecordByRecord<T> {
    pub items: Vec<T>,
    pub pagination: Option<types::Pagination>,
    pub records: usize,
    /// The records skipped (under [`Undecodable::Skip`]), in order: the stream reports them to
    /// its [`Skipped`] as it yields the page, so that the report keeps the list's order.
    pub skipped: Vec<UndecodableRecord>,
}

/// The envelope of a list answer with its records kept as text.
#[derive(Deserialize)]
struct RawPage<'a> {
    #[serde(borrow)]
    data: Vec<&'a RawValue>,
    #[serde(
        default,
        deserialize_with = "lenient::As::<lenient::Opt<lenient::Obj>>::deserialize"
    )]
    pagination: Option<types::Pagination>,
}

/// One record, decoded as the generated list types decode theirs (`[]` as `{}`).
struct Record<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Record<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        lenient::As::<lenient::Obj>::deserialize(deserializer).map(Record)
    }
}

/// Why a page was not read: a record failed it (under [`Undecodable::Fail`]), or the page itself
/// does not decode (not a record's fault: the caller reports it as the page's error).
pub(crate) enum PageFailure {
    Record(Error),
    Page(serde_json::Error),
}

/// Reads page `page` of `operation` (`body`, a list answer): in one pass ([`read_page`]) when
/// every record decodes; else the records before the first that does not are kept, and the page
/// is read on from there record by record ([`record_by_record`]).
pub(crate) fn read_records<T: DeserializeOwned>(
    operation: &'static str,
    page: u64,
    body: &[u8],
    policy: &Undecodable,
) -> Result<RecordByRecord<T>, PageFailure> {
    let mut items = Vec::new();
    match read_page(body, &mut items) {
        Ok(pagination) => Ok(RecordByRecord {
            records: items.len(),
            items,
            pagination,
            skipped: Vec::new(),
        }),
        Err(error) => match record_by_record(operation, page, body, items, policy) {
            Some(Ok(page)) => Ok(page),
            Some(Err(record)) => Err(PageFailure::Record(record)),
            None => Err(PageFailure::Page(error)),
        },
    }
}

/// Reads `body`, a list answer, in one pass: its records pushed onto `items` as they decode
/// (through the same lenient reading as the generated list types' `data`: PHP's other forms of a
/// list included), and its pagination object answered. When a record does not decode, the error
/// is answered and the records before it stay in `items`, for [`record_by_record`] to go on from.
///
/// What a paged list is ([`PagedRequest`](store_admin_client::PagedRequest)) is an answer with
/// `data` and `pagination`; its other fields (`status`, `success`) are skipped unread, as the
/// stream never reads them: a page the stream can use is never refused for them.
pub(crate) fn read_page<T: DeserializeOwned>(
    body: &[u8],
    items: &mut Vec<T>,
) -> Result<Option<types::Pagination>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let pagination = Envelope { items }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(pagination)
}

/// A list answer's envelope, its records pushed onto `items`.
struct Envelope<'v, T> {
    items: &'v mut Vec<T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Envelope<'_, T> {
    type Value = Option<types::Pagination>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for Envelope<'_, T> {
    type Value = Option<types::Pagination>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list answer (an object with `data` and `pagination`)")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let (mut data, mut pagination) = (false, None);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Data if data => return Err(de::Error::duplicate_field("data")),
                Field::Data => {
                    data = true;
                    map.next_value_seed(Data {
                        items: &mut *self.items,
                    })?;
                }
                Field::Pagination => pagination = map.next_value_seed(PaginationField)?,
                Field::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        if !data {
            return Err(de::Error::missing_field("data"));
        }
        Ok(pagination)
    }
}

/// A field of a list answer's envelope.
enum Field {
    Data,
    Pagination,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Field, E> {
                Ok(match name {
                    "data" => Field::Data,
                    "pagination" => Field::Pagination,
                    _ => Field::Other,
                })
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// `data`: the records, pushed onto the page's list as they decode.
struct Data<'v, T> {
    items: &'v mut Vec<T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Data<'_, T> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        lenient::Seq::<lenient::Obj>::deserialize_into(deserializer, self.items)
    }
}

/// `pagination`, read as the generated list types read it (`null` or `[]` for none).
struct PaginationField;

impl<'de> DeserializeSeed<'de> for PaginationField {
    type Value = Option<types::Pagination>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        lenient::As::<lenient::Opt<lenient::Obj>>::deserialize(deserializer)
    }
}

/// Reads the body of page `page` of `operation`, whose record `decoded.len()` did not decode in
/// [`read_page`] (`decoded` holds the records before it), record by record from there.
///
/// `None` when a record is not to blame: the envelope does not decode with its records raw, or
/// every record from there decodes on its own (the caller then reports the page's own error).
/// Otherwise the records that decode, and: under [`Undecodable::Fail`], the first that does not
/// as [`Error::Record`]; under [`Undecodable::Skip`], every one that does not, for the stream to
/// report.
pub(crate) fn record_by_record<T: DeserializeOwned>(
    operation: &'static str,
    page: u64,
    body: &[u8],
    decoded: Vec<T>,
    policy: &Undecodable,
) -> Option<Result<RecordByRecord<T>, Error>> {
    let raw: RawPage<'_> = serde_json::from_slice(body).ok()?;
    let start = decoded.len();
    if start > raw.data.len() {
        return None;
    }
    let mut items = decoded;
    items.reserve(raw.data.len() - start);
    let mut skipped = Vec::new();
    for (index, record) in raw.data.iter().enumerate().skip(start) {
        match decode_record::<T>(record.get()) {
            Ok(item) => items.push(item),
            Err(error) => {
                let undecodable = describe(operation, page, index, record.get(), error);
                match policy {
                    Undecodable::Fail => return Some(Err(Error::Record(Box::new(undecodable)))),
                    Undecodable::Skip(_) => skipped.push(undecodable),
                }
            }
        }
    }
    if skipped.is_empty() {
        return None;
    }
    Some(Ok(RecordByRecord {
        items,
        pagination: raw.pagination,
        records: raw.data.len(),
        skipped,
    }))
}

/// One record of a page that did not decode whole: decoded as a clean record is, and only when
/// that fails decoded again with its path tracked (`serde_path_to_error` wraps every value it
/// reads, which made a page with one bad record cost about twice a clean page to read again).
fn decode_record<T: DeserializeOwned>(
    record: &str,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    if let Ok(Record(item)) = serde_json::from_str::<Record<T>>(record) {
        return Ok(item);
    }
    let de = &mut serde_json::Deserializer::from_str(record);
    serde_path_to_error::deserialize::<_, Record<T>>(de).map(|Record(item)| item)
}

fn describe(
    operation: &'static str,
    page: u64,
    index: usize,
    record: &str,
    error: serde_path_to_error::Error<serde_json::Error>,
) -> UndecodableRecord {
    let inner = error.path().to_string();
    let secret = error.path().iter().any(|segment| match segment {
        serde_path_to_error::Segment::Map { key } => is_secret(key) || key == "headers",
        _ => false,
    });
    let path = match inner.as_str() {
        "." => format!("data[{index}]"),
        inner if inner.starts_with('[') => format!("data[{index}]{inner}"),
        inner => format!("data[{index}].{inner}"),
    };
    // serde's message may quote the value that failed: not when it is a secret.
    let message = if secret {
        "the value of a secret property does not match the document".to_owned()
    } else {
        visible(&error.into_inner().to_string())
    };
    UndecodableRecord {
        operation,
        page,
        index,
        path: visible(&path),
        message,
        record: snippet(record),
    }
}

fn is_secret(key: &str) -> bool {
    SECRET_KEYS.contains(&key)
}

/// The record as compact JSON, secrets redacted, escaped, shortened.
fn snippet(record: &str) -> String {
    let text = match serde_json::from_str::<serde_json::Value>(record) {
        Ok(mut value) => {
            redact(&mut value);
            value.to_string()
        }
        Err(_) => record.to_owned(),
    };
    shorten(&visible(&text), RECORD_SNIPPET_LIMIT)
}

fn redact(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if inner.is_null() {
                    continue;
                }
                if is_secret(key) {
                    *inner = Value::String("[redacted]".into());
                } else if key == "headers" {
                    redact_all_values(inner);
                } else {
                    redact(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

/// Custom headers carry credentials as often as not: every value in them is hidden.
fn redact_all_values(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => map.values_mut().for_each(redact_all_values),
        Value::Array(items) => items.iter_mut().for_each(redact_all_values),
        Value::Null => {}
        other => *other = Value::String("[redacted]".into()),
    }
}

/// Every control character (C0, DEL, C1, newlines too) and bidirectional override written as a
/// visible escape, so that a record printed on a terminal cannot drive it.
fn visible(text: &str) -> String {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hidden) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Item {
        #[serde(deserialize_with = "lenient::As::<lenient::Num>::deserialize")]
        id: i64,
        #[serde(default)]
        name: String,
    }

    const PAGE: &str = r#"{"data": [
        {"id": 1, "name": "one"},
        {"id": {"corrupt": true}, "name": "two"},
        [],
        {"id": "4", "name": "four"},
        "five"
    ], "pagination": {"count": 5, "currentPage": "2", "perPage": 5, "total": 20, "totalPages": 4, "links": []}}"#;

    /// Page 2 of `list_things` read as the stream reads it ([`read_records`]): `None` when the
    /// page is left to its own error.
    fn read(body: &str, policy: &Undecodable) -> Option<Result<RecordByRecord<Item>, Error>> {
        match read_records::<Item>("list_things", 2, body.as_bytes(), policy) {
            Ok(page) => Some(Ok(page)),
            Err(PageFailure::Record(error)) => Some(Err(error)),
            Err(PageFailure::Page(_)) => None,
        }
    }

    #[test]
    fn skipping_keeps_every_good_record_in_order_and_reports_each_bad_one() {
        let page = read(PAGE, &Undecodable::Skip(Skipped::new()))
            .expect("records are to blame")
            .expect("skipped");
        assert_eq!(
            page.items.iter().map(|i| i.id).collect::<Vec<_>>(),
            [1, 4],
            "the good records, in order"
        );
        assert_eq!(page.records, 5);
        assert_eq!(page.pagination.expect("pagination").total_pages, 4);
        let reported = page.skipped;
        let where_: Vec<_> = reported
            .iter()
            .map(|r| (r.operation, r.page, r.index, r.path.as_str()))
            .collect();
        assert_eq!(
            where_,
            [
                ("list_things", 2, 1, "data[1].id"),
                // `[]` reads as `{}`: its missing `id` is the record's fault as a whole.
                ("list_things", 2, 2, "data[2]"),
                ("list_things", 2, 4, "data[4]"),
            ]
        );
        assert_eq!(
            reported[0].record,
            r#"{"id":{"corrupt":true},"name":"two"}"#
        );
        assert_eq!(reported[2].record, r#""five""#);
    }

    #[test]
    fn failing_names_the_operation_page_index_and_path_of_the_first_bad_record() {
        let error = read(PAGE, &Undecodable::Fail)
            .expect("records are to blame")
            .err()
            .expect("fails");
        let Error::Record(record) = &error else {
            panic!("not a record error: {error:?}");
        };
        assert_eq!(
            (
                record.operation,
                record.page,
                record.index,
                record.path.as_str()
            ),
            ("list_things", 2, 1, "data[1].id")
        );
        let text = error.to_string();
        assert!(
            text.starts_with(
                "list_things: record 1 of page 2 does not match the API document at `data[1].id`: "
            ),
            "{text}"
        );
        assert_eq!(error.operation(), Some("list_things"));
    }

    #[test]
    fn a_page_whose_records_are_not_to_blame_is_left_to_its_own_error() {
        // The pagination object is broken: not a record's fault.
        let broken = r#"{"data": [{"id": 1}], "pagination": {"currentPage": {}}}"#;
        assert!(read(broken, &Undecodable::Fail).is_none());
        // Not JSON, or no list.
        assert!(read("<html>", &Undecodable::Fail).is_none());
        assert!(read(r#"{"data": 5}"#, &Undecodable::Fail).is_none());
        assert!(read(r#"{"pagination": null}"#, &Undecodable::Fail).is_none());
        // Every record decodes on its own: the bytes after the answer are to blame.
        assert!(read(r#"{"data": [{"id": 1}]} x"#, &Undecodable::Fail).is_none());
    }

    #[test]
    fn a_page_is_read_in_one_pass_keeping_the_records_before_a_bad_one() {
        let mut items = Vec::<Item>::new();
        let error = read_page(
            br#"{"data": [{"id": 1}, {"id": "2"}, {"id": {}}, {"id": 4}], "pagination": null}"#,
            &mut items,
        )
        .expect_err("the third record does not decode");
        assert!(error.to_string().contains("line 1"), "{error}");
        assert_eq!(items.iter().map(|i| i.id).collect::<Vec<_>>(), [1, 2]);
        // Read on from the bad record, the kept ones are not read again.
        let page = record_by_record::<Item>(
            "list_things",
            2,
            br#"{"data": [{"id": 1}, {"id": "2"}, {"id": {}}, {"id": 4}]}"#,
            items,
            &Undecodable::Skip(Skipped::new()),
        )
        .expect("a record is to blame")
        .expect("skipped");
        assert_eq!(
            page.items.iter().map(|i| i.id).collect::<Vec<_>>(),
            [1, 2, 4]
        );
        assert_eq!((page.records, page.skipped[0].index), (4, 2));
    }

    #[test]
    fn a_page_reads_phps_forms_of_a_list_and_skips_the_fields_the_stream_does_not_read() {
        let ids = |body: &str| {
            let mut items = Vec::<Item>::new();
            let pagination = read_page(body.as_bytes(), &mut items).expect("reads");
            (
                items.iter().map(|i| i.id).collect::<Vec<_>>(),
                pagination.map(|p| p.total_pages),
            )
        };
        assert_eq!(
            ids(
                r#"{"status": "200", "success": 1, "data": {"0": {"id": 1}, "1": {"id": 2}}, "pagination": []}"#
            ),
            (vec![1, 2], None)
        );
        assert_eq!(ids(r#"{"data": {}}"#), (vec![], None));
        assert_eq!(ids(r#"{"data": null, "status": "x"}"#), (vec![], None));
        assert_eq!(
            ids(
                r#"{"pagination": {"count": 1, "currentPage": 1, "perPage": 60, "total": 1, "totalPages": "1", "links": []}, "data": [{"id": 7}]}"#
            ),
            (vec![7], Some(1))
        );
        let mut items = Vec::<Item>::new();
        for refused in [
            r#"{"pagination": null}"#,
            r#"[{"id": 1}]"#,
            r#"{"data": [], "data": []}"#,
        ] {
            assert!(
                read_page(refused.as_bytes(), &mut items).is_err(),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_reported_record_is_short_escaped_and_keeps_no_secret() {
        let long = "x".repeat(500);
        let body = format!(
            r#"{{"data": [{{"id": "\u001b]0;owned\u0007 \u009b31m \u202e", "password": "hunter2",
                 "headers": [{{"key": "Authorization", "value": "Bearer abc"}}], "note": "{long}"}},
                {{"id": 2, "secret": 12345, "name": {{"secret": "s3cr3t"}}}}]}}"#
        );
        let skipped = read(&body, &Undecodable::Skip(Skipped::new()))
            .expect("records are to blame")
            .expect("skipped")
            .skipped;
        for record in &skipped {
            let text = record.to_string();
            assert!(
                !text.chars().any(|c| c.is_control() || c == '\u{202e}'),
                "{text:?}"
            );
            for secret in ["hunter2", "Bearer abc", "s3cr3t", "12345"] {
                assert!(!text.contains(secret), "{secret} in {text}");
            }
            assert!(record.record.chars().count() <= RECORD_SNIPPET_LIMIT + 1);
        }
        let first = &skipped[0];
        assert!(first.record.ends_with('…'), "{}", first.record);
        assert!(first.message.contains("\\u{1b}"), "{}", first.message);
    }

    #[test]
    fn a_report_counts_past_what_it_keeps() {
        let skipped = Skipped::new();
        let all_bad = format!(
            r#"{{"data": [{}]}}"#,
            vec![r#""bad""#; SKIPPED_KEPT + 5].join(",")
        );
        let page = read(&all_bad, &Undecodable::Skip(skipped.clone()))
            .expect("records are to blame")
            .expect("skipped");
        page.skipped
            .into_iter()
            .for_each(|record| skipped.push(record));
        assert_eq!(skipped.len(), SKIPPED_KEPT + 5);
        assert_eq!(skipped.records().len(), SKIPPED_KEPT);
        assert_eq!(
            format!("{skipped:?}"),
            format!("Skipped {{ count: {}, .. }}", SKIPPED_KEPT + 5)
        );
    }
}
