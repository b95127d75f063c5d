//! Every response is shaped by its schema: a stored record is projected onto the schema of the
//! operation that returns it. Declared properties are kept (each shaped by its own schema),
//! undeclared ones dropped (and the store's own `__` keys always), missing required ones generated,
//! and a value of the wrong type replaced: a number where a string is declared becomes its text, a
//! string of digits where an integer is declared becomes the integer, an object where a scalar is
//! declared gives its `type`, `slug`, `name` or `id`, and anything else is generated from the
//! schema. So one record serves a list's summary and a details answer of another shape, and an
//! answer is valid against the document by construction.
//!
//! An answer is written out as it is shaped ([`render`]), straight from the records, which are
//! neither copied nor rebuilt as values on the way: that was most of the cost of a list's page.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::document::{Document, View};
use crate::fake::Generator;

/// The type a schema declares (or implies), as shaping tells them apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    /// No type, or another one (`null`, `file`): `anyOf` branches or the value as it is.
    Other,
}

impl Kind {
    fn of(view: &View<'_>) -> Self {
        match view.kind() {
            Some("object") => Kind::Object,
            Some("array") => Kind::Array,
            Some("string") => Kind::String,
            Some("integer") => Kind::Integer,
            Some("number") => Kind::Number,
            Some("boolean") => Kind::Boolean,
            _ => Kind::Other,
        }
    }
}

/// A schema's view, with what shaping asks of it for every value worked out once (a page of 60
/// records asks the same of a few dozen schemas thousands of times).
struct Seen<'a> {
    schema: &'a Value,
    view: View<'a>,
    kind: Kind,
    /// `minItems`, and `maxItems` (unbounded without it).
    min_items: usize,
    max_items: usize,
    /// Whether the declared properties are in the order an answer writes its keys (byte order):
    /// then an object is written property by property as it is shaped, and the generator is
    /// called in the same order as when the object is built first (see [`Shaped`]).
    sorted: bool,
    /// Whether a scalar must be checked against value rules (see [`scalar_fits`]).
    checks: bool,
    /// The views of the declared properties, in the view's order, and of the items: looked up
    /// once (by [`Views::properties`] and [`Views::items`]), not for every value.
    properties: OnceCell<Vec<Rc<Seen<'a>>>>,
    items: OnceCell<Rc<Seen<'a>>>,
}

/// The views of the schemas one answer is shaped by, each seen once: a page of 60 records asks
/// for the same few dozen schemas thousands of times. Keyed by the schema's address, so every
/// schema given here must live in the document (or be a `static`) for the whole answer. (An
/// address needs no keyed hash: the fast one of `rustc-hash` halves the cost of a look-up.)
struct Views<'a> {
    doc: &'a Document,
    memo: RefCell<FxHashMap<usize, Rc<Seen<'a>>>>,
}

impl<'a> Views<'a> {
    fn new(doc: &'a Document) -> Self {
        Self {
            doc,
            memo: RefCell::new(FxHashMap::default()),
        }
    }

    fn get(&self, schema: &'a Value) -> Rc<Seen<'a>> {
        let key = std::ptr::from_ref(schema) as usize;
        if let Some(seen) = self.memo.borrow().get(&key) {
            return seen.clone();
        }
        let view = self.doc.view(schema);
        let count = |keyword: &str| {
            view.keyword(keyword)
                .and_then(Value::as_u64)
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        let seen = Rc::new(Seen {
            schema,
            kind: Kind::of(&view),
            min_items: count("minItems").unwrap_or(0),
            max_items: count("maxItems").unwrap_or(usize::MAX),
            sorted: view.properties.windows(2).all(|pair| pair[0].0 < pair[1].0),
            checks: SCALAR_RULES.iter().any(|rule| view.keyword(rule).is_some()),
            properties: OnceCell::new(),
            items: OnceCell::new(),
            view,
        });
        self.memo.borrow_mut().insert(key, seen.clone());
        seen
    }

    /// The views of `seen`'s declared properties, in its view's order.
    fn properties<'s>(&self, seen: &'s Seen<'a>) -> &'s [Rc<Seen<'a>>] {
        seen.properties.get_or_init(|| {
            seen.view
                .properties
                .iter()
                .map(|(_, schema)| self.get(schema))
                .collect()
        })
    }

    /// The view of `seen`'s items (any value without `items`).
    fn items(&self, seen: &Seen<'a>) -> Rc<Seen<'a>> {
        seen.items
            .get_or_init(|| self.get(seen.view.items.unwrap_or(&ANY)))
            .clone()
    }
}

/// The schema of an array without `items`.
static ANY: Value = Value::Null;

/// Keys of a stored record that never leave the mock (the store's own bookkeeping).
pub(crate) fn is_hidden(key: &str) -> bool {
    key.starts_with("__")
}

thread_local! {
    static PATTERNS: RefCell<HashMap<String, Option<regex::Regex>>> = RefCell::new(HashMap::new());
}

/// Whether `text` matches the document's `pattern` (a pattern that does not compile matches).
pub(crate) fn pattern_matches(pattern: &str, text: &str) -> bool {
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(compiled) = cache.get(pattern) {
            return compiled.as_ref().is_none_or(|re| re.is_match(text));
        }
        if cache.len() > 512 {
            cache.clear();
        }
        cache
            .entry(pattern.to_owned())
            .or_insert_with(|| regex::Regex::new(pattern).ok())
            .as_ref()
            .is_none_or(|re| re.is_match(text))
    })
}

/// What an answer is shaped from: a value, or a list's page of stored records, which are
/// borrowed from the store rather than copied into the answer.
#[derive(Clone, Copy)]
pub(crate) enum Input<'v> {
    Value(&'v Value),
    /// The records of a page: an array of them.
    Page(&'v [&'v Value]),
    /// The success envelope of a page: the object, with the page as its `data`.
    Enveloped(&'v Map<String, Value>, &'v [&'v Value]),
}

impl<'v> Input<'v> {
    /// The input as one value (a page is copied: for the rare schema that is not shaped in place).
    fn to_value(self) -> Cow<'v, Value> {
        let page = |page: &[&Value]| Value::Array(page.iter().map(|r| (*r).clone()).collect());
        match self {
            Input::Value(value) => Cow::Borrowed(value),
            Input::Page(records) => Cow::Owned(page(records)),
            Input::Enveloped(object, records) => {
                let mut object = object.clone();
                object.insert("data".to_owned(), page(records));
                Cow::Owned(Value::Object(object))
            }
        }
    }
}

/// An object being shaped: a value's, or an envelope whose `data` is a page.
#[derive(Clone, Copy)]
enum Object<'v> {
    Map(&'v Map<String, Value>),
    Enveloped(&'v Map<String, Value>, &'v [&'v Value]),
}

impl<'v> Object<'v> {
    fn get(self, name: &str) -> Option<Input<'v>> {
        match self {
            Object::Enveloped(_, page) if name == "data" => Some(Input::Page(page)),
            Object::Map(map) | Object::Enveloped(map, _) => map.get(name).map(Input::Value),
        }
    }
}

/// The items of an array being shaped: a value's, or a page's records.
#[derive(Clone, Copy)]
enum Items<'v> {
    Values(&'v [Value]),
    Page(&'v [&'v Value]),
}

impl<'v> Items<'v> {
    fn len(self) -> usize {
        match self {
            Items::Values(items) => items.len(),
            Items::Page(items) => items.len(),
        }
    }

    fn first(self, count: usize) -> Self {
        match self {
            Items::Values(items) => Items::Values(&items[..count.min(items.len())]),
            Items::Page(items) => Items::Page(&items[..count.min(items.len())]),
        }
    }

    /// The items one by one (one iterator type for both kinds: one of the two slices is empty).
    fn iter(self) -> impl Iterator<Item = Input<'v>> {
        let (values, page) = match self {
            Items::Values(items) => (items, &[][..]),
            Items::Page(items) => (&[][..], items),
        };
        values
            .iter()
            .map(Input::Value)
            .chain(page.iter().map(|r| Input::Value(r)))
    }
}

/// How a value is shaped by a schema (see the module documentation): decided once, then either
/// built into a [`Value`] ([`shape_at`]) or written out ([`Shaped`]).
enum Step<'v, 'a> {
    /// Too deep to follow: the value as it is.
    AsIs,
    Null,
    /// A value generated from the schema.
    Generate,
    EmptyObject,
    /// The value without the store's keys (an untyped schema).
    Visible,
    /// A page in a place that does not take an array of records: shaped as a copied value.
    Copy,
    /// The declared properties of an object.
    Properties(Object<'v>),
    /// Every entry of an object without declared properties, shaped by `additionalProperties`
    /// when it is a schema.
    Entries(&'v Map<String, Value>, Option<&'a Value>),
    /// The items of an array (as many as `maxItems` allows), each shaped by the item schema.
    Items(Items<'v>),
    /// A scalar, converted to the declared type.
    Scalar(Cow<'v, Value>),
    /// The `anyOf`/`oneOf` branch the value fits as it is.
    Branch(&'a Value),
    /// No branch fits the value as it is: each is tried in turn.
    Convert,
    /// A scalar where an object is declared: the object holding it in its property of that name
    /// (an amount `10` where `Money` is declared is `{"amount": 10, ...}`, a date where a
    /// timestamp object is declared its `date`), the object's other required properties
    /// generated.
    Wrap(&'a str),
}

/// The properties that hold a scalar given where an object is declared, in order of preference.
const HOLDERS: [&str; 6] = ["amount", "value", "date", "name", "code", "id"];
/// The same for an integer that is not an amount: a reference's `id` (a product's category `12`
/// is `{"id": 12, ...}`, not a category named "12").
const INTEGER_HOLDERS: [&str; 6] = ["amount", "value", "date", "id", "code", "name"];

/// A declared property of an object being shaped, with the view of its schema.
enum Field<'v> {
    /// The record has it: shaped by the property's schema.
    Shape(Input<'v>),
    /// A required property the record lacks: generated.
    Generate,
}

/// The declared properties of `object` an answer holds, in the view's order.
fn fields<'s, 'v: 's, 'a: 's>(
    views: &Views<'a>,
    seen: &'s Seen<'a>,
    object: Object<'v>,
) -> impl Iterator<Item = (&'a str, &'s Rc<Seen<'a>>, Field<'v>)> + 's {
    // With the properties in byte order, the record's entries (a map, in the same order) are
    // walked alongside them instead of being searched for each property.
    let mut entries = match object {
        Object::Map(map) if seen.sorted => Some(map.iter().peekable()),
        _ => None,
    };
    let view = &seen.view;
    let properties = views.properties(seen);
    view.properties
        .iter()
        .zip(properties)
        .filter_map(move |(&(name, _), property)| {
            let item = match entries.as_mut() {
                Some(entries) => {
                    while entries.next_if(|(key, _)| key.as_str() < name).is_some() {}
                    entries
                        .next_if(|(key, _)| key.as_str() == name)
                        .map(|(_, item)| Input::Value(item))
                }
                None => object.get(name),
            };
            match item {
                // A `null` sent for an optional property that is not nullable: absent.
                Some(Input::Value(Value::Null))
                    if !property.view.nullable && !view.required.contains(&name) =>
                {
                    None
                }
                Some(item) => Some((name, property, Field::Shape(item))),
                None if view.required.contains(&name) => Some((name, property, Field::Generate)),
                None => None,
            }
        })
}

fn step<'v, 'a>(
    views: &Views<'a>,
    seen: &Seen<'a>,
    input: Input<'v>,
    depth: usize,
) -> Step<'v, 'a> {
    if depth > 24 {
        return Step::AsIs;
    }
    let view = &seen.view;
    let value = match input {
        Input::Value(value) => value,
        Input::Page(page) if seen.kind == Kind::Array => return items(seen, Items::Page(page)),
        Input::Enveloped(map, page) if seen.kind == Kind::Object && !view.properties.is_empty() => {
            return Step::Properties(Object::Enveloped(map, page));
        }
        Input::Page(_) | Input::Enveloped(..) => return Step::Copy,
    };
    if value.is_null() && view.nullable {
        return Step::Null;
    }
    match seen.kind {
        Kind::Object => {
            let Value::Object(map) = value else {
                if let Value::Array(items) = value
                    && items.is_empty()
                    && view.required.is_empty()
                {
                    return Step::EmptyObject;
                }
                if matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
                    && let Some(holder) = holder(views, seen, value)
                {
                    return Step::Wrap(holder);
                }
                return Step::Generate;
            };
            if !view.properties.is_empty() {
                return Step::Properties(Object::Map(map));
            }
            match view.additional {
                Some(Value::Bool(false)) => Step::EmptyObject,
                Some(additional) if additional.is_object() => Step::Entries(map, Some(additional)),
                _ => Step::Entries(map, None),
            }
        }
        Kind::Array => match value {
            Value::Array(values) => items(seen, Items::Values(values)),
            // One value where a list is declared is a list of one (Laravel's `array` cast: a
            // rule's `value: "3"` reads back as `["3"]`).
            Value::Null => Step::Generate,
            single => items(seen, Items::Values(std::slice::from_ref(single))),
        },
        kind @ (Kind::String | Kind::Integer | Kind::Number | Kind::Boolean) => {
            match convert(kind, value) {
                Some(converted) if !seen.checks || scalar_fits(view, &converted) => {
                    Step::Scalar(converted)
                }
                _ => Step::Generate,
            }
        }
        Kind::Other if view.any_of.is_empty() => Step::Visible,
        Kind::Other => match view.any_of.iter().find(|b| fits_kind(views, value, b)) {
            Some(branch) => Step::Branch(branch),
            None => Step::Convert,
        },
    }
}

/// The property of an object schema that holds `scalar` (see [`Step::Wrap`]).
fn holder<'a>(views: &Views<'a>, seen: &Seen<'a>, scalar: &Value) -> Option<&'a str> {
    let holders = if scalar.is_i64() || scalar.is_u64() {
        &INTEGER_HOLDERS
    } else {
        &HOLDERS
    };
    holders.iter().find_map(|name| {
        let (declared, schema) = seen.view.properties.iter().find(|(n, _)| n == name)?;
        let property = views.get(schema);
        let takes = match property.kind {
            // A `Money` inside the object holds it in turn (a tax's `amount`).
            Kind::Object => holder(views, &property, scalar).is_some(),
            Kind::Array => false,
            Kind::Other => {
                property.view.any_of.is_empty()
                    || fits_kind(views, scalar, schema)
                    || property.view.any_of.iter().any(|b| {
                        let kind = views.get(b).kind;
                        matches!(
                            kind,
                            Kind::String | Kind::Integer | Kind::Number | Kind::Boolean
                        ) && convert(kind, scalar).is_some()
                    })
            }
            kind => convert(kind, scalar).is_some_and(|converted| {
                !property.checks || scalar_fits(&property.view, &converted)
            }),
        };
        takes.then_some(*declared)
    })
}

/// The step of an array: its items within `maxItems`, or a generated array when fewer than
/// `minItems` are left.
fn items<'v, 'a>(seen: &Seen<'a>, items: Items<'v>) -> Step<'v, 'a> {
    let kept = items.first(seen.max_items);
    if kept.len() < seen.min_items {
        return Step::Generate;
    }
    Step::Items(kept)
}

/// The fields an object is shown by where a scalar is declared, in order of preference.
pub(crate) const SHOWN_BY: [&str; 8] = [
    "type", "slug", "name", "value", "amount", "date", "id", "code",
];

/// `value` as a scalar of type `kind`, if it can be read as one (an object gives its `type`,
/// `slug`, `name`, `value`, `id` or `code`).
fn convert(kind: Kind, value: &Value) -> Option<Cow<'_, Value>> {
    let scalar = match value {
        Value::Object(map) => SHOWN_BY
            .iter()
            .find_map(|key| map.get(*key).filter(|v| !v.is_object() && !v.is_null()))?,
        other => other,
    };
    match (kind, scalar) {
        (Kind::String, Value::String(_))
        | (Kind::Number, Value::Number(_))
        | (Kind::Boolean, Value::Bool(_)) => Some(Cow::Borrowed(scalar)),
        (Kind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            Some(Cow::Borrowed(scalar))
        }
        (Kind::String, Value::Number(n)) => Some(Cow::Owned(Value::from(n.to_string()))),
        (Kind::String, Value::Bool(b)) => Some(Cow::Owned(Value::from(b.to_string()))),
        // A boolean sent where the answer declares a number is the `1`/`0` the service's
        // database keeps for it (a tinyint column), not a made-up number.
        (Kind::Integer | Kind::Number, Value::Bool(b)) => {
            Some(Cow::Owned(Value::from(i64::from(*b))))
        }
        (Kind::Integer, Value::Number(n)) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
            .map(|f| Cow::Owned(Value::from(f as i64))),
        (Kind::Integer, Value::String(s)) => {
            s.trim().parse::<i64>().ok().map(|n| Cow::Owned(n.into()))
        }
        (Kind::Number, Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map(|n| Cow::Owned(Value::Number(n))),
        (Kind::Boolean, Value::Number(_) | Value::String(_)) => {
            crate::laravel::laravel_bool(scalar).map(|b| Cow::Owned(Value::Bool(b)))
        }
        _ => None,
    }
}

/// Shapes `value` by `schema` into a new value (see the module documentation); `field` names
/// the value for realistic generated parts. An answer is written by [`render`] instead; a record
/// is completed by it when it is stored ([`crate::engine::complete`]).
pub(crate) fn shape<'a>(
    doc: &'a Document,
    value: &Value,
    schema: &'a Value,
    generator: &mut Generator<'_>,
    field: &str,
) -> Value {
    let views = Views::new(doc);
    let seen = views.get(schema);
    shape_at(&views, Input::Value(value), &seen, generator, field, 0)
}

/// The JSON text of `input` shaped by `schema`, written as it is shaped: no part of the answer
/// is built as a [`Value`] first (but for generated parts and the rare schema [`Shaped`] leaves
/// to [`shape_at`]), which is most of the cost of a page of records.
pub(crate) fn render<'a>(
    doc: &'a Document,
    input: Input<'_>,
    schema: &'a Value,
    generator: Generator<'_>,
    field: &str,
) -> Vec<u8> {
    let answer = Answer {
        views: Views::new(doc),
        generator: RefCell::new(generator),
    };
    let shaped = Shaped {
        answer: &answer,
        input,
        seen: answer.views.get(schema),
        field,
        depth: 0,
    };
    // Written into a buffer the size of the last answer of this schema on this thread: growing
    // it from nothing (reallocating and copying a page of 60 records a dozen times, the fresh
    // memory zeroed by the kernel) cost a tenth of an uncached list's answer.
    let key = std::ptr::from_ref(schema) as usize;
    let hint = ANSWER_SIZES.with(|sizes| sizes.borrow().get(&key).copied().unwrap_or(0));
    let mut out = Vec::with_capacity(hint);
    if serde_json::to_writer(&mut out, &shaped).is_err() {
        return Vec::new();
    }
    ANSWER_SIZES.with(|sizes| {
        let mut sizes = sizes.borrow_mut();
        if sizes.len() >= 1024 {
            sizes.clear();
        }
        // A little more than this answer: the next page of the same list is rarely smaller.
        sizes.insert(key, (out.len() + out.len() / 8).min(MAX_SIZE_HINT));
    });
    out
}

/// The most a buffer is sized for in advance (a larger answer grows its buffer as it goes).
const MAX_SIZE_HINT: usize = 4 << 20;

thread_local! {
    /// The size of the last answer of each schema (by its address in the document) on this
    /// thread, to size the next one's buffer.
    static ANSWER_SIZES: RefCell<FxHashMap<usize, usize>> = RefCell::new(FxHashMap::default());
}

/// What every part of one answer shares: the views, and the generator (one sequence for the
/// whole answer, as when it is built as a value).
struct Answer<'a, 'g> {
    views: Views<'a>,
    generator: RefCell<Generator<'g>>,
}

/// A part of an answer, shaped as it is serialized. Keys are written in byte order, as a
/// [`Map`] writes them; so an object whose declared properties are in another order (an `allOf`
/// of several), and a value no `anyOf` branch takes as it is, are built by [`shape_at`] and then
/// written, which calls the generator in the same order as building the whole answer would.
struct Shaped<'x, 'a, 'g> {
    answer: &'x Answer<'a, 'g>,
    input: Input<'x>,
    seen: Rc<Seen<'a>>,
    field: &'x str,
    depth: usize,
}

impl<'x, 'a, 'g> Shaped<'x, 'a, 'g> {
    fn inner(&self, input: Input<'x>, seen: Rc<Seen<'a>>, field: &'x str) -> Self {
        Shaped {
            answer: self.answer,
            input,
            seen,
            field,
            depth: self.depth + 1,
        }
    }
}

impl Serialize for Shaped<'_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let views = &self.answer.views;
        let generator = &self.answer.generator;
        let seen = &self.seen;
        match step(views, seen, self.input, self.depth) {
            Step::AsIs => self.input.to_value().serialize(serializer),
            Step::Null => serializer.serialize_unit(),
            Step::Generate => {
                let generated = generator.borrow_mut().value(seen.schema, self.field);
                generated.serialize(serializer)
            }
            Step::EmptyObject => serializer.serialize_map(Some(0))?.end(),
            Step::Visible => Visible(&self.input.to_value()).serialize(serializer),
            Step::Properties(object) if seen.sorted => {
                let mut out = serializer.serialize_map(None)?;
                for (name, property, field) in fields(views, seen, object) {
                    match field {
                        Field::Shape(item) => {
                            out.serialize_entry(name, &self.inner(item, property.clone(), name))?;
                        }
                        Field::Generate => {
                            let generated = generator.borrow_mut().property(
                                name,
                                property.schema,
                                self.depth + 1,
                            );
                            out.serialize_entry(name, &generated)?;
                        }
                    }
                }
                out.end()
            }
            Step::Entries(map, schema) => {
                let mut out = serializer.serialize_map(None)?;
                let seen = schema.map(|schema| views.get(schema));
                for (key, item) in map.iter().filter(|(k, _)| !is_hidden(k)) {
                    match &seen {
                        Some(seen) => out.serialize_entry(
                            key,
                            &self.inner(Input::Value(item), seen.clone(), key),
                        )?,
                        None => out.serialize_entry(key, &Visible(item))?,
                    }
                }
                out.end()
            }
            Step::Items(items) => {
                let item_seen = views.items(seen);
                serializer.collect_seq(
                    items
                        .iter()
                        .map(|item| self.inner(item, item_seen.clone(), self.field)),
                )
            }
            Step::Scalar(value) => value.serialize(serializer),
            Step::Branch(branch) => self
                .inner(self.input, views.get(branch), self.field)
                .serialize(serializer),
            Step::Properties(_) | Step::Copy | Step::Convert | Step::Wrap(_) => shape_at(
                views,
                self.input,
                seen,
                &mut generator.borrow_mut(),
                self.field,
                self.depth,
            )
            .serialize(serializer),
        }
    }
}

/// A value written without the store's `__` keys, at any depth.
struct Visible<'v>(&'v Value);

impl Serialize for Visible<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => serializer.collect_map(
                map.iter()
                    .filter(|(k, _)| !is_hidden(k))
                    .map(|(k, v)| (k, Visible(v))),
            ),
            Value::Array(items) => serializer.collect_seq(items.iter().map(Visible)),
            other => other.serialize(serializer),
        }
    }
}

/// `value` without the store's `__` keys, at any depth.
pub(crate) fn strip_hidden(value: &Value) -> Value {
    serde_json::to_value(Visible(value)).unwrap_or(Value::Null)
}

fn fits_kind<'a>(views: &Views<'a>, value: &Value, schema: &'a Value) -> bool {
    let seen = views.get(schema);
    let view = &seen.view;
    match (seen.kind, value) {
        (_, Value::Null) => view.nullable,
        (Kind::Object, Value::Object(_))
        | (Kind::Array, Value::Array(_))
        | (Kind::String, Value::String(_))
        | (Kind::Number, Value::Number(_))
        | (Kind::Boolean, Value::Bool(_)) => true,
        (Kind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
        // Untyped: any value, or one of the branches.
        (Kind::Other, value) if view.kind().is_none() => {
            view.any_of.is_empty() || view.any_of.iter().any(|b| fits_kind(views, value, b))
        }
        _ => false,
    }
}

/// Shapes `input` by `seen`'s schema into a new value.
fn shape_at<'a>(
    views: &Views<'a>,
    input: Input<'_>,
    seen: &Seen<'a>,
    generator: &mut Generator<'_>,
    field: &str,
    depth: usize,
) -> Value {
    match step(views, seen, input, depth) {
        Step::AsIs => input.to_value().into_owned(),
        Step::Null => Value::Null,
        Step::Generate => generator.value(seen.schema, field),
        Step::EmptyObject => Value::Object(Map::new()),
        Step::Visible => strip_hidden(&input.to_value()),
        Step::Copy => {
            let copy = input.to_value();
            shape_at(views, Input::Value(&copy), seen, generator, field, depth)
        }
        Step::Properties(object) => Value::Object(
            fields(views, seen, object)
                .map(|(name, property, field)| {
                    let shaped = match field {
                        Field::Shape(item) => {
                            shape_at(views, item, property, generator, name, depth + 1)
                        }
                        Field::Generate => generator.property(name, property.schema, depth + 1),
                    };
                    (name.to_owned(), shaped)
                })
                .collect(),
        ),
        Step::Entries(map, schema) => {
            let seen = schema.map(|schema| views.get(schema));
            Value::Object(
                map.iter()
                    .filter(|(k, _)| !is_hidden(k))
                    .map(|(key, item)| {
                        let shaped = match &seen {
                            Some(seen) => {
                                shape_at(views, Input::Value(item), seen, generator, key, depth + 1)
                            }
                            None => strip_hidden(item),
                        };
                        (key.clone(), shaped)
                    })
                    .collect(),
            )
        }
        Step::Items(items) => {
            let item_seen = views.items(seen);
            Value::Array(
                items
                    .iter()
                    .map(|item| shape_at(views, item, &item_seen, generator, field, depth + 1))
                    .collect(),
            )
        }
        Step::Scalar(value) => value.into_owned(),
        Step::Branch(branch) => shape_at(
            views,
            input,
            &views.get(branch),
            generator,
            field,
            depth + 1,
        ),
        Step::Convert => {
            // No branch takes the value as it is: try converting through each in turn.
            let value = input.to_value();
            for branch in &seen.view.any_of {
                let shaped = shape_at(
                    views,
                    Input::Value(&value),
                    &views.get(branch),
                    generator,
                    field,
                    depth + 1,
                );
                if shaped == *value {
                    return shaped;
                }
            }
            generator.value(seen.schema, field)
        }
        Step::Wrap(holder) => {
            let value = input.to_value();
            let properties = views.properties(seen);
            let mut object = Map::new();
            for ((name, _), property) in seen.view.properties.iter().zip(properties) {
                if *name == holder {
                    let shaped = shape_at(
                        views,
                        Input::Value(&value),
                        property,
                        generator,
                        name,
                        depth + 1,
                    );
                    object.insert((*name).to_owned(), shaped);
                } else if seen.view.required.contains(name) {
                    let generated = generator.property(name, property.schema, depth + 1);
                    object.insert((*name).to_owned(), generated);
                }
            }
            Value::Object(object)
        }
    }
}

/// The keywords [`scalar_fits`] reads.
const SCALAR_RULES: [&str; 8] = [
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
];

/// Whether a scalar satisfies the schema's value rules (closed `enum`, bounds, `pattern`).
fn scalar_fits(view: &View<'_>, value: &Value) -> bool {
    if let Some(allowed) = view.keyword("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return false;
    }
    match value {
        Value::String(text) => {
            let len = text.chars().count() as u64;
            view.length_admits(len)
                && view
                    .keyword("pattern")
                    .and_then(Value::as_str)
                    .is_none_or(|p| pattern_matches(p, text))
        }
        Value::Number(n) => view.range().admits(n.as_f64().unwrap_or(0.0)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_record_is_projected_onto_its_schema_and_made_valid() {
        let doc = Document::embedded().unwrap();
        let schema = json!({ "$ref": "#/components/schemas/ProductQuantity" });
        let record = json!({
            "id": "12", "name": 5, "price": "10.50", "extra": true, "__search": "x",
            "sku": null, "image": null, "sku_id": null, "unlimited_quantity": 1, "variant": null,
        });
        let mut generator = Generator::new(&doc, 1, 1);
        let shaped = shape(&doc, &record, &schema, &mut generator, "row");
        assert_eq!(shaped["id"], 12);
        assert_eq!(shaped["name"], "5");
        assert_eq!(shaped["price"], "10.50");
        assert_eq!(shaped["unlimited_quantity"], true);
        assert!(shaped.get("extra").is_none() && shaped.get("__search").is_none());
        assert!(
            shaped["quantity"].is_i64(),
            "a required field is generated: {shaped}"
        );
        let validator = doc.validator(&schema).unwrap();
        assert!(validator.is_valid(&shaped), "{shaped}");
    }

    /// Writing an answer as it is shaped gives the very bytes of shaping it into a value and
    /// serializing that, generated parts included: for every success schema of the document,
    /// shaping a value generated for it and values generated for other operations (wrong
    /// shapes: conversions, generated fields, `anyOf` branches), and a page of them as a value,
    /// as a page and in an envelope.
    #[test]
    fn rendering_writes_what_shaping_builds() {
        let doc = Document::embedded().unwrap();
        let schemas: Vec<&Value> = doc
            .operations
            .iter()
            .filter_map(|op| op.success_schema.as_ref())
            .collect();
        let mut generator = Generator::new(&doc, 7, 7);
        let values: Vec<Value> = schemas.iter().map(|s| generator.value(s, "data")).collect();
        let mut differ = 0;
        for (i, schema) in schemas.iter().enumerate() {
            for value in [
                &values[i],
                &values[(i + 1) % values.len()],
                &json!({"id": "9"}),
            ] {
                let built = shape(&doc, value, schema, &mut Generator::new(&doc, 3, 3), "data");
                let written = render(
                    &doc,
                    Input::Value(value),
                    schema,
                    Generator::new(&doc, 3, 3),
                    "data",
                );
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    built.to_string(),
                    "{schema}"
                );
                differ += usize::from(built != *value);
            }
        }
        assert!(differ > schemas.len(), "the values were mostly reshaped");

        let list = json!({ "$ref": "#/components/schemas/OrderList" });
        let orders: Vec<Value> = (0..5)
            .map(|_| generator.value(&list, "data")["data"].clone())
            .collect();
        let page: Vec<&Value> = orders.iter().collect();
        let head = json!({ "status": 200, "success": true, "pagination": {"count": 5} });
        let mut whole = head.clone();
        whole["data"] = Value::Array(orders.clone());
        for (input, value) in [
            (Input::Enveloped(head.as_object().unwrap(), &page), &whole),
            (Input::Page(&page), &whole["data"]),
        ] {
            for schema in [&list, &json!({"type": "array"}), &json!({"type": "object"})] {
                let built = shape(&doc, value, schema, &mut Generator::new(&doc, 5, 5), "data");
                let written = render(&doc, input, schema, Generator::new(&doc, 5, 5), "data");
                assert_eq!(String::from_utf8(written).unwrap(), built.to_string());
            }
        }
    }
}
