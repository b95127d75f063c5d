//! Tolerant decoding: the service is a PHP application, and its JSON says so.
//!
//! An empty object may arrive as an empty array (`[]`) wherever an object is expected (a record,
//! a map of headers, an options object, `links`), and integers and numbers may arrive as their
//! decimal strings (`"42"`, `"10.70"`). `cargo xtask generate` gives every field of every
//! generated type whose type holds a number or an object a
//! `#[serde(deserialize_with = "lenient::As::<adapter>::deserialize")]`, the adapter following the
//! field's type: [`Num`] for a number, [`Obj`] for a record, [`Map`] for a map, [`Opt`], [`Seq`]
//! and [`Boxed`] around them, [`Same`] for what needs nothing. That is the one mechanism: no
//! schema of the document is special-cased, and serialization is unchanged (the attribute is on
//! deserialization only).
//!
//! What is accepted, beside what the type itself accepts:
//! - at a record or map position, `[]` decodes exactly as `{}` would (a record whose fields are
//!   all optional, an empty map); a non-empty array there is an error;
//! - at a number position, a string holding the number (`"42"`, `" 7 "`, `"10.70"` for a float),
//!   parsed by the type's `FromStr`; other strings, `true` or `{}` stay errors that name the
//!   expected type.
//!
//! The adapters decode in one pass, without buffering: what costs nothing on a well-formed body.
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
//! struct Item {
//!     #[serde(deserialize_with = "lenient::As::<lenient::Num>::deserialize")]
//!     id: i64,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Obj>::deserialize")]
//!     options: Options,
//!     #[serde(deserialize_with = "lenient::As::<lenient::Map<lenient::Same>>::deserialize")]
//!     headers: std::collections::BTreeMap<String, String>,
//! }
//!
//! let item: Item = serde_json::from_str(r#"{"id": "42", "options": [], "headers": []}"#).unwrap();
//! assert_eq!(item.id, 42);
//! assert_eq!(item.options, Options::default());
//! assert!(item.headers.is_empty());
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, Visitor,
};

/// How a value of type `T` decodes, tolerantly (the adapters below).
pub trait DeserializeAs<'de, T>: Sized {
    /// Decodes a `T`.
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;
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
/// through `A`.
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
                A::deserialize_as(d).map(Some)
            }
        }
        deserializer.deserialize_option(OptVisitor::<T, A>(PhantomData))
    }
}

/// `Box<T>` (typify's way to break a recursive type) through `A`.
pub struct Boxed<A>(PhantomData<A>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeAs<'de, Box<T>> for Boxed<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Box<T>, D::Error> {
        A::deserialize_as(deserializer).map(Box::new)
    }
}

/// One element, map value or field through `A`.
struct Seed<T, A>(PhantomData<(T, A)>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeSeed<'de> for Seed<T, A> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        A::deserialize_as(deserializer)
    }
}

/// An array, each item through `A`.
pub struct Seq<A>(PhantomData<A>);

impl<'de, T, A: DeserializeAs<'de, T>> DeserializeAs<'de, Vec<T>> for Seq<A> {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
        struct SeqVisitor<T, A>(PhantomData<(T, A)>);
        impl<'de, T, A: DeserializeAs<'de, T>> Visitor<'de> for SeqVisitor<T, A> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Vec<T>, S::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(item) = seq.next_element_seed(Seed::<T, A>(PhantomData))? {
                    out.push(item);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_seq(SeqVisitor::<T, A>(PhantomData))
    }
}

/// A map (`BTreeMap`, or `serde_json::Map` of a free-form object), each value through `A`; `[]`
/// is the empty map.
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
                f.write_str("a map (or [] for an empty one)")
            }
            fn visit_map<V: MapAccess<'de>>(self, mut map: V) -> Result<M, V::Error> {
                let mut out = M::default();
                while let Some(key) = map.next_key::<M::Key>()? {
                    let value = map.next_value_seed(Seed::<M::Value, A>(PhantomData))?;
                    out.insert_entry(key, value);
                }
                Ok(out)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<M, S::Error> {
                match seq.next_element::<IgnoredAny>()? {
                    None => Ok(M::default()),
                    Some(_) => Err(de::Error::invalid_type(Unexpected::Seq, &self)),
                }
            }
        }
        deserializer.deserialize_any(MapVisitor::<M, A>(PhantomData))
    }
}

/// A record (a generated struct): `[]` decodes as `{}`; anything else reaches the type as it is.
pub struct Obj;

impl<'de, T: Deserialize<'de>> DeserializeAs<'de, T> for Obj {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        deserializer.deserialize_any(ObjVisitor::<T>(PhantomData))
    }
}

struct ObjVisitor<T>(PhantomData<T>);

/// Hands what was read to `T`'s own `Deserialize`, so that its errors read as they always did.
impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<V: MapAccess<'de>>(self, map: V) -> Result<T, V::Error> {
        T::deserialize(MapAccessDeserializer::new(map))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<T, S::Error> {
        // `[]` is the empty object; a non-empty array is no object.
        match seq.next_element::<IgnoredAny>()? {
            None => T::deserialize(MapAccessDeserializer::new(EmptyMap(PhantomData))),
            Some(_) => Err(de::Error::invalid_type(Unexpected::Seq, &self)),
        }
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::deserialize(v.into_deserializer())
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        T::deserialize(().into_deserializer())
    }
    fn visit_none<E: de::Error>(self) -> Result<T, E> {
        T::deserialize(().into_deserializer())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
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

/// A number: as a JSON number, or as a string holding one (parsed by the type's `FromStr`).
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
        v.trim().parse::<T>().map_err(|e| {
            de::Error::custom(format_args!(
                "invalid number in a string: {v:?} ({e}), expected {}",
                Expected(&self)
            ))
        })
    }
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

    use serde::Deserialize;

    use super::*;

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
        let e = outer(r#"{"id": true}"#).expect_err("a boolean");
        assert!(
            e.starts_with("invalid type: boolean `true`, expected i64"),
            "{e}"
        );
        let e = outer(r#"{"id": 1.5}"#).expect_err("a float for an integer");
        assert!(
            e.starts_with("invalid type: floating point `1.5`, expected i64"),
            "{e}"
        );
        let e = outer(r#"{"id": "-1", "ids": {"a": ["-1"]}}"#).expect_err("negative u64");
        assert!(e.contains("invalid number in a string: \"-1\""), "{e}");
        let e = outer(r#"{"id": 1, "ids": [1]}"#).expect_err("a non-empty array for a map");
        assert!(
            e.starts_with("invalid type: sequence, expected a map"),
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
    }

    #[test]
    fn errors_keep_their_json_path() {
        let de =
            &mut serde_json::Deserializer::from_str(r#"{"id": 1, "items": [{}, {"count": "x"}]}"#);
        let e = serde_path_to_error::deserialize::<_, Outer>(de).expect_err("bad count");
        assert_eq!(e.path().to_string(), "items[1].count");
    }
}
