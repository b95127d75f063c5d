//! The store's first state, deterministic by the seed: the hand-made tables ([`tables`]) for the
//! resources where realistic data matters, then every other collection of the document filled
//! with records generated from its schemas ([`crate::fake`]): a few records per collection
//! (a few per parent for a sub-collection), related ids (`customer_id`, `category: {id}`) naming
//! records that exist. Webhook event names are the document's known values.

pub(crate) mod model;
#[cfg(test)]
mod plausible;
pub(crate) mod reference;
pub(crate) mod tables;

use std::collections::BTreeMap;

use rand::Rng;
use rand::rngs::StdRng;
use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::fake::{Generator, stable_hash};
use crate::store::{Store, id_text, object_mut};

/// Records generated for each collection without a table.
const RECORDS_PER_COLLECTION: usize = 8;
/// Parents given records in a sub-collection, and records under each.
const PARENTS: usize = 4;
const RECORDS_PER_PARENT: usize = 2;

/// The collection of webhook events (their names are the document's known values).
const EVENTS: &str = "/webhooks/events";

/// The whole store for `seed`.
pub(crate) fn store(
    engine: &Engine,
    seed: u64,
    products: usize,
    merchant_id: Option<i64>,
) -> Store {
    let mut store = tables::Tables::seeded(seed, products, merchant_id).into_store();
    let tabled: std::collections::HashSet<String> = engine
        .collections
        .keys()
        .map(|k| engine.real_key(k).to_owned())
        .filter(|k| store.records(k).len() > 0)
        .collect();
    seed_events(engine, &mut store, seed);
    reference::seed(engine, &mut store);
    seed_generated(engine, &mut store, seed);
    reference::documented_records(engine, &mut store, seed, &tabled);
    store
}

/// Per collection, the ids given to its records, each with the parent (collection key and id) it
/// belongs to, if any.
type SeededIds = BTreeMap<String, Vec<(Value, Option<(String, Value)>)>>;

fn label(event: &str) -> String {
    let text = event.replace(['.', '_'], " ");
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn seed_events(engine: &Engine, store: &mut Store, seed: u64) {
    if !engine.collections.contains_key(EVENTS) {
        return;
    }
    let mut rng: StdRng =
        rand::SeedableRng::seed_from_u64(stable_hash(&[&seed.to_string(), EVENTS]));
    for event in crate::events::event_names(engine).into_iter().rev() {
        let id = loop {
            let id = rng.random_range(100_000_000..2_147_483_647_i64);
            if store.get(EVENTS, &id.to_string()).is_none() {
                break id;
            }
        };
        store.insert(
            EVENTS,
            json!({ "id": id, "label": label(&event), "event": event }),
        );
    }
}

/// Fills every collection the tables left empty.
fn seed_generated(engine: &Engine, store: &mut Store, seed: u64) {
    let mut keys: Vec<&String> = engine
        .collections
        .iter()
        .filter(|(key, info)| {
            info.alias_of.is_none()
                && info.embedded.is_none()
                && info.related.is_none()
                && !info.record_schemas.is_empty()
                && store.records(key).len() == 0
        })
        .map(|(key, _)| key)
        .collect();
    // Parents before their children.
    keys.sort_by_key(|k| (k.matches("{}").count(), (*k).clone()));
    // First every id, so that records can name records of collections filled after them.
    let mut ids: SeededIds = BTreeMap::new();
    for key in &keys {
        let info = &engine.collections[*key];
        let mut rng: StdRng =
            rand::SeedableRng::seed_from_u64(stable_hash(&[&seed.to_string(), key]));
        let string_ids = info.record_schemas.iter().any(|s| {
            engine
                .doc
                .view(s)
                .property("id")
                .is_some_and(|id| engine.doc.view(id).kind() == Some("string"))
        });
        let partition = partition(engine, key, store, &ids);
        let parents: Vec<Option<(String, Value)>> = match &info.parent {
            None if partition.is_some() => {
                let (field, values) = partition.unwrap_or_default();
                values
                    .into_iter()
                    .flat_map(|v| std::iter::repeat_n(Some((field.clone(), v)), RECORDS_PER_PARENT))
                    .collect()
            }
            None => vec![
                None;
                if info.singleton {
                    1
                } else {
                    RECORDS_PER_COLLECTION
                }
            ],
            Some((parent, _)) => {
                let real = engine.real_key(parent);
                let parent_ids: Vec<Value> = store
                    .records(real)
                    .iter()
                    .rev()
                    .filter_map(|r| r.get("id").cloned())
                    .chain(
                        ids.get(real)
                            .into_iter()
                            .flatten()
                            .map(|(id, _)| id.clone()),
                    )
                    .take(PARENTS)
                    .collect();
                let param = info
                    .parent
                    .as_ref()
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default();
                parent_ids
                    .into_iter()
                    .flat_map(|p| std::iter::repeat_n(Some((param.clone(), p)), RECORDS_PER_PARENT))
                    .collect()
            }
        };
        let mut list = Vec::new();
        for parent in parents {
            let id = loop {
                let id = rng.random_range(100_000_000..2_147_483_647_i64);
                if store.records(key).get(&id.to_string()).is_none() {
                    store.claim_id(id);
                    break id;
                }
            };
            let id = if string_ids {
                Value::from(format!("{id}"))
            } else {
                Value::from(id)
            };
            list.push((id, parent));
        }
        ids.insert((*key).clone(), list);
    }
    // Existing ids of every top-level collection, tables and generated alike.
    let mut pool: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for key in engine.collections.keys() {
        let real = engine.real_key(key).to_owned();
        let mut all: Vec<Value> = store
            .records(&real)
            .iter()
            .filter_map(|r| r.get("id").cloned())
            .collect();
        all.extend(
            ids.get(&real)
                .into_iter()
                .flatten()
                .map(|(id, _)| id.clone()),
        );
        pool.insert(real, all);
    }
    let related = |field: &str, rng: &mut StdRng| -> Option<Value> {
        let info = engine.collection_for_field(field)?;
        let ids = pool.get(engine.real_key(&info.key))?;
        (!ids.is_empty()).then(|| ids[rng.random_range(0..ids.len())].clone())
    };
    for key in keys {
        let info = &engine.collections[key];
        let Some(list) = ids.get(key) else {
            continue;
        };
        for (serial, (id, parent)) in list.iter().enumerate() {
            let record_seed = stable_hash(&[&seed.to_string(), key, &id.to_string()]);
            let subject = format!("{} {}", info.name, info.record_types.join(" "));
            let mut generator = Generator::new(&engine.doc, record_seed, serial as u64 + 1)
                .with_related(&related)
                .about(&subject);
            let mut record = Value::Object(Map::new());
            for schema in &info.record_schemas {
                let more = generator.object(schema, 0);
                let map = object_mut(&mut record);
                for (name, value) in more.as_object().into_iter().flatten() {
                    map.entry(name.clone()).or_insert_with(|| value.clone());
                }
            }
            let map = object_mut(&mut record);
            map.insert("id".into(), id.clone());
            if let Some((field, parent)) = parent {
                map.insert(field.clone(), parent.clone());
            }
            // One value per field for every view of the collection (a field two schemas
            // declare differently is made to fit both), so that reads generate nothing.
            crate::engine::complete::complete(
                &engine.doc,
                &info.record_schemas,
                &mut record,
                record_seed,
                serial as u64 + 1,
            );
            // Everything but the id and the parent was generated: made to agree (an end after
            // its start, amounts that add up, an email of the person's name).
            let mut given = json!({ "id": id });
            if let Some((field, parent)) = parent {
                object_mut(&mut given).insert(field.clone(), parent.clone());
            }
            crate::engine::complete::harmonize(&mut record, &given, record_seed);
            let map = object_mut(&mut record);
            if info.singleton {
                map.remove("id");
                map.insert("__singleton".into(), Value::Bool(true));
            }
            store.insert(key, record);
        }
    }
    // What a record says of the records it names agrees with them (`country` with
    // `country_id`), now that every collection holds its records.
    for key in ids.keys() {
        let schemas = &engine.collections[key].record_schemas;
        let record_ids: Vec<String> = store.records(key).iter().filter_map(id_text).collect();
        for id in record_ids {
            let Some(mut record) = store.get(key, &id).cloned() else {
                continue;
            };
            crate::engine::crud::agree_with_named(
                engine,
                store,
                schemas,
                &mut record,
                &Value::Null,
            );
            if let Some(stored) = store.get_mut(key, &id) {
                *stored = record;
            }
        }
    }
    link_tables(engine, store, seed);
}

/// The field a top-level collection's records are partitioned by, and its values: a list that
/// filters by a `<thing>_id` query parameter naming another collection (`GET /orders/items?order_id=`)
/// holds records of some of those things (the lines of a few orders), and a list whose query
/// must name one of an `enum` (`GET /settings?entity=products`) holds records of each value.
fn partition(
    engine: &Engine,
    key: &str,
    store: &Store,
    ids: &SeededIds,
) -> Option<(String, Vec<Value>)> {
    let list = engine
        .doc
        .operations
        .iter()
        .zip(&engine.plans)
        .find(|(_, plan)| {
            plan.action == crate::engine::Action::List && plan.collection.as_deref() == Some(key)
        })
        .map(|(op, _)| op)?;
    for param in list
        .params
        .iter()
        .filter(|p| p.location == crate::document::Location::Query)
    {
        let name = param.name.as_str();
        if name.ends_with("_id")
            && let Some(target) = engine.collection_for_field(name)
            && target.key != key
        {
            let real = engine.real_key(&target.key);
            let values: Vec<Value> = store
                .records(real)
                .iter()
                .rev()
                .filter_map(|r| r.get("id").cloned())
                .chain(
                    ids.get(real)
                        .into_iter()
                        .flatten()
                        .map(|(id, _)| id.clone()),
                )
                .take(PARENTS)
                .collect();
            if !values.is_empty() {
                return Some((name.to_owned(), values));
            }
        }
        let view = engine.doc.view(&param.schema);
        if param.required
            && let Some(values) = view.keyword("enum").and_then(Value::as_array)
            && !values.is_empty()
        {
            return Some((name.to_owned(), values.clone()));
        }
    }
    None
}

/// Makes the fields of the table records that hold the ids of the records a sub-collection lists
/// (an order's `assign_employee`, the employees `/orders/assignment/{order_id}` lists: see
/// [`crate::engine::infer::Related::held`]) name records that exist.
fn link_held(engine: &Engine, store: &mut Store, seed: u64) {
    let mut held: Vec<(String, String, String)> = engine
        .collections
        .values()
        .filter_map(|info| {
            let related = info.related.as_ref().filter(|r| r.held)?;
            let (parent, _) = info.parent.as_ref()?;
            Some((
                engine.real_key(parent).to_owned(),
                related.field.clone(),
                engine.real_key(&related.source).to_owned(),
            ))
        })
        .collect();
    held.sort();
    for (key, field, source) in held {
        let ids: Vec<i64> = store
            .records(&source)
            .iter()
            .filter_map(|r| r.get("id").and_then(Value::as_i64))
            .collect();
        let record_ids: Vec<String> = store.records(&key).iter().filter_map(id_text).collect();
        for record_id in record_ids {
            let Some(record) = store.get_mut(&key, &record_id) else {
                continue;
            };
            let map = object_mut(record);
            let Some(Value::Array(named)) = map.get(&field) else {
                continue;
            };
            if ids.is_empty() {
                map.insert(field.clone(), Value::Array(Vec::new()));
                continue;
            }
            let mut linked: Vec<i64> = Vec::new();
            for (at, value) in named.iter().enumerate() {
                let id = value
                    .as_i64()
                    .filter(|id| ids.contains(id))
                    .unwrap_or_else(|| {
                        let pick =
                            stable_hash(&[&seed.to_string(), &record_id, &field, &at.to_string()]);
                        ids[pick as usize % ids.len()]
                    });
                if !linked.contains(&id) {
                    linked.push(id);
                }
            }
            map.insert(field.clone(), Value::from(linked));
        }
    }
}

/// Makes `<thing>_id` fields of the table records name records that exist, where the document
/// has a collection of those things (an order's `customer_id` names a customer).
fn link_tables(engine: &Engine, store: &mut Store, seed: u64) {
    link_held(engine, store, seed);
    for key in [tables::keys::ORDERS, tables::keys::SHIPMENTS] {
        let fields: Vec<(String, Vec<String>)> = {
            let Some(first) = store.records(key).iter().next() else {
                continue;
            };
            first
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(name, value)| name.ends_with("_id") && value.is_i64())
                .filter_map(|(name, _)| {
                    let info = engine.collection_for_field(name)?;
                    let ids: Vec<String> = store
                        .records(engine.real_key(&info.key))
                        .iter()
                        .filter_map(id_text)
                        .collect();
                    (!ids.is_empty()).then(|| (name.clone(), ids))
                })
                .collect()
        };
        if fields.is_empty() {
            continue;
        }
        // A `<thing>_id` whose `<thing>` the collection's records declare as an object (an
        // order's `customer`): the record named, as the store holds it, so that every read
        // shows the same customer as the customers list.
        let declared = |thing: &str| {
            engine.collections.get(key).is_some_and(|info| {
                info.record_schemas.iter().any(|schema| {
                    engine
                        .doc
                        .view(schema)
                        .property(thing)
                        .is_some_and(|p| engine.doc.view(p).kind() == Some("object"))
                })
            })
        };
        let embeds: Vec<(String, String, String)> = fields
            .iter()
            .filter_map(|(field, _)| {
                let thing = field.strip_suffix("_id")?;
                let info = engine.collection_for_field(field)?;
                declared(thing).then(|| {
                    (
                        field.clone(),
                        thing.to_owned(),
                        engine.real_key(&info.key).to_owned(),
                    )
                })
            })
            .collect();
        let record_ids: Vec<String> = store.records(key).iter().filter_map(id_text).collect();
        for record_id in record_ids {
            let mut linked: Vec<(String, Value)> = Vec::new();
            {
                let Some(record) = store.get_mut(key, &record_id) else {
                    continue;
                };
                let map = object_mut(record);
                for (field, ids) in &fields {
                    let current = map.get(field).and_then(crate::store::id_text_value);
                    if current.as_ref().is_some_and(|c| ids.contains(c)) {
                        continue;
                    }
                    let pick =
                        stable_hash(&[&seed.to_string(), &record_id, field]) as usize % ids.len();
                    if let Ok(id) = ids[pick].parse::<i64>() {
                        map.insert(field.clone(), Value::from(id));
                    }
                }
                for (field, thing, _) in &embeds {
                    if let Some(id) = map.get(field).and_then(crate::store::id_text_value)
                        && !map.get(thing).is_some_and(Value::is_object)
                    {
                        linked.push((thing.clone(), Value::from(id)));
                    }
                }
            }
            for (thing, id) in linked {
                let Some((_, _, target)) = embeds.iter().find(|(_, t, _)| *t == thing) else {
                    continue;
                };
                let Some(named) = id
                    .as_str()
                    .and_then(|id| store.get(target, id))
                    .map(crate::shape::strip_hidden)
                else {
                    continue;
                };
                if let Some(record) = store.get_mut(key, &record_id) {
                    object_mut(record).insert(thing, named);
                }
            }
        }
    }
}
