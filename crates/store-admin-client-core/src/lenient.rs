//! Tolerant decoding: the service is a PHP application, and its JSON says so.
//!
//! PHP's arrays, loose types and form habits reach the wire: an empty object arrives as `[]`,
//! numbers as their strings and strings as numbers, booleans as `0`/`1` or `"on"`, a list as an
//! object keyed by index or as its one item, `null` where the field is simply absent, a record as
//! its id. `cargo xtask generate` gives every field of every generated type whose type holds a
//! number, a string, a boolean or an object a
//! `#[serde(deserialize_with = "lenient::As::<adapter>::deserialize")]`, the adapter following the
//! field's type: [`Num`] for a number, [`Str`] for text (a `String`, a string newtype or a string
//! enum), [`Bool`] for a boolean, [`Obj`] for a record, [`Ref`] for a record with a [`Primary`]
//! field, [`Map`] for a map, [`Opt`], [`Defaulted`], [`Seq`] and [`Boxed`] around them, [`Same`]
//! for what needs nothing. That is the one mechanism: no schema of the document is special-cased,
//! and serialization is unchanged (the attribute is on deserialization only).
//!
//! What is accepted, beside what the type itself accepts:
//! - at a number position, a string holding the number (`"42"`, `" 7 "`, `"10.70"` for a float),
//!   parsed by the type's `FromStr`, and a boolean as `1`/`0`;
//! - at a text position, a number as its text (`12` as `"12"`, `10.5` as `"10.5"`) and `null` as
//!   the empty text (a required text the service left out);
//! - at a boolean position, `1`/`0` and the strings `"1"`/`"0"`, `"true"`/`"false"`,
//!   `"on"`/`"off"`, `"yes"`/`"no"` (any case);
//! - at a list position, an object whose keys are all indexes (`{"0": a, "1": b}`) as its values
//!   in order, and a single value (a string, a number, a boolean, an object with other keys) as
//!   the list of that value;
//! - at a record or map position, `[]` decodes exactly as `{}` would (a record whose fields are
//!   all optional, an empty map); a one-item array is its item at a record position, and an array
//!   is the map of its items by index (`"0"`, `"1"`...) at a map position;
//! - at an optional position, `null` is absent (for an `Option` as for an optional list or map,
//!   [`Defaulted`]), and so is an empty object (`{}` or `[]`) for a record that cannot be empty
//!   (it has a required field): PHP's `"sale_price": {}` for no sale price;
//! - a single value (a number, a string) where a record is expected stands for the record's
//!   primary field, the record decoding with that field alone: `"customer": 12` as
//!   `{"id": 12}`, `"price": 100` as `{"amount": 100}`. The rule, applied by the xtask to each
//!   record: the primary field is `id` when every other field is optional, else the record's one
//!   required field; a record with several required fields (or none, and no `id`) has none, and
//!   a single value there stays an error naming the record. A record that wants a single value
//!   read as one of its fields says so in the document by requiring that field alone.
//! - at a union's position (a `oneOf`/`anyOf`, an untagged enum), a value that fits no branch as
//!   the enum's last variant, `Other(serde_json::Value)` ([`unmatched`]): kept, not an error;
//! - a record's required `id` left out, when the record requires other fields too, as `0` or the
//!   empty text ([`absent_id`]): a create answer that echoes the record without its new id; and
//!   in a create answer's `data` ([`Created`]), the `id` of a record that requires nothing else.
//!
//! The types a request body reaches (what a caller sends) read, beside that, what the service's
//! documented requests send: a boolean, or a text's translations by locale, at a text position
//! as its JSON text ([`InputStr`]), an id alone as a record that has an `id` and whose other required fields have
//! defaults, and a required field that has a default (a boolean, a text, a number, a list, a map)
//! left out as that default. A required field of a request-only record that has no default (a
//! value set, a checked text, a record) is an `Option` in the generated type, so a documented
//! request that leaves it out decodes and can be built again. Building a request still asks for
//! every required field (`None` leaves one of those out on purpose).
//!
//! What cannot be read this way is still an error that names what was expected, and
//! `serde_path_to_error` still names its JSON path: the adapters hand the type's own fields,
//! elements and keys on through the deserializer they were given.
//!
//! The adapters decode in one pass, without buffering: on a body that is as the document says,
//! nothing is allocated that plain serde would not allocate. Untagged enums (a `oneOf`) buffer
//! as serde always does, and their variants' records decode through their own fields' adapters;
//! a variant itself gets no adapter, so no variant starts to match what another matched before.
//!
//! ```
//! use store_admin_client_core::lenient;
//!
//! #[derive(serde::Deserialize, Debug, PartialEq, Default)]
//! struct Options {
//!     #[serde(default)]
//!     boxes: Option<i64>,
//! }
//!
//! #[derive(serde::Deserialize, Debug, PartialEq)]
//! struct Customer {
//!     #[serde(deserialize_with = "lenient::As::<lenient::Num>::deserialize")]
//!     id: i64,
//! }
//!
//! impl lenient::Primary for Customer {
//!     const FIELD: &'static str = "id";
//! }
//!
//! #[derive(serde::Deserialize, Debug, PartialEq)]
//! struct Item {
//!     #[serde(deserialize_with = "lenient::As::<lenient::Num>::deserialize")]
//!     id: i64,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Str>::deserialize")]
//!     sku: String,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Bool>::deserialize")]
//!     active: bool,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Obj>::deserialize")]
//!     options: Options,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Map<lenient::Str>>::deserialize")]
//!     headers: std::collections::BTreeMap<String, String>,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Seq<lenient::Str>>::deserialize")]
//!     tags: Vec<String>,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Ref>::deserialize")]
//!     customer: Customer,
//! }
//!
//! let item: Item = serde_json::from_str(
//!     r#"{"id": "42", "sku": 1234, "active": "on", "options": [], "headers": [],
//!         "tags": "sale", "customer": "7"}"#,
//! )
//! .unwrap();
//! assert_eq!(item.id, 42);
//! assert_eq!(item.sku, "1234");
//! assert!(item.active);
//! assert_eq!(item.options, Options::default());
//! assert!(item.headers.is_empty());
//! assert_eq!(item.tags, ["sale"]);
//! assert_eq!(item.customer, Customer { id: 7 });
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use crate::drift::{self, JsonType, habits, is_index};
use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, Visitor,
};

/// How a value of type `T` decodes, tolerantly (the adapters below).
pub trait DeserializeAs<'de, T>: Sized {
    /// Decodes a `T`.
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;

    /// Decodes a `T` at an optional position, where the adapter may read what it is given as
    /// absent (a record's [`Opt`] reads an empty object as `None` when the record cannot be
    /// empty). By default, what [`deserialize_as`](Self::deserialize_as) reads.
    fn deserialize_opt_as<D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        Self::deserialize_as(deserializer).map(Some)
    }
}

/// The entry point of the generated attributes: `As::<A>::deserialize` decodes through the
/// adapter `A`.
pub struct As<A>(PhantomData<A>);

impl<A> As<A> {
    /// Decodes a `T` through the adapter `A` (a `deserialize_with` function).
    pub fn deserialize<'de, D, T>(deserializer: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        A: DeserializeAs<'de, T>,
    {
        A::deserialize_as(deserializer)
    }
}

/// The type's own `Deserialize`.
pub struct Same;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, T> for Same {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// `null` (or a missing field, with `#[serde(default)]`) is `None`; anything else decodes
/// through `A` (which may read it as absent too: an empty object for a record that cannot be
/// empty).
pub struct Opt<A>(PhantomData<A>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeAs<'de, Option<T>> for Opt<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        struct OptVisitor<T, A>(PhantomData<(T, A)>);
        impl<'de, T, A: DeserializeAs<'de, T>> Visitor<'de> for OptVisitor<T, A> {
            type Value = Option<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an optional value")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                A::deserialize_opt_as(d)
            }
            // A deserializer of one value (a record's primary field filled by [`Ref`] from the
            // single value that stood for the record) answers `deserialize_option` with the
            // value itself.
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                A::deserialize_opt_as(v.into_deserializer())
            }
        }
        deserializer.deserialize_option(OptVisitor::<T, A>(PhantomData))
    }
}

/// An optional field that is not an `Option` (a list or a map with `#[serde(default)]`):
/// `null` is the type's default, as a missing field is; anything else decodes through `A`.
pub struct Defaulted<A>(PhantomData<A>);

impl<'de, T: Default, A: DeserializeAs<'de, T>> DeserializeAs<'de, T> for Defaulted<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        Opt::<A>::deserialize_as(deserializer).map(Option::unwrap_or_default)
    }
}

/// `Box<T>` (typify's way to break a recursive type) through `A`.
pub struct Boxed<A>(PhantomData<A>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeAs<'de, Box<T>> for Boxed<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Box<T>, D::Error> {
        A::deserialize_as(deserializer).map(Box::new)
    }
    fn deserialize_opt_as<D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Box<T>>, D::Error> {
        A::deserialize_opt_as(deserializer).map(|v| v.map(Box::new))
    }
}

/// One element, map value or field through `A`.
struct Seed<T, A>(PhantomData<(T, A)>);

impl<T, A> Seed<T, A> {
    fn new() -> Self {
        Seed(PhantomData)
    }
}

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeSeed<'de> for Seed<T, A> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        A::deserialize_as(deserializer)
    }
}

/// An array, each item through `A`. PHP's other forms of a list are read as the list: an object
/// whose keys are all indexes (`{"0": a, "1": b}`, a PHP array with holes or reordered keys) as
/// its values in order, and a single value (a string, a number, a boolean, an object with other
/// keys) as the list of that one value. `{}` is the empty list.
pub struct Seq<A>(PhantomData<A>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeAs<'de, Vec<T>> for Seq<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        let mut out = Vec::new();
        Self::deserialize_into(deserializer, &mut out)?;
        Ok(out)
    }
}

impl<A> Seq<A> {
    /// Reads a list as [`Seq`] does, each item pushed onto `sink` as it decodes: when an item
    /// does not, the error is returned and the items before it stay in `sink` (a page whose
    /// tenth record does not decode keeps the nine before it).
    pub fn deserialize_into<'de, D, T>(deserializer: D, sink: &mut Vec<T>) -> Result<(), D::Error>
    where
        D: Deserializer<'de>,
        A: DeserializeAs<'de, T>,
    {
        let _indexes = drift::list_indexes();
        deserializer.deserialize_any(SeqVisitor::<T, A> {
            sink,
            as_: PhantomData,
        })
    }
}

/// Reads a list onto `sink` (see [`Seq::deserialize_into`]).
struct SeqVisitor<'v, T, A> {
    sink: &'v mut Vec<T>,
    as_: PhantomData<A>,
}

impl<'de, T, A: DeserializeAs<'de, T>> SeqVisitor<'_, T, A> {
    fn one<E: de::Error>(
        self,
        item: impl IntoDeserializer<'de, E>,
        seen: JsonType,
    ) -> Result<(), E> {
        drift::habit(habits::ONE_VALUE_FOR_LIST, seen);
        self.sink.push(A::deserialize_as(item.into_deserializer())?);
        Ok(())
    }
}

impl<'de, T, A: DeserializeAs<'de, T>> Visitor<'de> for SeqVisitor<'_, T, A> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        self.sink.reserve(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Seed::<T, A>::new())? {
            self.sink.push(item);
        }
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let Some(first) = map.next_key::<String>()? else {
            drift::habit(habits::ONE_VALUE_FOR_LIST, JsonType::Object);
            return Ok(());
        };
        if !is_index(&first) {
            drift::habit(habits::ONE_VALUE_FOR_LIST, JsonType::Object);
            // One object, not a list of them: hand it on with the key already read.
            let item = A::deserialize_as(MapAccessDeserializer::new(Prefixed {
                first: Some(first),
                rest: map,
            }))?;
            self.sink.push(item);
            return Ok(());
        }
        drift::habit(habits::INDEX_KEYED_OBJECT_FOR_LIST, JsonType::Object);
        self.sink.push(map.next_value_seed(Seed::<T, A>::new())?);
        while let Some(key) = map.next_key::<String>()? {
            if !is_index(&key) {
                return Err(de::Error::invalid_value(
                    Unexpected::Str(&key),
                    &"an index (an object read as a list has only numeric keys)",
                ));
            }
            self.sink.push(map.next_value_seed(Seed::<T, A>::new())?);
        }
        Ok(())
    }
    /// `null` for a list is the empty list.
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        drift::habit(habits::NULL_FOR_VALUE, JsonType::Null);
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.one(v, JsonType::Boolean)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.one(v, JsonType::Number)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.one(v, JsonType::Number)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.one(v, JsonType::Number)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.one(v, JsonType::String)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        drift::habit(habits::ONE_VALUE_FOR_LIST, JsonType::String);
        self.sink
            .push(A::deserialize_as(BorrowedStrDeserializer::new(v))?);
        Ok(())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<(), E> {
        self.one(v, JsonType::String)
    }
}

/// A map whose first key was already read.
struct Prefixed<M> {
    first: Option<String>,
    rest: M,
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for Prefixed<M> {
    type Error = M::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        match self.first.take() {
            Some(key) => seed.deserialize(key.into_deserializer()).map(Some),
            None => self.rest.next_key_seed(seed),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        self.rest.next_value_seed(seed)
    }
}

/// A map (`BTreeMap`, or `serde_json::Map` of a free-form object), each value through `A`. `[]`
/// is the empty map, and a non-empty array (what PHP sends for an array whose keys are `0..n`)
/// the map of its items by index (`"0"`, `"1"`, ...).
pub struct Map<A>(PhantomData<A>);

/// What `Map` fills: the map types typify generates.
pub trait MapLike: Default {
    /// The key type.
    type Key;
    /// The value type.
    type Value;
    /// Adds an entry.
    fn insert_entry(&mut self, key: Self::Key, value: Self::Value);
}

impl<K: Ord, V> MapLike for BTreeMap<K, V> {
    type Key = K;
    type Value = V;
    fn insert_entry(&mut self, key: K, value: V) {
        self.insert(key, value);
    }
}

impl MapLike for serde_json::Map<String, serde_json::Value> {
    type Key = String;
    type Value = serde_json::Value;
    fn insert_entry(&mut self, key: String, value: serde_json::Value) {
        self.insert(key, value);
    }
}

impl<'de, M, A> DeserializeAs<'de, M> for Map<A>
where
    M: MapLike,
    M::Key: Deserialize<'de>,
    A: DeserializeAs<'de, M::Value>,
{
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<M, D::Error> {
        struct MapVisitor<M, A>(PhantomData<(M, A)>);
        impl<'de, M, A> Visitor<'de> for MapVisitor<M, A>
        where
            M: MapLike,
            M::Key: Deserialize<'de>,
            A: DeserializeAs<'de, M::Value>,
        {
            type Value = M;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map (or an array, read as a map by index)")
            }
            fn visit_map<V: MapAccess<'de>>(self, mut map: V) -> Result<M, V::Error> {
                let mut out = M::default();
                while let Some(key) = map.next_key::<M::Key>()? {
                    // An entry whose value is `null` is absent, as a field's would be.
                    if let Some(value) =
                        map.next_value_seed(Seed::<Option<M::Value>, Opt<A>>::new())?
                    {
                        out.insert_entry(key, value);
                    }
                }
                Ok(out)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<M, S::Error> {
                let mut out = M::default();
                let mut index = 0_usize;
                while let Some(value) = seq.next_element_seed(Seed::<M::Value, A>::new())? {
                    let key = M::Key::deserialize(index.to_string().into_deserializer())?;
                    out.insert_entry(key, value);
                    index += 1;
                }
                let habit = match index {
                    0 => habits::EMPTY_ARRAY_FOR_OBJECT,
                    _ => habits::LIST_FOR_MAP,
                };
                drift::habit(habit, JsonType::Array);
                Ok(out)
            }
        }
        let _keys = drift::map_keys();
        deserializer.deserialize_any(MapVisitor::<M, A>(PhantomData))
    }
}

/// A record (a generated struct): `[]` decodes as `{}`, a one-item array as its item; anything
/// else reaches the type as it is. At an optional position ([`Opt`]), an empty object (`{}` or
/// `[]`) for a record that cannot be empty (it has a required field) is absent.
pub struct Obj;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, T> for Obj {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer
            .deserialize_any(RecordVisitor::<T>::new(None, false))
            .map(|v| v.expect("a required record is never absent"))
    }
    fn deserialize_opt_as<D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_any(RecordVisitor::<T>::new(None, true))
    }
}

/// A record that a single value may stand for: the name (on the wire) of the field that value
/// fills. `cargo xtask generate` implements it for each record with a primary field: its `id`
/// when every other field is optional, else its one required field.
pub trait Primary {
    /// The primary field's name on the wire.
    const FIELD: &'static str;
}

/// A record with a [`Primary`] field: what [`Obj`] reads, and a single value (a number, a string,
/// a boolean) as the record with only that field set: `"customer": 12` as `{"id": 12}`,
/// `"price": 10.5` as `{"amount": 10.5}`.
pub struct Ref;

impl<'de, T: Deserialize<'de> + Primary> DeserializeAs<'de, T> for Ref {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer
            .deserialize_any(RecordVisitor::<T>::new(Some(T::FIELD), false))
            .map(|v| v.expect("a required record is never absent"))
    }
    fn deserialize_opt_as<D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_any(RecordVisitor::<T>::new(Some(T::FIELD), true))
    }
}

/// The record of a create answer (the `data` of a `POST`'s 2xx envelope) that requires its
/// primary field (its `id`) alone: what [`Ref`] reads, and the record without that field, which
/// the service documents (a create answer that echoes what was sent, without the new id). The
/// field left out reads as `0` (or the empty text for a text id), which no record of the service
/// has, noted in the drift report as [`absent_id`] is. `cargo xtask generate` gives it to the
/// `data` of those envelopes only: everywhere else (a record inside another, a list's items) such
/// a record still needs its id, and `{}` at an optional position is still no record.
///
/// It reads in one pass, without buffering: the record's own `Deserialize` sees the object's
/// entries as they come, then the left-out field as one more entry.
pub struct Created;

impl<'de, T: Deserialize<'de> + Primary> DeserializeAs<'de, T> for Created {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer
            .deserialize_any(CreatedVisitor::<T>(RecordVisitor::new(
                Some(T::FIELD),
                false,
            )))
            .map(|v| v.expect("a required record is never absent"))
    }
}

/// [`RecordVisitor`], with an object's missing primary field added ([`WithField`]).
struct CreatedVisitor<T>(RecordVisitor<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for CreatedVisitor<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_map<V: MapAccess<'de>>(self, map: V) -> Result<Option<T>, V::Error> {
        let field = self.0.primary.unwrap_or("id");
        T::deserialize(MapAccessDeserializer::new(WithField {
            map,
            field,
            seen: false,
            current: false,
            added: Added::No,
        }))
        .map(Some)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Option<T>, S::Error> {
        self.0.visit_seq(seq)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<T>, E> {
        self.0.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<T>, E> {
        self.0.visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<T>, E> {
        self.0.visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<T>, E> {
        self.0.visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<T>, E> {
        self.0.visit_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<T>, E> {
        self.0.visit_string(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        self.0.visit_unit()
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        self.0.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        self.0.visit_some(d)
    }
}

/// Where [`WithField`] is with the field it adds.
#[derive(PartialEq)]
enum Added {
    /// Not added (the object is still being read, or had the field).
    No,
    /// Its key handed out, its value next.
    Key,
    /// Added: the map is over.
    Done,
}

/// An object's entries, then `field` (with [`AbsentValue`]) when none of them was it; `field`
/// given as `null` reads as left out too.
struct WithField<M> {
    map: M,
    field: &'static str,
    /// Whether a key was `field`.
    seen: bool,
    /// Whether the last key read was `field`.
    current: bool,
    added: Added,
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for WithField<M> {
    type Error = M::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        if self.added != Added::No {
            return Ok(None);
        }
        // The seed stays here unless the map has a key for it: the map's end hands it back.
        let mut slot = Some(seed);
        self.current = false;
        let key = self.map.next_key_seed(KeySeed {
            slot: &mut slot,
            field: self.field,
            seen: &mut self.current,
        })?;
        self.seen |= self.current;
        match (key, slot.take()) {
            (Some(key), _) => Ok(Some(key)),
            (None, Some(seed)) if !self.seen => {
                drift::habit(habits::ABSENT_ID, JsonType::Null);
                self.added = Added::Key;
                seed.deserialize(BorrowedStrDeserializer::new(self.field))
                    .map(Some)
            }
            (None, _) => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        if self.added == Added::Key {
            self.added = Added::Done;
            return seed.deserialize(AbsentValue(PhantomData));
        }
        if self.current {
            return self.map.next_value_seed(NullAsAbsent(seed));
        }
        self.map.next_value_seed(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// The value of the field [`WithField`] adds: `null` reads as [`AbsentValue`].
struct NullAsAbsent<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NullAsAbsent<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for NullAsAbsent<S> {
    type Value = S::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an id")
    }
    fn visit_none<E: de::Error>(self) -> Result<S::Value, E> {
        drift::habit(habits::ABSENT_ID, JsonType::Null);
        self.0.deserialize(AbsentValue(PhantomData))
    }
    fn visit_unit<E: de::Error>(self) -> Result<S::Value, E> {
        self.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(deserializer)
    }
}

/// A key's seed that notes whether the key is `field`.
struct KeySeed<'a, K> {
    slot: &'a mut Option<K>,
    field: &'static str,
    seen: &'a mut bool,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = K::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        let seed = self
            .slot
            .take()
            .ok_or_else(|| de::Error::custom("a key read twice"))?;
        seed.deserialize(KeyDeserializer {
            inner: deserializer,
            field: self.field,
            seen: self.seen,
        })
    }
}

/// A key, read as the map gives it, noting whether it is `field`.
struct KeyDeserializer<'a, D> {
    inner: D,
    field: &'static str,
    seen: &'a mut bool,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, D> {
    type Error = D::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(KeyVisitor {
            inner: visitor,
            field: self.field,
            seen: self.seen,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct KeyVisitor<'a, V> {
    inner: V,
    field: &'static str,
    seen: &'a mut bool,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        *self.seen |= v == self.field;
        self.inner.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        *self.seen |= v == self.field;
        self.inner.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        *self.seen |= v == self.field;
        self.inner.visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        *self.seen |= v == self.field.as_bytes();
        self.inner.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        *self.seen |= v == self.field.as_bytes();
        self.inner.visit_borrowed_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        *self.seen |= v == self.field.as_bytes();
        self.inner.visit_byte_buf(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.inner.visit_u64(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.inner.visit_i64(v)
    }
}

/// The value of a left-out id: `0` for a number (and an id that is a number or a text), the
/// empty text for a text.
struct AbsentValue<E>(PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for AbsentValue<E> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_u64(0)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_borrowed_str("")
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_borrowed_str("")
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Reads a record ([`Obj`], [`Ref`]): `None` only when `optional` and the record was empty and
/// refused to be.
struct RecordVisitor<T> {
    primary: Option<&'static str>,
    optional: bool,
    /// The item of a one-item array: another array is refused.
    in_array: bool,
    marker: PhantomData<T>,
}

impl<T> RecordVisitor<T> {
    fn new(primary: Option<&'static str>, optional: bool) -> Self {
        RecordVisitor {
            primary,
            optional,
            in_array: false,
            marker: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> RecordVisitor<T> {
    /// A single value: the record with its primary field set, or (no primary field) what `T`
    /// makes of it (an error naming the record).
    fn scalar<E: de::Error, V: IntoDeserializer<'de, E>>(
        self,
        v: V,
        seen: JsonType,
    ) -> Result<Option<T>, E> {
        match self.primary {
            Some(field) => {
                drift::habit(habits::ID_FOR_RECORD, seen);
                T::deserialize(MapAccessDeserializer::new(OneEntry {
                    key: Some(field),
                    value: Some(v.into_deserializer()),
                }))
                .map(Some)
            }
            None => T::deserialize(v.into_deserializer()).map(Some),
        }
    }

    /// The empty record, or (at an optional position) nothing when the record cannot be empty.
    fn empty<E: de::Error>(self) -> Result<Option<T>, E> {
        match T::deserialize(MapAccessDeserializer::new(EmptyMap(PhantomData))) {
            Ok(record) => Ok(Some(record)),
            Err(_) if self.optional => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Hands what was read to `T`'s own `Deserialize`, so that its errors read as they always did.
impl<'de, T: Deserialize<'de>> Visitor<'de> for RecordVisitor<T> {
    type Value = Option<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<V: MapAccess<'de>>(self, map: V) -> Result<Option<T>, V::Error> {
        if !self.optional {
            return T::deserialize(MapAccessDeserializer::new(map)).map(Some);
        }
        let mut watched = Watched { map, keys: 0 };
        match T::deserialize(MapAccessDeserializer::new(&mut watched)) {
            Ok(record) => Ok(Some(record)),
            // `{}` for a record with a required field: nothing.
            Err(_) if watched.keys == 0 => {
                drift::habit(habits::EMPTY_OBJECT_FOR_ABSENT, JsonType::Object);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Option<T>, S::Error> {
        if self.in_array {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        }
        // `[]` is the empty object, `[x]` is `x`; a longer array is no object.
        let Some(item) = seq.next_element_seed(Seed::<Option<T>, OptRecord>::new())? else {
            drift::habit(habits::EMPTY_ARRAY_FOR_OBJECT, JsonType::Array);
            return self.empty();
        };
        match seq.next_element::<IgnoredAny>()? {
            None => {
                drift::habit(habits::ONE_ITEM_ARRAY_FOR_OBJECT, JsonType::Array);
                Ok(item)
            }
            Some(_) => Err(de::Error::invalid_type(Unexpected::Seq, &self)),
        }
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::Boolean)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::Number)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::Number)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::Number)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::String)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<T>, E> {
        self.scalar(v, JsonType::String)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        T::deserialize(().into_deserializer()).map(Some)
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        T::deserialize(().into_deserializer()).map(Some)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        T::deserialize(d).map(Some)
    }
}

/// The item of a one-item array at a record position: the record itself (no scalar stands for
/// it there, and no array: `[[x]]` is no habit of the service, and reading it as `[x]` would
/// read each level of a hostile nesting through the whole record's decoder, a stack frame of
/// it per level).
struct OptRecord;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, Option<T>> for OptRecord {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        let mut visitor = RecordVisitor::<T>::new(None, false);
        visitor.in_array = true;
        deserializer.deserialize_any(visitor)
    }
}

/// A map that counts the keys read from it.
struct Watched<M> {
    map: M,
    keys: usize,
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for Watched<M> {
    type Error = M::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        let key = self.map.next_key_seed(seed)?;
        self.keys += usize::from(key.is_some());
        Ok(key)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        self.map.next_value_seed(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A map with nothing in it.
struct EmptyMap<E>(PhantomData<E>);

impl<'de, E: de::Error> MapAccess<'de> for EmptyMap<E> {
    type Error = E;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _: K) -> Result<Option<K::Value>, E> {
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, _: V) -> Result<V::Value, E> {
        Err(de::Error::custom("a value without its key"))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

/// A map with one entry: a record's primary field and the single value that stood for the
/// record.
struct OneEntry<V> {
    key: Option<&'static str>,
    value: Option<V>,
}

impl<'de, V: Deserializer<'de>> MapAccess<'de> for OneEntry<V> {
    type Error = V::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, V::Error> {
        match self.key.take() {
            Some(key) => seed
                .deserialize(BorrowedStrDeserializer::new(key))
                .map(Some),
            None => Ok(None),
        }
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, V::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.key.is_some()))
    }
}

/// A number: as a JSON number, as a string holding one (parsed by the type's `FromStr`), or as
/// a boolean (`true` 1, `false` 0).
pub struct Num;

impl<'de, T> DeserializeAs<'de, T> for Num
where
    T: Deserialize<'de> + FromStr,
    T::Err: fmt::Display,
{
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(NumVisitor::<T>(PhantomData))
    }
}

struct NumVisitor<T>(PhantomData<T>);

impl<'de, T> Visitor<'de> for NumVisitor<T>
where
    T: Deserialize<'de> + FromStr,
    T::Err: fmt::Display,
{
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} (a number, or a string holding one)",
            std::any::type_name::<T>()
                .rsplit("::")
                .next()
                .unwrap_or("number")
        )
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        drift::habit(habits::NUMBER_AS_BOOLEAN, JsonType::Boolean);
        T::deserialize(u8::from(v).into_deserializer())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        let number = v.trim().parse::<T>().map_err(|e| {
            de::Error::custom(format_args!(
                "invalid number in a string: {v:?} ({e}), expected {}",
                Expected(&self)
            ))
        })?;
        drift::habit(habits::NUMBER_AS_STRING, JsonType::String);
        Ok(number)
    }
}

/// Text (a `String`, a string newtype, a string enum): a string as it is, a number as its
/// decimal text (`12` as `"12"`, `10.5` as `"10.5"`), and `null` as the empty string (a
/// required text the service left out; at an optional position, [`Opt`] reads `null` as
/// absent first).
pub struct Str;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, T> for Str {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(StrVisitor::<T>(PhantomData))
    }
}

struct StrVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for StrVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string (or a number, read as its text)")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<T, E> {
        T::deserialize(BorrowedStrDeserializer::new(v))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        drift::habit(habits::STRING_AS_NUMBER, JsonType::Number);
        T::deserialize(v.to_string().into_deserializer())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        drift::habit(habits::STRING_AS_NUMBER, JsonType::Number);
        T::deserialize(v.to_string().into_deserializer())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        drift::habit(habits::STRING_AS_NUMBER, JsonType::Number);
        // The text JSON gives the number (`10.0` stays `10.0`), not Rust's shortest (`10`).
        let text = serde_json::Number::from_f64(v).map_or_else(|| v.to_string(), |n| n.to_string());
        T::deserialize(text.into_deserializer())
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        drift::habit(habits::NULL_FOR_VALUE, JsonType::Null);
        T::deserialize("".into_deserializer())
    }
    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
}

/// Text of a request body (a type that a request reaches): what [`Str`] reads, a boolean as its
/// JSON text (`true` as `"true"`), and a text's translations by locale (`{"ar": "..", "en": ".."}`,
/// Laravel's translatable attributes) as their JSON text. The service's documented requests send
/// those where the document declares text (a flag, the translations of a name), and the service
/// accepts them: decoding such a body (`store-admin decode --request`, a request a test or a proxy
/// reads back) keeps what it says. Another object or an array stays an error.
pub struct InputStr;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, T> for InputStr {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(InputStrVisitor::<T>(PhantomData))
    }
}

struct InputStrVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> InputStrVisitor<T> {
    fn json<E: de::Error>(value: serde_json::Value, seen: JsonType) -> Result<T, E> {
        drift::habit(habits::TEXT_AS_BOOLEAN_OR_OBJECT, seen);
        T::deserialize(value.to_string().into_deserializer())
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for InputStrVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string (or a number, a boolean or the translations of a text by locale)")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_string(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_f64(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_unit()
    }
    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        StrVisitor::<T>(PhantomData).visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Self::json(serde_json::Value::Bool(v), JsonType::Boolean)
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
        let value = serde_json::Map::deserialize(MapAccessDeserializer::new(map))?;
        let translations = !value.is_empty()
            && value
                .iter()
                .all(|(key, text)| is_locale(key) && (text.is_string() || text.is_null()));
        if !translations {
            return Err(de::Error::invalid_type(Unexpected::Map, &self));
        }
        Self::json(serde_json::Value::Object(value), JsonType::Object)
    }
}

/// A locale's code, as a translatable text's keys are: `ar`, `en`, `fil`, `pt-BR`, `zh_Hans`.
fn is_locale(key: &str) -> bool {
    let (language, region) = match key.split_once(['-', '_']) {
        Some((language, region)) => (language, Some(region)),
        None => (key, None),
    };
    (2..=3).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_lowercase())
        && region.is_none_or(|r| {
            (2..=8).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// A boolean: `true`/`false`, `1`/`0`, or the strings PHP and HTML forms use (`"1"`/`"0"`,
/// `"true"`/`"false"`, `"on"`/`"off"`, `"yes"`/`"no"`, in any case). Other numbers and strings
/// stay errors.
pub struct Bool;

impl<'de> DeserializeAs<'de, bool> for Bool {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(BoolVisitor)
    }
}

struct BoolVisitor;

impl Visitor<'_> for BoolVisitor {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a boolean (or 0/1, \"0\"/\"1\", \"on\"/\"off\", \"yes\"/\"no\")")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        drift::habit(habits::BOOLEAN_AS_NUMBER_OR_WORD, JsonType::Number);
        match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(de::Error::invalid_value(Unexpected::Signed(v), &self)),
        }
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        drift::habit(habits::BOOLEAN_AS_NUMBER_OR_WORD, JsonType::Number);
        match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(de::Error::invalid_value(Unexpected::Unsigned(v), &self)),
        }
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        const TRUE: &[&str] = &["1", "true", "on", "yes"];
        const FALSE: &[&str] = &["0", "false", "off", "no"];
        let word = v.trim();
        drift::habit(habits::BOOLEAN_AS_NUMBER_OR_WORD, JsonType::String);
        if TRUE.iter().any(|t| word.eq_ignore_ascii_case(t)) {
            Ok(true)
        } else if FALSE.iter().any(|f| word.eq_ignore_ascii_case(f)) {
            Ok(false)
        } else {
            Err(de::Error::invalid_value(Unexpected::Str(v), &self))
        }
    }
}

/// The last branch of every union of the document (`cargo xtask generate` adds it to each
/// untagged enum as `Other(serde_json::Value)`): a value of a JSON type that no other branch
/// takes, kept as its JSON rather than failing the whole answer, and noted in the drift report.
/// `TAKEN` is the JSON types the other branches take, a bit each (1 null, 2 boolean, 4 number,
/// 8 string, 16 array, 32 object): a value of one of them that its branch refused (an object
/// without a field its record requires) stays an error, as before.
pub fn unmatched<'de, D: Deserializer<'de>, const TAKEN: u8>(
    deserializer: D,
) -> Result<serde_json::Value, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    let (seen, bit) = match &value {
        serde_json::Value::Null => (JsonType::Null, 1),
        serde_json::Value::Bool(_) => (JsonType::Boolean, 2),
        serde_json::Value::Number(_) => (JsonType::Number, 4),
        serde_json::Value::String(_) => (JsonType::String, 8),
        serde_json::Value::Array(_) => (JsonType::Array, 16),
        serde_json::Value::Object(_) => (JsonType::Object, 32),
    };
    if TAKEN & bit != 0 {
        return Err(de::Error::custom(
            "a value of a type a branch takes, that the branch refused",
        ));
    }
    drift::habit(habits::VALUE_FITS_NO_BRANCH, seen);
    Ok(value)
}

/// The `id` of a record that requires other fields too, when an answer leaves it out (a create
/// answer that echoes the record it made without the new id): the type's default (`0`, the empty
/// text), which no record of the service has, noted in the drift report. `cargo xtask generate`
/// gives it to such a field as `#[serde(default = "lenient::absent_id")]`; the record's other
/// required fields stay required, so an empty object is still no record.
pub fn absent_id<T: Default>() -> T {
    drift::habit(habits::ABSENT_ID, JsonType::Null);
    T::default()
}

/// A visitor's `expecting`, as `Display`.
struct Expected<'a, V>(&'a V);

impl<'de, V: Visitor<'de>> fmt::Display for Expected<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use super::*;

    /// A record that requires its id alone, as a create answer's `data`.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Made {
        #[serde(deserialize_with = "As::<Num>::deserialize")]
        id: i64,
        #[serde(default)]
        name: Option<String>,
    }
    impl Primary for Made {
        const FIELD: &'static str = "id";
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct MadeText {
        id: String,
    }
    impl Primary for MadeText {
        const FIELD: &'static str = "id";
    }
    #[derive(Deserialize, Debug)]
    struct CreateAnswer<T: Primary + for<'a> Deserialize<'a>> {
        #[serde(deserialize_with = "As::<Created>::deserialize")]
        data: T,
    }

    #[test]
    fn a_create_answer_s_record_without_its_id_reads_as_id_0() {
        let made = |json: &str| serde_json::from_str::<CreateAnswer<Made>>(json).map(|a| a.data);
        let name = Some("Cakes".to_owned());
        assert_eq!(
            made(r#"{"data": {"name": "Cakes"}}"#).expect("no id"),
            Made {
                id: 0,
                name: name.clone()
            }
        );
        // An id, wherever it is among the fields, is read as sent (not twice).
        for json in [
            r#"{"data": {"id": 5, "name": "Cakes"}}"#,
            r#"{"data": {"name": "Cakes", "id": "5"}}"#,
        ] {
            assert_eq!(
                made(json).expect(json),
                Made {
                    id: 5,
                    name: name.clone()
                }
            );
        }
        assert_eq!(made(r#"{"data": {}}"#).expect("empty").id, 0);
        assert_eq!(made(r#"{"data": {"id": null}}"#).expect("null").id, 0);
        // The rest of a record position stays: an id alone, a one-item array.
        assert_eq!(made(r#"{"data": 7}"#).expect("an id").id, 7);
        assert_eq!(made(r#"{"data": [{"id": 8}]}"#).expect("[x]").id, 8);
        // A wrong id is still an error, with its path.
        let e = serde_path_to_error::deserialize::<_, CreateAnswer<Made>>(
            &mut serde_json::Deserializer::from_str(r#"{"data": {"id": "x"}}"#),
        )
        .expect_err("not a number");
        assert_eq!(e.path().to_string(), "data.id");
        // A text id left out is the empty text.
        let text: CreateAnswer<MadeText> =
            serde_json::from_str(r#"{"data": {"other": 1}}"#).expect("no id");
        assert_eq!(text.data, MadeText { id: String::new() });
    }

    #[derive(Deserialize, Debug, PartialEq, Default)]
    struct Inner {
        #[serde(default, deserialize_with = "As::<Opt<Num>>::deserialize")]
        count: Option<u32>,
        #[serde(default)]
        name: Option<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Outer {
        #[serde(deserialize_with = "As::<Num>::deserialize")]
        id: i64,
        #[serde(default, deserialize_with = "As::<Opt<Num>>::deserialize")]
        price: Option<f64>,
        #[serde(default, deserialize_with = "As::<Opt<Obj>>::deserialize")]
        inner: Option<Inner>,
        #[serde(default, deserialize_with = "As::<Seq<Obj>>::deserialize")]
        items: Vec<Inner>,
        #[serde(default, deserialize_with = "As::<Map<Seq<Num>>>::deserialize")]
        ids: BTreeMap<String, Vec<u64>>,
        #[serde(default, deserialize_with = "As::<Map<Same>>::deserialize")]
        free: serde_json::Map<String, serde_json::Value>,
    }

    fn outer(json: &str) -> Result<Outer, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_arrive_as_numbers_or_as_strings() {
        let a = outer(r#"{"id": 7, "price": 10.7}"#).expect("numbers");
        let b = outer(r#"{"id": "7", "price": "10.7"}"#).expect("strings");
        assert_eq!((a.id, a.price), (7, Some(10.7)));
        assert_eq!((b.id, b.price), (7, Some(10.7)));
        assert_eq!(
            outer(r#"{"id": 7, "price": 3}"#).expect("int").price,
            Some(3.0)
        );
        assert_eq!(
            outer(r#"{"id": 7, "price": null}"#).expect("null").price,
            None
        );
    }

    #[test]
    fn empty_arrays_are_empty_objects_and_maps() {
        let value = outer(
            r#"{"id": 1, "inner": [], "items": [[], {"count": "2"}], "ids": [], "free": []}"#,
        )
        .expect("decodes");
        assert_eq!(value.inner, Some(Inner::default()));
        assert_eq!(
            value.items,
            [
                Inner::default(),
                Inner {
                    count: Some(2),
                    name: None
                }
            ]
        );
        assert!(value.ids.is_empty() && value.free.is_empty());
        let full =
            outer(r#"{"id": 1, "ids": {"a": [1, "2"]}, "free": {"x": true}}"#).expect("maps");
        assert_eq!(full.ids["a"], [1, 2]);
        assert_eq!(full.free["x"], serde_json::Value::Bool(true));
    }

    #[test]
    fn what_is_not_tolerated_still_fails_naming_what_was_expected() {
        let e = outer(r#"{"id": "seven"}"#).expect_err("not a number");
        assert!(
            e.starts_with("invalid number in a string: \"seven\""),
            "{e}"
        );
        assert!(
            e.contains("expected i64 (a number, or a string holding one)"),
            "{e}"
        );
        let e = outer(r#"{"id": [1]}"#).expect_err("a list");
        assert!(e.starts_with("invalid type: sequence, expected i64"), "{e}");
        let e = outer(r#"{"id": 1.5}"#).expect_err("a float for an integer");
        assert!(
            e.starts_with("invalid type: floating point `1.5`, expected i64"),
            "{e}"
        );
        let e = outer(r#"{"id": "-1", "ids": {"a": ["-1"]}}"#).expect_err("negative u64");
        assert!(e.contains("invalid number in a string: \"-1\""), "{e}");
        let e = outer(r#"{"id": 1, "ids": "x"}"#).expect_err("a string for a map");
        assert!(
            e.starts_with("invalid type: string \"x\", expected a map"),
            "{e}"
        );
        let e = outer(r#"{"id": 1, "inner": "x"}"#).expect_err("a string for a record");
        assert!(
            e.starts_with("invalid type: string \"x\", expected struct Inner"),
            "{e}"
        );
        let e = outer(r#"{"id": 1, "inner": {"count": "x"}}"#).expect_err("deep");
        assert!(e.contains("\"x\""), "{e}");
        let e = outer(r#"{"price": 1}"#).expect_err("required");
        assert!(e.starts_with("missing field `id`"), "{e}");
        let e = outer(r#"{"id": 1, "items": [{}, {}]} "#).map(|o| o.items.len());
        assert_eq!(e, Ok(2));
        let e = outer(r#"{"id": 1, "inner": [{}, {}]}"#).expect_err("two records for one");
        assert!(
            e.starts_with("invalid type: sequence, expected an object"),
            "{e}"
        );
        let e = outer(r#"{"id": 1, "items": {"0": {}, "x": {}}}"#).expect_err("a mixed object");
        assert!(e.contains("an index"), "{e}");
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Texts {
        #[serde(deserialize_with = "As::<Str>::deserialize")]
        name: String,
        #[serde(default, deserialize_with = "As::<Opt<Str>>::deserialize")]
        note: Option<String>,
        #[serde(default, deserialize_with = "As::<Opt<Str>>::deserialize")]
        kind: Option<Kind>,
        #[serde(default, deserialize_with = "As::<Defaulted<Seq<Str>>>::deserialize")]
        tags: Vec<String>,
        #[serde(default, deserialize_with = "As::<Opt<Bool>>::deserialize")]
        on: Option<bool>,
        #[serde(default, deserialize_with = "As::<Opt<Num>>::deserialize")]
        count: Option<i32>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Kind {
        #[serde(rename = "1")]
        One,
        #[serde(rename = "text")]
        Text,
    }

    fn texts(json: &str) -> Result<Texts, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn text_reads_numbers_as_their_text_and_null_as_empty() {
        assert_eq!(texts(r#"{"name": 12}"#).expect("int").name, "12");
        assert_eq!(texts(r#"{"name": 10.5}"#).expect("float").name, "10.5");
        assert_eq!(texts(r#"{"name": 10.0}"#).expect("float").name, "10.0");
        assert_eq!(texts(r#"{"name": -3}"#).expect("negative").name, "-3");
        assert_eq!(texts(r#"{"name": null}"#).expect("null").name, "");
        assert_eq!(texts(r#"{"name": "a\nb"}"#).expect("escaped").name, "a\nb");
        let t = texts(r#"{"name": "x", "note": null, "kind": 1}"#).expect("optional");
        assert_eq!((t.note, t.kind), (None, Some(Kind::One)));
        let e = texts(r#"{"name": {}}"#).expect_err("an object is no text");
        assert!(e.starts_with("invalid type: map, expected a string"), "{e}");
        let e = texts(r#"{"name": true}"#).expect_err("a boolean is no text");
        assert!(e.starts_with("invalid type: boolean"), "{e}");
        let e = texts(r#"{"name": "x", "kind": 2}"#).expect_err("no such variant");
        assert!(e.contains("unknown variant `2`"), "{e}");
    }

    #[test]
    fn booleans_read_php_and_form_values() {
        for (json, want) in [
            ("true", true),
            ("false", false),
            ("1", true),
            ("0", false),
            ("\"1\"", true),
            ("\"0\"", false),
            ("\"on\"", true),
            ("\"off\"", false),
            ("\"Yes\"", true),
            ("\"no\"", false),
            ("\"TRUE\"", true),
            ("\"false\"", false),
        ] {
            let t = texts(&format!(r#"{{"name": "x", "on": {json}}}"#)).expect(json);
            assert_eq!(t.on, Some(want), "{json}");
        }
        for json in ["2", "\"maybe\"", "\"\"", "1.0", "[]"] {
            let e = texts(&format!(r#"{{"name": "x", "on": {json}}}"#)).expect_err(json);
            assert!(e.contains("expected a boolean"), "{json}: {e}");
        }
    }

    #[test]
    fn integers_read_booleans_as_one_and_zero() {
        assert_eq!(
            texts(r#"{"name": "", "count": true}"#).expect("true").count,
            Some(1)
        );
        assert_eq!(
            texts(r#"{"name": "", "count": false}"#)
                .expect("false")
                .count,
            Some(0)
        );
        assert_eq!(outer(r#"{"id": true}"#).expect("an id").id, 1);
    }

    #[test]
    fn lists_read_single_values_and_objects_keyed_by_index() {
        assert_eq!(
            texts(r#"{"name": "", "tags": "a"}"#).expect("one").tags,
            ["a"]
        );
        assert_eq!(
            texts(r#"{"name": "", "tags": 3}"#).expect("a number").tags,
            ["3"]
        );
        assert_eq!(
            texts(r#"{"name": "", "tags": {"0": "a", "1": 2}}"#)
                .expect("indexed")
                .tags,
            ["a", "2"]
        );
        assert_eq!(
            texts(r#"{"name": "", "tags": {"3": "x", "1": "y"}}"#)
                .expect("holes")
                .tags,
            ["x", "y"],
            "in the order sent"
        );
        assert!(
            texts(r#"{"name": "", "tags": {}}"#)
                .expect("{}")
                .tags
                .is_empty()
        );
        assert!(
            texts(r#"{"name": "", "tags": null}"#)
                .expect("null")
                .tags
                .is_empty()
        );
        let one = outer(r#"{"id": 1, "items": {"count": "2"}}"#).expect("one record");
        assert_eq!(
            one.items,
            [Inner {
                count: Some(2),
                name: None
            }]
        );
        let e = texts(r#"{"name": "", "tags": {"a": 1}}"#).expect_err("a record is no text");
        assert!(e.starts_with("invalid type: map, expected a string"), "{e}");
    }

    #[test]
    fn maps_read_arrays_by_index() {
        let value = outer(r#"{"id": 1, "free": [true, "x"]}"#).expect("an array");
        assert_eq!(value.free["0"], serde_json::Value::Bool(true));
        assert_eq!(value.free["1"], serde_json::Value::from("x"));
        let value = outer(r#"{"id": 1, "ids": [[1, "2"]]}"#).expect("an array of lists");
        assert_eq!(value.ids["0"], [1, 2]);
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Money {
        #[serde(deserialize_with = "As::<Num>::deserialize")]
        amount: f64,
        #[serde(default, deserialize_with = "As::<Opt<Str>>::deserialize")]
        currency: Option<String>,
    }

    impl Primary for Money {
        const FIELD: &'static str = "amount";
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Prices {
        #[serde(deserialize_with = "As::<Ref>::deserialize")]
        price: Money,
        #[serde(default, deserialize_with = "As::<Opt<Ref>>::deserialize")]
        sale: Option<Money>,
        #[serde(default, deserialize_with = "As::<Opt<Obj>>::deserialize")]
        inner: Option<Inner>,
        #[serde(default, deserialize_with = "As::<Seq<Ref>>::deserialize")]
        more: Vec<Money>,
    }

    fn prices(json: &str) -> Result<Prices, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn a_single_value_stands_for_a_record_s_primary_field() {
        let p = prices(r#"{"price": 100, "sale": "10.5", "more": [7, {"amount": 1}]}"#)
            .expect("bare amounts");
        assert_eq!(
            p.price,
            Money {
                amount: 100.0,
                currency: None
            }
        );
        assert_eq!(
            p.sale,
            Some(Money {
                amount: 10.5,
                currency: None
            })
        );
        assert_eq!(p.more.len(), 2);
        let p = prices(r#"{"price": {"amount": "3", "currency": "SAR"}}"#).expect("a record");
        assert_eq!(p.price.currency.as_deref(), Some("SAR"));
        let e = prices(r#"{"price": "free"}"#).expect_err("no amount");
        assert!(e.contains("invalid number in a string: \"free\""), "{e}");
    }

    #[test]
    fn an_empty_object_is_absent_where_the_record_cannot_be_empty() {
        let p = prices(r#"{"price": 1, "sale": {}, "inner": {}}"#).expect("{}");
        assert_eq!(p.sale, None, "Money requires an amount");
        assert_eq!(p.inner, Some(Inner::default()), "Inner can be empty");
        assert_eq!(
            prices(r#"{"price": 1, "sale": []}"#).expect("[]").sale,
            None
        );
        let e = prices(r#"{"price": {}}"#).expect_err("a required record");
        assert!(e.starts_with("missing field `amount`"), "{e}");
        let e = prices(r#"{"price": 1, "sale": {"currency": "SAR"}}"#).expect_err("not empty");
        assert!(e.starts_with("missing field `amount`"), "{e}");
    }

    #[test]
    fn a_one_item_array_is_its_record() {
        let value = outer(r#"{"id": 1, "inner": [{"count": 3}]}"#).expect("[record]");
        assert_eq!(
            value.inner,
            Some(Inner {
                count: Some(3),
                name: None
            })
        );
        // One level only: an array in the array is no record (each level of a hostile nesting
        // would read the record again).
        assert!(outer(r#"{"id": 1, "inner": [[{"count": 3}]]}"#).is_err());
        assert!(outer(r#"{"id": 1, "inner": [[[[[[[[]]]]]]]]}"#).is_err());
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Input {
        #[serde(default, deserialize_with = "As::<InputStr>::deserialize")]
        name: String,
        #[serde(default, deserialize_with = "As::<Opt<InputStr>>::deserialize")]
        note: Option<String>,
        #[serde(
            default = "absent_id::<i64>",
            deserialize_with = "As::<Num>::deserialize"
        )]
        id: i64,
    }

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Union {
        Int64(i64),
        #[serde(deserialize_with = "unmatched::<_, 4>")]
        Other(serde_json::Value),
    }

    #[test]
    fn request_text_reads_booleans_and_objects_as_their_json_text() {
        let input = |json: &str| serde_json::from_str::<Input>(json).map_err(|e| e.to_string());
        assert_eq!(input(r#"{"name": true}"#).expect("true").name, "true");
        assert_eq!(input(r#"{"name": false}"#).expect("false").name, "false");
        assert_eq!(
            input(r#"{"name": {"ar": "x", "en": "y"}}"#)
                .expect("an object")
                .name,
            r#"{"ar":"x","en":"y"}"#
        );
        let e = input(r#"{"name": [1, "a"]}"#).expect_err("a list is no text");
        assert!(e.starts_with("invalid type: sequence"), "{e}");
        let e = input(r#"{"name": {"code": "fr"}}"#).expect_err("no translations");
        assert!(e.starts_with("invalid type: map"), "{e}");
        assert!(input(r#"{"name": {"pt-BR": "x", "zh_Hans": null}}"#).is_ok());
        assert_eq!(input(r#"{"name": 12}"#).expect("a number").name, "12");
        assert_eq!(input(r#"{"note": null}"#).expect("null").note, None);
        assert_eq!(
            input(r#"{"note": true}"#).expect("opt").note.as_deref(),
            Some("true")
        );
        // Left out: the default, and a left-out id is 0.
        assert_eq!(
            input("{}").expect("empty"),
            Input {
                name: String::new(),
                note: None,
                id: 0
            }
        );
        assert_eq!(input(r#"{"id": "7"}"#).expect("an id").id, 7);
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct OptionalId {
        #[serde(default, deserialize_with = "As::<Opt<Num>>::deserialize")]
        id: Option<i64>,
    }

    impl Primary for OptionalId {
        const FIELD: &'static str = "id";
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Options {
        #[serde(deserialize_with = "As::<Seq<Ref>>::deserialize")]
        options: Vec<OptionalId>,
    }

    #[test]
    fn a_single_value_fills_an_optional_primary_field() {
        let o: Options = serde_json::from_str(r#"{"options": [7, "8", {"id": 9}, {}]}"#)
            .expect("ids for records");
        let ids: Vec<Option<i64>> = o.options.iter().map(|r| r.id).collect();
        assert_eq!(ids, [Some(7), Some(8), Some(9), None]);
    }

    #[test]
    fn a_union_keeps_a_value_no_branch_fits_and_sends_it_back() {
        let union = |json: &str| serde_json::from_str::<Union>(json).expect(json);
        assert_eq!(union("7"), Union::Int64(7));
        // A number its branch refuses stays an error.
        assert!(serde_json::from_str::<Union>("1.5").is_err());
        for json in ["true", r#"{"a": [1]}"#, "null", r#""x""#] {
            let value = union(json);
            assert_eq!(
                value,
                Union::Other(serde_json::from_str(json).expect("JSON"))
            );
            assert_eq!(
                serde_json::to_string(&value).expect("sent"),
                json.replace(' ', "")
            );
        }
    }

    #[test]
    fn errors_keep_their_json_path() {
        let path = |json: &str| -> String {
            let de = &mut serde_json::Deserializer::from_str(json);
            let e = serde_path_to_error::deserialize::<_, Outer>(de).expect_err(json);
            e.path().to_string()
        };
        assert_eq!(
            path(r#"{"id": 1, "items": [{}, {"count": "x"}]}"#),
            "items[1].count"
        );
        assert_eq!(
            path(r#"{"id": 1, "items": {"0": {}, "1": {"count": "x"}}}"#),
            "items.1.count"
        );
        assert_eq!(path(r#"{"id": 1, "items": {"count": "x"}}"#), "items.count");
        assert_eq!(
            path(r#"{"id": 1, "inner": [{"count": "x"}]}"#),
            "inner[0].count"
        );
        assert_eq!(path(r#"{"id": 1, "ids": {"a": [1, "x"]}}"#), "ids.a[1]");
        assert_eq!(path(r#"{"id": 1, "ids": [[1, "x"]]}"#), "ids[0][1]");
        let de = &mut serde_json::Deserializer::from_str(r#"{"price": 1, "more": [1, "x"]}"#);
        let e = serde_path_to_error::deserialize::<_, Prices>(de).expect_err("bad amount");
        assert_eq!(e.path().to_string(), "more[1]");
        let de = &mut serde_json::Deserializer::from_str(r#"{"name": "", "on": "maybe"}"#);
        let e = serde_path_to_error::deserialize::<_, Texts>(de).expect_err("bad boolean");
        assert_eq!(e.path().to_string(), "on");
    }
}
