//! The generic semantics of an operation without an override, by what [`super::infer`] found:
//!
//! - **list**: the collection's records, newest first (a sub-collection's: those of its parent,
//!   which must exist), filtered, sorted and paged by the query;
//! - **details**: the record, or 404 in the error envelope;
//! - **create**: the validated body stored as a new record with a new id (fields the document
//!   declares for the record, a flattened `metadata_title` into `metadata.title`, the rest of the
//!   record generated from its schema); a `<thing>_id` field naming a record of another collection
//!   that does not exist is a 422 on that field; a full collection is a 422;
//! - **update**: the body merged into the record; **delete**: the record removed, 202 with the
//!   confirmation message (the record is 404 after);
//! - **item action**: `GET` answers the record as the operation's schema shapes it; a change
//!   merges the body's declared fields into it;
//! - **singleton**: one record, generated on first read, changed by `PUT`;
//! - **command**: a record created in the collection whose component it answers, or the body
//!   answered through the operation's schema.
//!
//! Creations, updates and deletions emit `<thing>.created`, `.updated` and `.deleted` events to
//! subscribed webhooks.

use axum::http::Method;
use serde_json::{Map, Value};

use super::{Action, Call, Engine, singular};
use crate::error::{ApiError, collection_full, selected_invalid};
use crate::fake::stable_hash;
use crate::respond::{Handled, Reply, deleted_message};
use crate::store::{Store, id_text, now_local, object_mut};

/// Serves `call` by its plan (a collection of its own; [`super::generic`] sends those embedded in
/// a record to [`super::embedded`]).
pub(crate) fn generic(call: &Call<'_>) -> Handled {
    match &call.plan.action {
        Action::List => list(call),
        Action::Create => create(call, call.plan.collection.as_deref()),
        Action::Details => details(call),
        Action::Update => update(call),
        Action::Delete => delete(call),
        Action::OnItem => on_item(call),
        Action::Singleton => singleton(call),
        Action::Command(Some(key)) => create(call, Some(key)),
        Action::Command(None) => command(call),
    }
}

/// The key of the collection the call works on, and the collection holding its records.
fn keys<'a>(call: &'a Call<'_>) -> Result<(&'a str, &'a str), ApiError> {
    let key = call
        .plan
        .collection
        .as_deref()
        .ok_or_else(ApiError::not_found)?;
    Ok((key, call.engine.real_key(key)))
}

/// Checks that the parent record of a sub-collection exists; returns the parent's field and id.
fn parent<'a>(
    call: &'a Call<'_>,
    store: &Store,
    key: &str,
) -> Result<Option<(&'a str, &'a str)>, ApiError> {
    let Some((parent_key, param)) = call
        .engine
        .collections
        .get(key)
        .and_then(|c| c.parent.as_ref())
    else {
        return Ok(None);
    };
    let Some(id) = call.param(param) else {
        return Ok(None);
    };
    let real = call.engine.real_key(parent_key);
    let known = call.engine.collections.contains_key(parent_key) || store.records(real).len() > 0;
    if known && find_id(store, real, param, id).is_none() {
        return Err(ApiError::not_found());
    }
    let param = call
        .engine
        .collections
        .get(key)
        .and_then(|c| c.parent.as_ref())
        .map(|(_, p)| p.as_str())
        .unwrap_or_default();
    Ok(Some((param, id)))
}

fn same_id(value: Option<&Value>, id: &str) -> bool {
    match value {
        Some(Value::Number(n)) => n.to_string() == id.trim(),
        Some(Value::String(s)) => s == id,
        _ => false,
    }
}

/// Whether `value` (an id, an array of ids, an object with an `id` or an array of them) names
/// record `id`.
fn links_to(value: &Value, id: &str) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|item| links_to(item, id)),
        Value::Object(map) => map.get("id").is_some_and(|v| links_to(v, id)),
        other => same_id(Some(other), id),
    }
}

/// The ids `value` names (an id, an array of ids, an object with an `id` or an array of them),
/// each once.
fn held_ids(value: Option<&Value>, out: &mut Vec<String>) {
    match value {
        Some(Value::Array(items)) => items.iter().for_each(|item| held_ids(Some(item), out)),
        Some(Value::Object(map)) => held_ids(map.get("id"), out),
        Some(other) => {
            if let Some(id) = crate::store::id_text_value(other)
                && !out.contains(&id)
            {
                out.push(id);
            }
        }
        None => {}
    }
}

/// A read-only sub-collection of another collection's records that name the parent (see
/// [`super::infer::Related`]).
fn list_related(call: &Call<'_>, related: &super::infer::Related) -> Handled {
    let (key, _) = keys(call)?;
    let store = call.state.read();
    let Some((_, id)) = parent(call, &store, key)? else {
        return Err(ApiError::not_found());
    };
    let real = call.engine.real_key(&related.source);
    let records: Vec<&Value> = if related.held {
        // The records the parent's field names, in its order (an id the store does not hold
        // names nothing).
        let parent = call
            .engine
            .collections
            .get(key)
            .and_then(|c| c.parent.as_ref())
            .map(|(parent, param)| (call.engine.real_key(parent), param.as_str()))
            .and_then(|(parent, param)| store.get(parent, &find_id(&store, parent, param, id)?))
            .ok_or_else(ApiError::not_found)?;
        let mut named = Vec::new();
        held_ids(parent.get(&related.field), &mut named);
        named.iter().filter_map(|id| store.get(real, id)).collect()
    } else {
        store
            .records(real)
            .iter()
            .rev()
            .filter(|r| r.get(&related.field).is_some_and(|v| links_to(v, id)))
            .collect()
    };
    let children = call
        .engine
        .collections
        .get(real)
        .and_then(|c| c.children_field.as_deref());
    match children {
        Some(field) => {
            let filled: Vec<Value> = records
                .into_iter()
                .map(|r| with_children(&store, real, field, r))
                .collect();
            Ok(Reply::Response(
                call.engine.list_response(call, filled.iter().collect()),
            ))
        }
        None => Ok(Reply::Response(call.engine.list_response(call, records))),
    }
}

/// `record` with its array `field` holding the records of `real` whose `parent_id` names it
/// (each with its own, a few levels deep).
fn with_children(store: &Store, real: &str, field: &str, record: &Value) -> Value {
    fn fill(store: &Store, real: &str, field: &str, record: &Value, depth: usize) -> Value {
        let mut record = record.clone();
        let Some(id) = id_text(&record) else {
            return record;
        };
        let children: Vec<Value> = if depth < 4 {
            store
                .records(real)
                .iter()
                .filter(|r| r.get("parent_id").is_some_and(|p| same_id(Some(p), &id)))
                .map(|r| fill(store, real, field, r, depth + 1))
                .collect()
        } else {
            Vec::new()
        };
        object_mut(&mut record).insert(field.to_owned(), Value::Array(children));
        record
    }
    fill(store, real, field, record, 0)
}

fn list(call: &Call<'_>) -> Handled {
    let (key, real) = keys(call)?;
    if let Some(related) = call
        .engine
        .collections
        .get(key)
        .and_then(|c| c.related.as_ref())
    {
        return list_related(call, related);
    }
    let store = call.state.read();
    let parent = parent(call, &store, key)?;
    if let Some(field) = call
        .engine
        .collections
        .get(real)
        .and_then(|c| c.children_field.as_deref())
    {
        let filled: Vec<Value> = store
            .records(real)
            .iter()
            .rev()
            .filter(|r| {
                parent.is_none_or(|(field, id)| r.get(field).is_none() || same_id(r.get(field), id))
            })
            .map(|r| with_children(&store, real, field, r))
            .collect();
        return Ok(Reply::Response(
            call.engine.list_response(call, filled.iter().collect()),
        ));
    }
    let records: Vec<&Value> = store
        .records(real)
        .iter()
        .rev()
        .filter(|r| {
            parent.is_none_or(|(field, id)| r.get(field).is_none() || same_id(r.get(field), id))
        })
        .collect();
    Ok(Reply::Response(call.engine.list_response(call, records)))
}

/// The id of the record an item path names in collection `real`: by `id`, else by a field of
/// the parameter's name (`/products/sku/{sku}`), else by `slug`.
pub(crate) fn find_id(store: &Store, real: &str, param: &str, value: &str) -> Option<String> {
    let records = store.records(real);
    if records.get(value).is_some() {
        return Some(value.trim().to_owned());
    }
    [param, "slug", "code"]
        .iter()
        .find_map(|field| records.find_by(field, value))
        .and_then(id_text)
}

fn item_id(
    call: &Call<'_>,
    store: &Store,
    real: &str,
    position_from_end: usize,
) -> Result<String, ApiError> {
    let (param, value) = call
        .params
        .iter()
        .rev()
        .nth(position_from_end)
        .ok_or_else(ApiError::not_found)?;
    find_id(store, real, param, value).ok_or_else(ApiError::not_found)
}

fn details(call: &Call<'_>) -> Handled {
    let (_, real) = keys(call)?;
    let store = call.state.read();
    let id = item_id(call, &store, real, 0)?;
    let record = store.get(real, &id).ok_or_else(ApiError::not_found)?;
    let children = call
        .engine
        .collections
        .get(real)
        .and_then(|c| c.children_field.as_deref());
    Ok(Reply::Data(match children {
        Some(field) => with_children(&store, real, field, record),
        None => record.clone(),
    }))
}

/// The record schemas of a collection (every operation's view of its records).
fn record_schemas<'a>(call: &'a Call<'_>, key: &str) -> Vec<&'a Value> {
    let engine: &Engine = call.engine;
    let mut schemas: Vec<&Value> = Vec::new();
    for k in [key, engine.real_key(key)] {
        if let Some(info) = engine.collections.get(k) {
            schemas.extend(info.record_schemas.iter());
        }
    }
    schemas
}

/// The body's fields as the record holds them: declared fields as they are, `a_b` into `a.b` when
/// the record has an object `a` with a `b`, undeclared fields dropped (all kept when the record
/// has no declared schema).
pub(super) fn record_fields(call: &Call<'_>, key: &str) -> Map<String, Value> {
    let doc = &call.engine.doc;
    let schemas = record_schemas(call, key);
    let mut body = call.body_object();
    // What a write sends in its query (`POST /products/tags?tag_name=X`) is sent too.
    for param in call
        .op
        .params
        .iter()
        .filter(|p| p.location == crate::document::Location::Query)
    {
        if let Some(value) = call.query.one(&param.name)
            && !body.contains_key(&param.name)
        {
            body.insert(param.name.clone(), Value::from(value));
        }
    }
    if schemas.is_empty() {
        return body;
    }
    let declares = |name: &str| schemas.iter().any(|s| doc.view(s).property(name).is_some());
    // A field named after the record's thing (`product_type` of a product, `tag_name` of a tag)
    // is the record's field without it (`type`, `name`), unless the record declares it as it is.
    // The thing's last word counts too (`file_name` of a digital file is its `name`).
    let thing = call
        .engine
        .collections
        .get(key)
        .map(|c| singular(&c.name).replace('-', "_"))
        .unwrap_or_default();
    let last_word = thing.rsplit('_').next().unwrap_or_default();
    let prefixes = [format!("{thing}_"), format!("{last_word}_")];
    let mut out = Map::new();
    for (name, value) in body {
        let stripped = prefixes
            .iter()
            .filter(|p| p.len() > 1)
            .find_map(|p| name.strip_prefix(p.as_str()))
            .filter(|rest| !declares(&name) && declares(rest))
            .map(str::to_owned);
        let name = stripped.unwrap_or(name);
        // A form's nested field (`translations[en][name]`), as Laravel reads nested form data:
        // into the record's object `translations` (`{"en": {"name": ...}}`).
        if let Some(path) = bracketed(&name)
            && !declares(&name)
            && declares(&path[0])
        {
            let mut at = out
                .entry(path[0].clone())
                .or_insert_with(|| Value::Object(Map::new()));
            for key in &path[1..path.len() - 1] {
                at = object_mut(at)
                    .entry(key.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
            }
            object_mut(at).insert(path[path.len() - 1].clone(), value);
            continue;
        }
        let declared = declares(&name);
        // A link to another record (`order_id` of an order's line) is kept even where the
        // record's answers do not show it: the lists filter by it.
        if declared || name.ends_with("_id") {
            out.insert(name, value);
            continue;
        }
        if let Some((outer, inner)) = name.split_once('_') {
            let nested = schemas.iter().any(|s| {
                doc.view(s)
                    .property(outer)
                    .is_some_and(|o| doc.view(o).property(inner).is_some())
            });
            if nested {
                let entry = out
                    .entry(outer.to_owned())
                    .or_insert_with(|| Value::Object(Map::new()));
                object_mut(entry).insert(inner.to_owned(), value);
            }
        }
    }
    out
}

/// What a record that is an uploaded file (its records declare no field of the form's file
/// part, as a brand declares its `logo`) says of the file, where its records declare it and the
/// form did not send it: its `size` (the file's bytes) and its `url` (where the store keeps it),
/// as the service answers an attached digital file (`{name, url, size}`).
pub(super) fn upload_fields(call: &Call<'_>, key: &str, record: &mut Value) {
    let Some((part, bytes)) = call.files.first() else {
        return;
    };
    if declares(call, key, part) {
        return;
    }
    let id = id_text(record).unwrap_or_default();
    let map = object_mut(record);
    if declares(call, key, "size") && !map.contains_key("size") {
        map.insert("size".into(), Value::from(bytes.len()));
    }
    if declares(call, key, "url") && !map.contains_key("url") {
        map.insert(
            "url".into(),
            Value::from(format!("https://cdn.example/uploads/{id}")),
        );
    }
}

/// The keys of a bracketed form field name (`translations[en][name]`: `translations`, `en`,
/// `name`), `None` for a name that is not one.
fn bracketed(name: &str) -> Option<Vec<String>> {
    let (first, mut rest) = name.split_once('[')?;
    let mut keys = vec![first.to_owned()];
    while !rest.is_empty() {
        let (key, after) = rest.split_once(']')?;
        if key.is_empty() || key.contains('[') {
            return None;
        }
        keys.push(key.to_owned());
        rest = match after.strip_prefix('[') {
            Some(next) => next,
            None if after.is_empty() => after,
            None => return None,
        };
    }
    (!first.is_empty() && keys.len() > 1).then_some(keys)
}

/// 422s for `<thing>_id` fields of the body naming records that do not exist.
fn check_related(call: &Call<'_>, store: &Store, key: &str) -> Result<(), ApiError> {
    let mut errors = crate::error::FieldErrors::new();
    let own = call.engine.real_key(key);
    for (field, value) in call.body_object() {
        let Some(id) = crate::store::id_text_value(&value) else {
            continue;
        };
        if id == "0" || !field.ends_with("_id") {
            continue;
        }
        let target = if field == "parent_id" {
            Some(own.to_owned())
        } else {
            call.engine
                .collection_for_field(&field)
                .map(|c| c.key.clone())
        };
        let Some(target) = target else {
            continue;
        };
        let records = store.records(call.engine.real_key(&target));
        if records.len() > 0 && records.get(&id).is_none() {
            errors.add(&field, selected_invalid(&field.replace('_', " ")));
        }
    }
    errors.finish()
}

/// Whether the records of collection `key` declare field `field`.
pub(super) fn declares(call: &Call<'_>, key: &str, field: &str) -> bool {
    let doc = &call.engine.doc;
    record_schemas(call, key)
        .iter()
        .any(|s| doc.view(s).property(field).is_some())
}

/// Whether the record's `id` is a string in the document (else an integer).
pub(super) fn string_ids(call: &Call<'_>, key: &str) -> bool {
    let doc = &call.engine.doc;
    record_schemas(call, key).iter().any(|s| {
        doc.view(s)
            .property("id")
            .is_some_and(|id| doc.view(id).kind() == Some("string"))
    })
}

fn create(call: &Call<'_>, key: Option<&str>) -> Handled {
    let key = key.ok_or_else(ApiError::not_found)?;
    let real = call.engine.real_key(key).to_owned();
    let mut store = call.state.write();
    let parent = parent(call, &store, key)?.map(|(f, id)| (f.to_owned(), id.to_owned()));
    check_related(call, &store, key)?;
    let cap = call.state.limits.collection_records;
    if store.records(&real).len() >= cap {
        return Err(ApiError::unprocessable("body", collection_full(cap)));
    }
    let id = store.new_id();
    let id_value = if string_ids(call, key) {
        Value::from(id.to_string())
    } else {
        Value::from(id)
    };
    let mut record = Value::Object(Map::new());
    let map = object_mut(&mut record);
    for (name, value) in record_fields(call, key) {
        map.insert(name, value);
    }
    map.insert("id".into(), id_value);
    if let Some((field, parent_id)) = parent {
        let value = parent_id
            .parse::<i64>()
            .map_or_else(|_| Value::from(parent_id.clone()), Value::from);
        map.insert(field, value);
    }
    upload_fields(call, key, &mut record);
    // What was not sent and a view of the record needs: filled once, now (not per read).
    complete_record(call, key, &mut record);
    agree_record(call, &store, key, &mut record);
    stamp_new(call, key, &mut record);
    store.insert(&real, record.clone());
    drop(store);
    emit(call, &real, "created", &record);
    Ok(Reply::Data(record))
}

/// Makes what `record` says of the records it names agree with them, at every depth: where an
/// object holds a `<thing>_id` of the `<thing>` collection (`country_id`, an order's
/// `customer_id`) beside a `<thing>` text that is the `name` of one of its records, and the id
/// was not sent (`sent` holds what a write sent, at the same places), the id becomes that
/// record's (a generated customer's `country_id` is the country its `country` names); else, where
/// the id names a record, its `<thing>` is that record where it holds an object, the record's
/// `name` where it holds a text or a number (at the top, where it holds nothing, as `schemas`
/// declare it: an order's `customer` object, a tax rate's `country` text); and its
/// `<thing>_code` is the record's `code`. Writes and the seed alike, so that
/// `country_id` and `country` tell one country.
pub(crate) fn agree_with_named(
    engine: &Engine,
    store: &Store,
    schemas: &[Value],
    record: &mut Value,
    sent: &Value,
) {
    let declared = |thing: &str| {
        schemas.iter().find_map(|schema| {
            let property = engine.doc.view(schema).property(thing)?;
            engine.doc.view(property).kind().map(str::to_owned)
        })
    };
    agree_at(engine, store, &declared, record, Some(sent), 0);
}

/// The type the record schemas declare for a top-level field (`object`, `string`...).
type Declared<'a> = dyn Fn(&str) -> Option<String> + 'a;

fn agree_at(
    engine: &Engine,
    store: &Store,
    declared: &Declared<'_>,
    value: &mut Value,
    sent: Option<&Value>,
    depth: usize,
) {
    if depth > 6 {
        return;
    }
    match value {
        Value::Array(items) => {
            for (at, item) in items.iter_mut().enumerate() {
                let sent = sent.and_then(|s| s.get(at));
                agree_at(engine, store, declared, item, sent, depth + 1);
            }
        }
        Value::Object(map) => {
            for (name, inner) in map.iter_mut() {
                if inner.is_object() || inner.is_array() {
                    let sent = sent.and_then(|s| s.get(name));
                    agree_at(engine, store, declared, inner, sent, depth + 1);
                }
            }
            let links: Vec<(String, String)> = map
                .keys()
                .filter_map(|k| Some((k.clone(), k.strip_suffix("_id")?.to_owned())))
                .filter(|(_, thing)| !thing.is_empty() && thing != "parent")
                .collect();
            for (field, thing) in links {
                let Some(info) = engine.collection_for_field(&field) else {
                    continue;
                };
                let real = engine.real_key(&info.key);
                let id_sent = sent.is_some_and(|s| s.get(&field).is_some());
                let by_name = map
                    .get(&thing)
                    .and_then(Value::as_str)
                    .and_then(|name| store.records(real).find_by("name", name));
                let by_id = map
                    .get(&field)
                    .and_then(crate::store::id_text_value)
                    .and_then(|id| store.get(real, &id));
                let named = match (by_name, by_id) {
                    (Some(named), _) if !id_sent || by_id.is_none() => {
                        if let Some(id) = named.get("id") {
                            map.insert(field.clone(), id.clone());
                        }
                        named
                    }
                    (_, Some(named)) => {
                        let kind = match map.get(&thing) {
                            Some(Value::Object(_)) => Some("object".to_owned()),
                            Some(Value::String(_) | Value::Number(_)) => Some("string".to_owned()),
                            None if depth == 0 => declared(&thing),
                            _ => None,
                        };
                        match kind.as_deref() {
                            Some("object") => {
                                map.insert(thing.clone(), crate::shape::strip_hidden(named));
                            }
                            Some("string") => {
                                if let Some(name) = named.get("name").filter(|n| n.is_string()) {
                                    map.insert(thing.clone(), name.clone());
                                }
                            }
                            _ => {}
                        }
                        named
                    }
                    _ => continue,
                };
                let code = format!("{thing}_code");
                if map.get(&code).is_some_and(Value::is_string)
                    && let Some(value) = named.get("code").filter(|c| c.is_string())
                {
                    map.insert(code, value.clone());
                }
            }
        }
        _ => {}
    }
}

/// Keeps the money and the dates of a changed `record` of collection `key` in the service's
/// form (see [`super::complete::in_service_form`]): for a change that merges what was sent
/// without completing the record (a record held in another's array).
pub(super) fn keep_service_form(call: &Call<'_>, key: &str, record: &mut Value) {
    let schemas: Vec<Value> = record_schemas(call, key).into_iter().cloned().collect();
    super::complete::in_service_form(&call.engine.doc, &schemas, record);
}

/// [`agree_with_named`] for a record of collection `key`.
pub(super) fn agree_record(call: &Call<'_>, store: &Store, key: &str, record: &mut Value) {
    let schemas: Vec<Value> = record_schemas(call, key).into_iter().cloned().collect();
    agree_with_named(call.engine, store, &schemas, record, &call.body);
}

/// Completes `record` against every record schema of collection `key` (see
/// [`super::complete`]), seeded by the record's id.
pub(super) fn complete_record(call: &Call<'_>, key: &str, record: &mut Value) {
    let schemas: Vec<Value> = record_schemas(call, key).into_iter().cloned().collect();
    let id = id_text(record).unwrap_or_default();
    let real = call.engine.real_key(key);
    let seed = stable_hash(&[&call.state.seed.to_string(), real, &id]);
    let serial = id.parse::<u64>().map_or(1, |n| n % 10_000);
    super::complete::complete(&call.engine.doc, &schemas, record, seed, serial);
}

pub(super) fn emit(call: &Call<'_>, real: &str, what: &str, record: &Value) {
    let Some(info) = call.engine.collections.get(real) else {
        return;
    };
    let event = format!("{}.{what}", singular(&info.name));
    call.state.emit(&event, &crate::shape::strip_hidden(record));
}

/// Merges `fields` into `record` (objects one level deep).
fn merge(record: &mut Value, fields: Map<String, Value>) {
    let map = object_mut(record);
    for (name, value) in fields {
        match (map.get_mut(&name), value) {
            (Some(Value::Object(old)), Value::Object(new)) => {
                for (k, v) in new {
                    old.insert(k, v);
                }
            }
            (_, value) => {
                map.insert(name, value);
            }
        }
    }
    if let Some(value) = map.get_mut("updated_at") {
        stamp_now(value);
    }
}

/// Stamps a new `record` of collection `key` with the time of its creation, as the service
/// does: its `created_at` and `updated_at`, where its records declare them (sent or not), now in
/// the store's time zone, in the form they are declared in (a date object `{date,
/// timezone_type, timezone}`, a text, or Unix epoch seconds for an integer).
pub(super) fn stamp_new(call: &Call<'_>, key: &str, record: &mut Value) {
    let doc = &call.engine.doc;
    let schemas = record_schemas(call, key);
    let map = object_mut(record);
    for stamp in ["created_at", "updated_at"] {
        let Some(declared) = schemas.iter().find_map(|s| doc.view(s).property(stamp)) else {
            continue;
        };
        let now = now_local();
        let view = doc.view(declared);
        let value = if view.property("date").is_some() {
            crate::formats::local_date(&now)
        } else if view.kind() == Some("integer") {
            Value::from(chrono::Utc::now().timestamp())
        } else {
            Value::from(now)
        };
        map.insert(stamp.to_owned(), value);
    }
}

/// Sets a time stamp to now in the form it has: a text (`2024-05-01 10:00:00`), or the `date` of
/// an object (`{"date": "2024-05-01 10:00:00.000000", "timezone": ...}`, its fraction kept).
pub(super) fn stamp_now(value: &mut Value) {
    let now = now_local();
    match value {
        Value::String(text) => *text = now,
        Value::Object(map) => {
            if let Some(Value::String(date)) = map.get_mut("date") {
                let fraction = if date.contains('.') { ".000000" } else { "" };
                *date = format!("{now}{fraction}");
            }
        }
        _ => {}
    }
}

fn update(call: &Call<'_>) -> Handled {
    let (key, real) = keys(call)?;
    let fields = record_fields(call, key);
    let mut store = call.state.write();
    let id = item_id(call, &store, real, 0)?;
    check_related(call, &store, key)?;
    let record = store.get_mut(real, &id).ok_or_else(ApiError::not_found)?;
    merge(record, fields);
    complete_record(call, key, record);
    let mut record = record.clone();
    agree_record(call, &store, key, &mut record);
    if let Some(stored) = store.get_mut(real, &id) {
        *stored = record.clone();
    }
    drop(store);
    emit(call, real, "updated", &record);
    Ok(Reply::Data(record))
}

fn delete(call: &Call<'_>) -> Handled {
    let (_, real) = keys(call)?;
    let mut store = call.state.write();
    let id = item_id(call, &store, real, 0)?;
    let removed = store
        .records_mut(real)
        .remove(&id)
        .ok_or_else(ApiError::not_found)?;
    drop(store);
    emit(call, real, "deleted", &removed);
    Ok(Reply::Data(deleted_message()))
}

fn on_item(call: &Call<'_>) -> Handled {
    let (key, real) = keys(call)?;
    // The record is named by the last parameter of the collection's own path.
    let depth = call.op.path_params().count();
    let own_params = key.matches("{}").count() + 1;
    let skip = depth.saturating_sub(own_params);
    if call.op.method == Method::GET {
        let store = call.state.read();
        let id = item_id(call, &store, real, skip)?;
        let record = store
            .get(real, &id)
            .cloned()
            .ok_or_else(ApiError::not_found)?;
        return Ok(Reply::Data(record));
    }
    let fields = record_fields(call, key);
    let mut store = call.state.write();
    let id = item_id(call, &store, real, skip)?;
    let record = store.get_mut(real, &id).ok_or_else(ApiError::not_found)?;
    if call.op.method == Method::DELETE {
        drop(store);
        return Ok(Reply::Data(deleted_message()));
    }
    merge(record, fields);
    let record = record.clone();
    drop(store);
    emit(call, real, "updated", &record);
    let answers_record = call.plan.record_schema.as_ref().is_some();
    if answers_record {
        Ok(Reply::Data(record))
    } else {
        Ok(Reply::Data(deleted_message_for(call)))
    }
}

/// The `{message, code}` answer of an action, with the documented status.
fn deleted_message_for(call: &Call<'_>) -> Value {
    serde_json::json!({ "message": "The action has been completed successfully", "code": call.op.success_status })
}

fn singleton(call: &Call<'_>) -> Handled {
    let (key, real) = keys(call)?;
    let fields = record_fields(call, key);
    let mut store = call.state.write();
    if store.records(real).len() == 0 {
        let record = match record_schemas(call, key).first() {
            Some(schema) => call.generator(stable_hash(&[real])).object(schema, 0),
            None => Value::Object(Map::new()),
        };
        let mut record = record;
        object_mut(&mut record).insert("__singleton".into(), Value::Bool(true));
        store.records_mut(real).insert(record);
    }
    let records = store.records_mut(real);
    let Some(record) = records_first_mut(records) else {
        return Err(ApiError::not_found());
    };
    if call.op.method != Method::GET {
        merge(record, fields);
    }
    Ok(Reply::Data(record.clone()))
}

fn records_first_mut(records: &mut crate::store::Records) -> Option<&mut Value> {
    let id = records.iter().next().and_then(id_text);
    match id {
        Some(id) => records.get_mut(&id),
        None => records.first_mut(),
    }
}

fn command(call: &Call<'_>) -> Handled {
    if call.op.method == Method::DELETE {
        return Ok(Reply::Data(deleted_message()));
    }
    let Some(schema) = call.plan.record_schema.as_ref() else {
        return Ok(Reply::Data(deleted_message_for(call)));
    };
    let mut answer = call
        .generator(stable_hash(&[&call.body.to_string()]))
        .value(schema, "data");
    if answer.is_object() {
        let fields = call.body_object();
        let declared: Vec<String> = call
            .plan
            .record_schema
            .as_ref()
            .map(|s| {
                call.engine
                    .doc
                    .view(s)
                    .properties
                    .iter()
                    .map(|(n, _)| (*n).to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let map = object_mut(&mut answer);
        for (name, value) in fields {
            if declared.contains(&name) {
                map.insert(name, value);
            }
        }
    }
    Ok(Reply::Data(answer))
}
