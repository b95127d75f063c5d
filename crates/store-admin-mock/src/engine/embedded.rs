//! Collections whose records are held inside another collection's records ([`Embedded`]): a
//! product's variants are its `skus`, so `GET /products/{id}/variants` lists that product's
//! `skus`, `GET /products/variants/{id}` finds the variant in whichever product holds it, and an
//! update or a deletion there changes the product. The list and the details are then views of the
//! one place the records are kept, as the quantities list (a view of the same variants) is.

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
        Action::Details | Action::Update | Action::Delete | Action::OnItem => {
            item(call, embedded, &owner)
        }
        _ => Err(ApiError::not_found()),
    }
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
    let fields: Map<String, Value> =
        super::crud::record_fields(call, call.plan.collection.as_deref().unwrap_or_default());
    let mut store = call.state.write();
    let id = holder(&store, owner, embedded, param, wanted).ok_or_else(ApiError::not_found)?;
    let record = store.get_mut(owner, &id).ok_or_else(ApiError::not_found)?;
    let (items, at) =
        locate(record, &embedded.path, param, wanted).ok_or_else(ApiError::not_found)?;
    if call.plan.action == Action::Delete {
        items.remove(at);
        return Ok(Reply::Data(deleted_message()));
    }
    if let Value::Object(item) = &mut items[at] {
        for (name, value) in fields {
            if name != "id" {
                item.insert(name, value);
            }
        }
    }
    let changed = items[at].clone();
    if call.plan.record_schema.is_some() {
        Ok(Reply::Data(changed))
    } else {
        Ok(Reply::Data(serde_json::json!({
            "message": "The action has been completed successfully",
            "code": call.op.success_status,
        })))
    }
}
