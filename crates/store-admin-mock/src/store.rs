//! The in-memory store: collections of JSON records keyed by the document's collection paths
//! (`/orders`, `/orders/{}/histories`), each record an object whose `id` names it. Records keep
//! what the operations wrote into them; how they are answered is the response schema's business.

use std::collections::{HashMap, HashSet};

use rand::Rng;
use rand::rngs::StdRng;
use serde_json::{Map, Value};

/// One collection's records, oldest first, with an index by id.
#[derive(Debug, Default, Clone)]
pub(crate) struct Records {
    items: Vec<Value>,
    index: HashMap<String, usize>,
}

/// The text of a record's id (integers and strings alike), for lookups.
pub(crate) fn id_text(value: &Value) -> Option<String> {
    match value.get("id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The text of an id value (an integer or a string).
pub(crate) fn id_text_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Records {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Records, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.items.iter()
    }

    /// The record whose `id` is `id`.
    pub fn get(&self, id: &str) -> Option<&Value> {
        self.index.get(id.trim()).and_then(|i| self.items.get(*i))
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Value> {
        let index = *self.index.get(id.trim())?;
        self.items.get_mut(index)
    }

    /// The first record (newest first when `newest`) whose field `field` equals `value` as text.
    pub fn find_by(&self, field: &str, value: &str) -> Option<&Value> {
        self.items.iter().rev().find(|r| match r.get(field) {
            Some(Value::String(s)) => s == value,
            Some(Value::Number(n)) => n.to_string() == value,
            _ => false,
        })
    }

    /// The first record, whatever its id.
    pub fn first_mut(&mut self) -> Option<&mut Value> {
        self.items.first_mut()
    }

    /// Adds a record (replacing one of the same id).
    pub fn insert(&mut self, record: Value) {
        match id_text(&record).and_then(|id| self.index.get(&id).copied()) {
            Some(at) => self.items[at] = record,
            None => {
                if let Some(id) = id_text(&record) {
                    self.index.insert(id, self.items.len());
                }
                self.items.push(record);
            }
        }
    }

    /// Adds `record` as the oldest record (last in a list, newest first).
    pub fn insert_oldest(&mut self, record: Value) {
        self.items.insert(0, record);
        self.reindex();
    }

    /// Removes the record whose `id` is `id`.
    pub fn remove(&mut self, id: &str) -> Option<Value> {
        let at = self.index.remove(id.trim())?;
        let removed = self.items.remove(at);
        self.reindex();
        Some(removed)
    }

    /// Keeps the records `keep` says to keep; returns how many were removed.
    pub fn retain(&mut self, keep: impl FnMut(&Value) -> bool) -> usize {
        let before = self.items.len();
        self.items.retain(keep);
        self.reindex();
        before - self.items.len()
    }

    fn reindex(&mut self) {
        self.index = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, r)| id_text(r).map(|id| (id, i)))
            .collect();
    }
}

/// Everything the mock store holds.
pub(crate) struct Store {
    pub rng: StdRng,
    used_ids: HashSet<i64>,
    pub merchant_id: i64,
    collections: HashMap<String, Records>,
}

impl Store {
    /// A store whose id generator carries on from `rng` and `used_ids`.
    pub fn from_parts(rng: StdRng, used_ids: HashSet<i64>, merchant_id: i64) -> Self {
        Self {
            rng,
            used_ids,
            merchant_id,
            collections: HashMap::new(),
        }
    }

    /// A fresh id: 9 to 10 digits like the service's, never reused.
    pub fn new_id(&mut self) -> i64 {
        loop {
            let id = self.rng.random_range(100_000_000..2_147_483_647_i64);
            if self.used_ids.insert(id) {
                return id;
            }
        }
    }

    /// Marks `id` as used (a record seeded with an id of its own).
    pub fn claim_id(&mut self, id: i64) {
        self.used_ids.insert(id);
    }

    /// The collection `key` (empty when nothing was stored there yet).
    pub fn records(&self, key: &str) -> &Records {
        static EMPTY: std::sync::OnceLock<Records> = std::sync::OnceLock::new();
        self.collections
            .get(key)
            .unwrap_or_else(|| EMPTY.get_or_init(Records::default))
    }

    pub fn records_mut(&mut self, key: &str) -> &mut Records {
        self.collections.entry(key.to_owned()).or_default()
    }

    /// A record of `key` by id.
    pub fn get(&self, key: &str, id: &str) -> Option<&Value> {
        self.records(key).get(id)
    }

    pub fn get_mut(&mut self, key: &str, id: &str) -> Option<&mut Value> {
        self.collections.get_mut(key)?.get_mut(id)
    }

    pub fn insert(&mut self, key: &str, record: Value) {
        if let Some(id) = record.get("id").and_then(Value::as_i64) {
            self.claim_id(id);
        }
        self.records_mut(key).insert(record);
    }
}

impl Store {
    /// What the store holds, as JSON: its records by collection, the ids it gave out and where
    /// its id generator goes on from ([`crate::StoreSnapshot`]).
    pub fn to_snapshot(&self) -> Value {
        let mut keys: Vec<&String> = self.collections.keys().collect();
        keys.sort();
        let collections: Map<String, Value> = keys
            .into_iter()
            .map(|key| {
                (
                    key.clone(),
                    Value::Array(self.collections[key].items.clone()),
                )
            })
            .collect();
        let mut used: Vec<i64> = self.used_ids.iter().copied().collect();
        used.sort_unstable();
        // The generator itself is not kept: a new one is seeded from its next draw, so a store
        // restored twice from the same snapshot gives the same ids.
        let next_seed: u64 = self.rng.clone().random();
        serde_json::json!({
            "merchant_id": self.merchant_id,
            "next_seed": next_seed,
            "used_ids": used,
            "collections": collections,
        })
    }

    /// The store a [`Store::to_snapshot`] value holds; `None` when it is not one.
    pub fn from_snapshot(value: &Value) -> Option<Store> {
        use rand::SeedableRng;
        let merchant_id = value.get("merchant_id")?.as_i64()?;
        let next_seed = value.get("next_seed")?.as_u64()?;
        let used_ids = value
            .get("used_ids")?
            .as_array()?
            .iter()
            .map(Value::as_i64)
            .collect::<Option<HashSet<i64>>>()?;
        let mut store = Store::from_parts(StdRng::seed_from_u64(next_seed), used_ids, merchant_id);
        // A snapshot is a file a user could have edited: what the engine relies on is checked
        // (every record an object, ids strings or numbers and unique in their collection), and
        // the integer ids of its records are never given out again.
        let mut claimed = Vec::new();
        for (key, records) in value.get("collections")?.as_object()? {
            let kept = store.records_mut(key);
            let mut seen = HashSet::new();
            for record in records.as_array()? {
                record.as_object()?;
                match record.get("id") {
                    // Records without an id (a settings record) are kept as they are, in order.
                    None => {}
                    Some(Value::String(_) | Value::Number(_)) => {
                        if !seen.insert(id_text(record)?) {
                            return None;
                        }
                        claimed.extend(record.get("id").and_then(Value::as_i64));
                    }
                    Some(_) => return None,
                }
                kept.items.push(record.clone());
            }
            kept.reindex();
        }
        for id in claimed {
            store.claim_id(id);
        }
        Some(store)
    }
}

/// A finite number, or a string holding one (`"inf"`, `"NaN"` and `"1e999"` are not).
pub(crate) fn value_as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

/// The current time in the store's zone (UTC+3), `YYYY-MM-DD HH:MM:SS`.
pub(crate) fn now_local() -> String {
    (chrono::Utc::now() + chrono::Duration::hours(crate::formats::TIMEZONE_HOURS.into()))
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// A record's object, for in-place changes (a non-object record is replaced by an empty object).
pub(crate) fn object_mut(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("just made an object"),
    }
}
