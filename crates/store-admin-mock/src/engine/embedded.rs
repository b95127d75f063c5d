//! Collections whose records are held inside another collection's records ([`Embedded`]): a
//! product's variants are its `skus`, so `GET /products/{id}/variants` lists that product's
//! `skus`, `GET /products/variants/{id}` finds the variant in whichever product holds it, and an
//! update or a deletion there changes the product. The list and the details are then views of the
//! one place the records are kept, as the quantities list (a view of the same variants) is.
//!
//! A create adds the record to its owner's array, the owner named by the path
//! (`POST /products/{id}/images`) or by a field of the body (`order_id` of `POST /orders/items`),
//! and a `POST` on one record whose records hold a child collection (`POST /products/options/{id}`
//! on an option, whose values are a collection) adds a child to it: the parent's reads show the
//! child, and the child's own operations find it by its own id.

use serde_json::{Map, Value};

use super::infer::Embedded;
use super::{Action, Call};
use crate::error::ApiError;
use crate::respond::{Handled, Reply, deleted_message};
use crate::store::{Store, id_text, id_text_value};

/// Serves `call` on an embedded collection.
pub(crate) fn handle(call: &Call<'_>, embedded: &Embedded) -> Handled {
    let owner = call.engine.real_key(&embedded.owner).to_owned();
    match call.plan.action {
        Action::List if embedded.per_parent => list(call, embedded, &owner),
        Action::List => list_all(call, embedded, &owner),
        Action::Create | Action::Command(_) => create(call, embedded, &owner),
        Action::Details | Action::Update | Action::Delete | Action::OnItem => {
            item(call, embedded, &owner)
        }
        Action::Singleton => Err(ApiError::not_found()),
    }
}

/// The id of the owner's record a create or a list names: by the path, or by the request's
/// `owner_field` (a 422 on that field when it names no record, a 404 for the path).
fn owner_id(
    call: &Call<'_>,
    store: &Store,
    embedded: &Embedded,
    owner: &str,
) -> Result<Option<String>, ApiError> {
    if embedded.per_parent {
        let (param, value) = call.params.first().ok_or_else(ApiError::not_found)?;
        return super::crud::find_id(store, owner, param, value)
            .map(Some)
            .ok_or_else(ApiError::not_found);
    }
    let Some(field) = embedded.owner_field.as_deref() else {
        return Ok(None);
    };
    let sent = call
        .body
        .get(field)
        .and_then(id_text_value)
        .or_else(|| call.query.one(field).map(str::to_owned));
    let Some(sent) = sent else {
        return Ok(None);
    };
    store
        .get(owner, &sent)
        .and_then(id_text)
        .map(Some)
        .ok_or_else(|| {
            ApiError::field(
                field,
                crate::error::selected_invalid(&field.replace('_', " ")),
            )
        })
}

/// Whether the operation answers a list (`data: [...]`): a write answered with the owner's
/// records of this collection (`POST /orders/items` answers the order's items).
fn answers_list(call: &Call<'_>) -> bool {
    let doc = &call.engine.doc;
    call.op
        .success_schema
        .as_ref()
        .and_then(|s| doc.property(s, "data"))
        .is_some_and(|data| doc.view(data).kind() == Some("array"))
}

/// The answer of a write on `record`, held by `owner_record`: the list of its siblings when the
/// operation answers a list, the record otherwise.
fn write_answer(
    call: &Call<'_>,
    embedded: &Embedded,
    owner_record: &Value,
    record: Value,
) -> Reply {
    if answers_list(call) {
        let mut items = Vec::new();
        collect(owner_record, &embedded.path, &mut items);
        return Reply::Records(items.into_iter().rev().cloned().collect());
    }
    if call.plan.record_schema.is_some() {
        Reply::Data(record)
    } else {
        Reply::Data(serde_json::json!({
            "message": "The action has been completed successfully",
            "code": call.op.success_status,
        }))
    }
}

/// A new record of collection `key` made of the call's body: a new id, the owner's link field
/// where the record declares one, what a view of it needs completed.
fn new_record(
    call: &Call<'_>,
    store: &mut Store,
    key: &str,
    link: Option<(&str, &Value)>,
) -> Value {
    let fields = super::crud::record_fields(call, key);
    let id = store.new_id();
    let mut record = Value::Object(Map::new());
    let map = crate::store::object_mut(&mut record);
    map.extend(fields);
    let id_value = if super::crud::string_ids(call, key) {
        Value::from(id.to_string())
    } else {
        Value::from(id)
    };
    map.insert("id".into(), id_value);
    if let Some((field, value)) = link {
        let declared = super::crud::declares(call, key, field);
        if declared {
            map.insert(field.to_owned(), value.clone());
        }
    }
    super::crud::upload_fields(call, key, &mut record);
    super::crud::complete_record(call, key, &mut record);
    super::crud::stamp_new(call, key, &mut record);
    record
}

/// Adds a record to its owner's array.
fn create(call: &Call<'_>, embedded: &Embedded, owner: &str) -> Handled {
    let key = call.plan.collection.as_deref().unwrap_or_default();
    let mut store = call.state.write();
    let Some(id) = owner_id(call, &store, embedded, owner)? else {
        let field = embedded.owner_field.as_deref().unwrap_or("id");
        return Err(ApiError::field(field, crate::error::required(field)));
    };
    let [field] = embedded.path.as_slice() else {
        return Err(ApiError::not_found());
    };
    let owner_link = format!(
        "{}_id",
        super::singular(owner.rsplit('/').next().unwrap_or_default())
    );
    let owner_value = store
        .get(owner, &id)
        .and_then(|r| r.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    let record = new_record(call, &mut store, key, Some((&owner_link, &owner_value)));
    let cap = call.state.limits.collection_records;
    let holder = store.get_mut(owner, &id).ok_or_else(ApiError::not_found)?;
    let items = crate::store::object_mut(holder)
        .entry(field.clone())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !items.is_array() {
        *items = Value::Array(Vec::new());
    }
    if let Value::Array(items) = items {
        if items.len() >= cap {
            return Err(ApiError::unprocessable(
                "body",
                crate::error::collection_full(cap),
            ));
        }
        items.push(record.clone());
    }
    let answer = write_answer(call, embedded, holder, record.clone());
    drop(store);
    super::crud::emit(call, key, "created", &record);
    Ok(answer)
}

/// The records of every owner's record (or of the one the query's `owner_field` names).
fn list_all(call: &Call<'_>, embedded: &Embedded, owner: &str) -> Handled {
    let store = call.state.read();
    let only = owner_id(call, &store, embedded, owner)?;
    let mut items = Vec::new();
    for record in store.records(owner).iter() {
        if only.is_none() || id_text(record) == only {
            collect(record, &embedded.path, &mut items);
        }
    }
    let records: Vec<Value> = items.into_iter().rev().cloned().collect();
    Ok(Reply::Records(records))
}

/// The child collection held in an array of the records of the embedded collection at `path`
/// below `owner` (an option's `values`), if the document has one: the array's name.
fn child_array(call: &Call<'_>, owner: &str, path: &[String]) -> Option<(String, String)> {
    call.engine.collections.values().find_map(|info| {
        let child = info.embedded.as_ref()?;
        let (last, above) = child.path.split_last()?;
        (call.engine.real_key(&child.owner) == owner && above == path)
            .then(|| (last.clone(), info.key.clone()))
    })
}

/// The records at `path` below `value` (every item of every array on the way).
fn collect<'v>(value: &'v Value, path: &[String], out: &mut Vec<&'v Value>) {
    let Some((first, rest)) = path.split_first() else {
        out.push(value);
        return;
    };
    for item in value
        .get(first)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        collect(item, rest, out);
    }
}

fn list(call: &Call<'_>, embedded: &Embedded, owner: &str) -> Handled {
    let (param, value) = call.params.first().ok_or_else(ApiError::not_found)?;
    let store = call.state.read();
    let id = super::crud::find_id(&store, owner, param, value).ok_or_else(ApiError::not_found)?;
    let record = store.get(owner, &id).ok_or_else(ApiError::not_found)?;
    let mut items = Vec::new();
    collect(record, &embedded.path, &mut items);
    let records: Vec<Value> = items.into_iter().rev().cloned().collect();
    Ok(Reply::Records(records))
}

/// Whether `item` is the record the path's parameter names: by `id`, or by the parameter's field.
fn names(item: &Value, param: &str, wanted: &str) -> bool {
    let wanted = wanted.trim();
    item.get("id").and_then(id_text_value).as_deref() == Some(wanted)
        || item.get(param).and_then(id_text_value).as_deref() == Some(wanted)
}

/// The array holding the record named `wanted` below `value`, and its index there.
fn locate<'v>(
    value: &'v mut Value,
    path: &[String],
    param: &str,
    wanted: &str,
) -> Option<(&'v mut Vec<Value>, usize)> {
    let (first, rest) = path.split_first()?;
    let items = value.get_mut(first)?.as_array_mut()?;
    if rest.is_empty() {
        let at = items.iter().position(|item| names(item, param, wanted))?;
        return Some((items, at));
    }
    let at = items
        .iter()
        .position(|item| has(item, rest, param, wanted))?;
    locate(&mut items[at], rest, param, wanted)
}

fn has(value: &Value, path: &[String], param: &str, wanted: &str) -> bool {
    let mut found = Vec::new();
    collect(value, path, &mut found);
    found.iter().any(|item| names(item, param, wanted))
}

/// The id of the owner's record that holds the record named `wanted`.
fn holder(
    store: &Store,
    owner: &str,
    embedded: &Embedded,
    param: &str,
    wanted: &str,
) -> Option<String> {
    store
        .records(owner)
        .iter()
        .rev()
        .find(|record| has(record, &embedded.path, param, wanted))
        .and_then(id_text)
}

fn item(call: &Call<'_>, embedded: &Embedded, owner: &str) -> Handled {
    let (param, wanted) = call.params.last().ok_or_else(ApiError::not_found)?;
    if call.plan.action == Action::Details || call.op.method == axum::http::Method::GET {
        let store = call.state.read();
        let id = holder(&store, owner, embedded, param, wanted).ok_or_else(ApiError::not_found)?;
        let record = store.get(owner, &id).ok_or_else(ApiError::not_found)?;
        let mut items = Vec::new();
        collect(record, &embedded.path, &mut items);
        let found = items
            .into_iter()
            .find(|item| names(item, param, wanted))
            .cloned()
            .ok_or_else(ApiError::not_found)?;
        return Ok(Reply::Data(found));
    }
    let key = call.plan.collection.as_deref().unwrap_or_default();
    let fields: Map<String, Value> = super::crud::record_fields(call, key);
    let child = (call.plan.action == Action::OnItem && call.op.method == axum::http::Method::POST)
        .then(|| child_array(call, owner, &embedded.path))
        .flatten();
    let mut store = call.state.write();
    let id = holder(&store, owner, embedded, param, wanted).ok_or_else(ApiError::not_found)?;
    if let Some((array, child_key)) = child {
        let (answer, child) = add_child(
            call,
            &mut store,
            (owner, &id),
            embedded,
            (param, wanted),
            (&array, &child_key),
        )?;
        drop(store);
        super::crud::emit(call, &child_key, "created", &child);
        return Ok(answer);
    }
    let record = store.get_mut(owner, &id).ok_or_else(ApiError::not_found)?;
    let (items, at) =
        locate(record, &embedded.path, param, wanted).ok_or_else(ApiError::not_found)?;
    if call.plan.action == Action::Delete {
        let removed = items.remove(at);
        drop(store);
        super::crud::emit(call, key, "deleted", &removed);
        return Ok(Reply::Data(deleted_message()));
    }
    if let Value::Object(item) = &mut items[at] {
        for (name, value) in fields {
            if name != "id" {
                item.insert(name, value);
            }
        }
    }
    if let Some(value) = items[at].get_mut("updated_at") {
        super::crud::stamp_now(value);
    }
    super::crud::keep_service_form(call, key, &mut items[at]);
    let changed = items[at].clone();
    let record = store.get(owner, &id).ok_or_else(ApiError::not_found)?;
    let answer = write_answer(call, embedded, record, changed.clone());
    drop(store);
    super::crud::emit(call, key, "updated", &changed);
    Ok(answer)
}

/// `POST` on a record whose records hold a child collection in `array`: a new child made of the
/// body, linked to the record (`option_id` of an option's value). Answers the record when the
/// operation answers records of its collection (the option, its new value in it), else the child;
/// and the child, for the event told once the store is let go.
fn add_child(
    call: &Call<'_>,
    store: &mut Store,
    (owner, id): (&str, &str),
    embedded: &Embedded,
    (param, wanted): (&str, &str),
    (array, child_key): (&str, &str),
) -> Result<(Reply, Value), ApiError> {
    let key = call.plan.collection.as_deref().unwrap_or_default();
    let link = format!(
        "{}_id",
        super::singular(key.rsplit('/').next().unwrap_or_default())
    );
    let record = store.get_mut(owner, id).ok_or_else(ApiError::not_found)?;
    let (items, at) =
        locate(record, &embedded.path, param, wanted).ok_or_else(ApiError::not_found)?;
    let parent_id = items[at].get("id").cloned().unwrap_or(Value::Null);
    let child = new_record(call, store, child_key, Some((&link, &parent_id)));
    let record = store.get_mut(owner, id).ok_or_else(ApiError::not_found)?;
    let (items, at) =
        locate(record, &embedded.path, param, wanted).ok_or_else(ApiError::not_found)?;
    let parent = crate::store::object_mut(&mut items[at]);
    let children = parent
        .entry(array.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !children.is_array() {
        *children = Value::Array(Vec::new());
    }
    if let Value::Array(children) = children {
        children.push(child.clone());
    }
    let parent = items[at].clone();
    let answers_parent = call
        .plan
        .record_schema
        .as_ref()
        .and_then(crate::document::Document::ref_name)
        .is_some_and(|name| {
            call.engine
                .collections
                .get(key)
                .is_some_and(|c| c.record_types.iter().any(|t| t == name))
        });
    let answer = if answers_parent {
        parent
    } else {
        child.clone()
    };
    Ok((Reply::Data(answer), child))
}
