//! What each operation does, read from its path, method and schemas, and the collections of
//! records the operations share.
//!
//! - A path ending in a parameter addresses one record of the collection before it:
//!   `GET /brands/{brand}` is its details, `PUT`/`PATCH` an update, `DELETE` a deletion, `POST` an
//!   action on that record.
//! - A path whose `GET` answers an array (`data: [...]`), or that has an item path below it, is a
//!   collection: `GET` lists it, `POST` creates in it. Below a record (`/orders/{order_id}/histories`)
//!   it is a sub-collection, whose records carry their parent's id; when its records are of the
//!   same component as a top-level collection's (`/orders/{order_id}/shipments` answers
//!   `Shipment`s), it is that collection seen through the parent's id.
//! - A static path after a record (`/shipments/{shipment_id}/cancel`) is an action on that record.
//! - A path without records below it whose `GET` answers one object (`/settings`) is a singleton.
//! - Anything else is a command: its body is validated and its answer shaped by its schema; when
//!   it answers a record of a collection's component (`POST /orders/draft` answers an `Order`), it
//!   creates that record.
//!
//! A collection keyed by a path is named by that path with its parameters blanked
//! (`/orders/{}/histories`).

use std::collections::HashMap;

use axum::http::Method;
use serde_json::Value;

use crate::document::{Document, Operation, Segment};

/// What an operation does to the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    List,
    Create,
    Details,
    Update,
    Delete,
    /// A `GET` view or a change of one record addressed by the path.
    OnItem,
    /// `GET` or change of the only record of a singleton collection.
    Singleton,
    /// A command on a collection path; `Some(key)` when it creates a record there.
    Command(Option<String>),
}

/// What the engine knows about one operation.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub action: Action,
    /// The collection the operation works on (its key).
    pub collection: Option<String>,
    /// The schema of one record as this operation answers it (`data`, or `data.items` of a list).
    pub record_schema: Option<Value>,
    /// Whether the answer is the `{status, success, data}` envelope.
    pub enveloped: bool,
}

/// A collection of records.
#[derive(Debug, Clone, Default)]
pub(crate) struct CollectionInfo {
    pub key: String,
    /// The last static segment of its path (`histories`), singular-ish names derive from it.
    pub name: String,
    /// For a sub-collection: the parent collection's key and the parameter naming the parent.
    pub parent: Option<(String, String)>,
    /// The collection whose records these are, seen through the parent's id.
    pub alias_of: Option<String>,
    /// Component names of its records, and their schemas (`$ref`s), from every operation on it.
    pub record_types: Vec<String>,
    pub record_schemas: Vec<Value>,
    pub singleton: bool,
    pub has_list: bool,
    pub has_create: bool,
    /// Records held inside the records of another collection: a product's variants are the
    /// `skus` of the product (`/products/{}/variants` lists them, `/products/variants/{}` finds one
    /// in any product), an option's values the `values` of its product's `options`.
    pub embedded: Option<Embedded>,
}

/// Where a collection's records are held inside another collection's records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Embedded {
    /// The collection whose records hold them.
    pub owner: String,
    /// The array fields from an owner's record down to the records (`["options", "values"]`).
    pub path: Vec<String>,
    /// Whether the collection is below one record of the owner (`/products/{}/variants`), rather
    /// than the records of every owner's record (`/products/variants/{}`).
    pub per_parent: bool,
}

/// The key of a path's segments: parameters blanked (`/orders/{}/histories`).
pub(crate) fn key_of(segments: &[Segment]) -> String {
    let mut key = String::new();
    for segment in segments {
        key.push('/');
        match segment {
            Segment::Static(s) => key.push_str(s),
            Segment::Param(_) => key.push_str("{}"),
        }
    }
    if key.is_empty() {
        key.push('/');
    }
    key
}

/// The body of a success answer: `data` of the envelope, or the whole answer.
fn data_schema<'a>(doc: &'a Document, op: &'a Operation) -> Option<(&'a Value, bool)> {
    let schema = op.success_schema.as_ref()?;
    let view = doc.view(schema);
    if let (Some(data), true) = (view.property("data"), view.property("success").is_some()) {
        return Some((data, true));
    }
    Some((schema, false))
}

/// Whether a `data` schema is an array, and the schema of its items.
fn list_items<'a>(doc: &'a Document, data: &'a Value) -> Option<&'a Value> {
    let view = doc.view(data);
    (view.kind() == Some("array")).then(|| view.items.unwrap_or(&Value::Null))
}

/// Whether a record schema is the `{message, code}` confirmation of a deletion or an action.
fn is_message(doc: &Document, schema: &Value) -> bool {
    let view = doc.view(schema);
    !view.properties.is_empty()
        && view
            .properties
            .iter()
            .all(|(name, _)| matches!(*name, "message" | "code"))
}

/// Plans every operation and lists the collections they share.
pub(crate) fn plan(doc: &Document) -> (Vec<Plan>, HashMap<String, CollectionInfo>) {
    let ops = &doc.operations;
    // Path keys with an item path below them, and paths whose GET answers an array.
    let mut has_item_below: HashMap<String, bool> = HashMap::new();
    let mut lists: HashMap<String, bool> = HashMap::new();
    for op in ops {
        if let Some(Segment::Param(_)) = op.segments.last() {
            has_item_below.insert(key_of(&op.segments[..op.segments.len() - 1]), true);
        }
        if op.method == Method::GET
            && let Some((data, _)) = data_schema(doc, op)
            && list_items(doc, data).is_some()
        {
            lists.insert(key_of(&op.segments), true);
        }
    }
    let mut plans = Vec::with_capacity(ops.len());
    let mut collections: HashMap<String, CollectionInfo> = HashMap::new();
    for op in ops {
        let segments = &op.segments;
        let n = segments.len();
        let key = key_of(segments);
        let data = data_schema(doc, op);
        let enveloped = data.is_some_and(|(_, e)| e);
        let items = data.and_then(|(d, _)| list_items(doc, d));
        let record_schema = match (items, data) {
            (Some(items), _) => Some(items.clone()),
            (None, Some((data, _))) if !is_message(doc, data) => Some(data.clone()),
            _ => None,
        };
        let last_is_param = matches!(segments.last(), Some(Segment::Param(_)));
        let after_param = n >= 2 && matches!(segments[n - 2], Segment::Param(_));
        let is_collection_path = has_item_below.contains_key(&key) || lists.contains_key(&key);
        let (action, collection) = if last_is_param {
            let collection = key_of(&segments[..n - 1]);
            let action = match op.method {
                Method::GET => Action::Details,
                Method::PUT | Method::PATCH => Action::Update,
                Method::DELETE => Action::Delete,
                _ => Action::OnItem,
            };
            (action, Some(collection))
        } else if is_collection_path {
            let action = match op.method {
                Method::GET if items.is_some() => Action::List,
                Method::POST => Action::Create,
                _ => Action::Command(None),
            };
            (action, Some(key.clone()))
        } else if after_param {
            (Action::OnItem, Some(key_of(&segments[..n - 2])))
        } else if (op.method == Method::GET && record_schema.is_some())
            || (matches!(op.method, Method::PUT | Method::PATCH)
                && ops.iter().any(|o| {
                    o.method == Method::GET
                        && key_of(&o.segments) == key
                        && !lists.contains_key(&key)
                }))
        {
            (Action::Singleton, Some(key.clone()))
        } else {
            (Action::Command(None), None)
        };
        if let Some(collection) = &collection {
            let info = collections
                .entry(collection.clone())
                .or_insert_with(|| CollectionInfo {
                    key: collection.clone(),
                    ..CollectionInfo::default()
                });
            match action {
                Action::List => info.has_list = true,
                Action::Create => info.has_create = true,
                Action::Singleton => info.singleton = true,
                _ => {}
            }
            // The record schemas of a collection: what its list, details, create and update
            // answer (not an action's view of it).
            if matches!(
                action,
                Action::List
                    | Action::Create
                    | Action::Details
                    | Action::Update
                    | Action::Singleton
            ) && let Some(schema) = &record_schema
            {
                if let Some(name) = Document::ref_name(schema)
                    && !info.record_types.iter().any(|t| t == name)
                {
                    info.record_types.push(name.to_owned());
                }
                if !info.record_schemas.contains(schema) {
                    info.record_schemas.push(schema.clone());
                }
            }
        }
        plans.push(Plan {
            action,
            collection,
            record_schema,
            enveloped,
        });
    }
    // Names and parents.
    let keys: Vec<String> = collections.keys().cloned().collect();
    for key in &keys {
        let segments: Vec<&str> = key.split('/').filter(|s| !s.is_empty()).collect();
        let name = segments
            .iter()
            .rev()
            .find(|s| **s != "{}")
            .copied()
            .unwrap_or_default()
            .to_owned();
        let parent = segments.iter().rposition(|s| *s == "{}").map(|at| {
            let parent_key = format!("/{}", segments[..at].join("/"));
            // The parameter's name, from any operation on this collection.
            let param = ops
                .iter()
                .find(|op| key_of(&op.segments).starts_with(key.as_str()))
                .and_then(|op| match op.segments.get(at) {
                    Some(Segment::Param(name)) => Some(name.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "parent_id".to_owned());
            (parent_key, param)
        });
        if let Some(info) = collections.get_mut(key) {
            info.name = name;
            info.parent = parent;
        }
    }
    // Aliases: a collection whose records are of a component that a top-level collection with a
    // list or a create owns is that collection, seen through a parent id or another key.
    let owners: HashMap<String, String> = collections
        .values()
        .filter(|c| c.parent.is_none() && (c.has_list || c.has_create) && !c.singleton)
        .flat_map(|c| c.record_types.iter().map(|t| (t.clone(), c.key.clone())))
        .collect();
    for key in &keys {
        let Some(info) = collections.get(key) else {
            continue;
        };
        if info.parent.is_none() && (info.has_list || info.has_create) {
            continue;
        }
        let owner = info
            .record_types
            .iter()
            .filter_map(|t| owners.get(t))
            .find(|owner| *owner != key)
            .cloned();
        if let Some(owner) = owner
            && let Some(info) = collections.get_mut(key)
        {
            info.alias_of = Some(owner);
        }
    }
    embed(doc, &mut collections, &owners);
    // Commands that answer a record of a collection's component create it there; a POST that
    // answers a record no collection owns creates it in a collection of its own path.
    for (plan, op) in plans.iter_mut().zip(ops) {
        if plan.action != Action::Command(None) || op.method != Method::POST {
            continue;
        }
        let owner = plan
            .record_schema
            .as_ref()
            .and_then(Document::ref_name)
            .and_then(|name| owners.get(name));
        match owner {
            Some(owner) => plan.action = Action::Command(Some(owner.clone())),
            None if plan.record_schema.is_some() => {
                let key = key_of(&op.segments);
                let info = collections
                    .entry(key.clone())
                    .or_insert_with(|| CollectionInfo {
                        key: key.clone(),
                        name: key.rsplit('/').next().unwrap_or_default().to_owned(),
                        ..CollectionInfo::default()
                    });
                info.has_create = true;
                if let Some(schema) = &plan.record_schema {
                    if let Some(name) = Document::ref_name(schema)
                        && !info.record_types.iter().any(|t| t == name)
                    {
                        info.record_types.push(name.to_owned());
                    }
                    if !info.record_schemas.contains(schema) {
                        info.record_schemas.push(schema.clone());
                    }
                }
                plan.action = Action::Create;
                plan.collection = Some(key);
            }
            None => {}
        }
    }
    (plans, collections)
}

/// The array fields leading from a record of `schema` to records of component `wanted`, at most
/// two arrays deep (an option's `values`), the shallowest first.
fn array_path(doc: &Document, schema: &Value, wanted: &str, depth: usize) -> Option<Vec<String>> {
    if depth > 1 {
        return None;
    }
    let view = doc.view(schema);
    let arrays: Vec<(&str, &Value)> = view
        .properties
        .iter()
        .filter_map(|(name, property)| Some((*name, doc.view(property).items?)))
        .collect();
    if let Some((name, _)) = arrays
        .iter()
        .find(|(_, items)| Document::ref_name(items) == Some(wanted))
    {
        return Some(vec![(*name).to_owned()]);
    }
    arrays.iter().find_map(|(name, items)| {
        let mut path = array_path(doc, items, wanted, depth + 1)?;
        path.insert(0, (*name).to_owned());
        Some(path)
    })
}

/// Finds the collections whose records are held inside another collection's records (see
/// [`Embedded`]): a sub-collection of records its parent's records hold in an array of their
/// component, and a collection of item paths only (no list, no create) whose component a listed
/// collection's records hold. An item path with no such component, named by a field the records
/// of a listed collection above it declare (`/settings/fields/{slug}` below `/settings`, whose
/// settings have a `slug`), is that collection.
fn embed(
    doc: &Document,
    collections: &mut HashMap<String, CollectionInfo>,
    owners: &HashMap<String, String>,
) {
    let keys: Vec<String> = collections.keys().cloned().collect();
    for key in &keys {
        let info = &collections[key];
        if info.alias_of.is_some() || info.singleton {
            continue;
        }
        let parent = info.parent.as_ref().map(|(p, _)| p.clone());
        let item_only = parent.is_none() && !info.has_list && !info.has_create;
        if parent.is_none() && !item_only {
            continue;
        }
        let candidates: Vec<String> = match &parent {
            Some(parent) => vec![parent.clone()],
            None => {
                let mut owners: Vec<String> = owners.values().cloned().collect();
                owners.sort();
                owners.dedup();
                owners
            }
        };
        let mut found: Option<Embedded> = None;
        'types: for wanted in &info.record_types {
            // Records are objects with fields: an untyped component (`AnyValue`) is no record.
            let component = serde_json::json!({ "$ref": format!("#/components/schemas/{wanted}") });
            if doc.view(&component).properties.is_empty() {
                continue;
            }
            for owner in &candidates {
                let Some(owner_info) = collections.get(owner) else {
                    continue;
                };
                for schema in &owner_info.record_schemas {
                    if let Some(path) = array_path(doc, schema, wanted, 0) {
                        let shorter = found.as_ref().is_none_or(|f| path.len() < f.path.len());
                        if shorter {
                            found = Some(Embedded {
                                owner: owner.clone(),
                                path,
                                per_parent: parent.is_some(),
                            });
                        }
                        if found.as_ref().is_some_and(|f| f.path.len() == 1) {
                            break 'types;
                        }
                    }
                }
            }
        }
        if found.is_none() && item_only {
            // Named by a field of the records of a listed collection above it.
            let param = doc
                .operations
                .iter()
                .filter(|op| key_of(&op.segments[..op.segments.len().saturating_sub(1)]) == *key)
                .find_map(|op| match op.segments.last() {
                    Some(Segment::Param(name)) => Some(name.clone()),
                    _ => None,
                });
            let above = keys
                .iter()
                .filter(|k| key.starts_with(&format!("{k}/")))
                .filter(|k| {
                    collections.get(*k).is_some_and(|c| {
                        c.has_list && c.parent.is_none() && c.alias_of.is_none() && !c.singleton
                    })
                })
                .max_by_key(|k| k.len())
                .cloned();
            if let (Some(param), Some(above)) = (param, above)
                && param != "id"
                && collections[&above]
                    .record_schemas
                    .iter()
                    .any(|s| doc.view(s).property(&param).is_some())
                && let Some(info) = collections.get_mut(key)
            {
                info.alias_of = Some(above);
            }
        }
        if let Some(found) = found
            && let Some(info) = collections.get_mut(key)
        {
            info.embedded = Some(found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_document_is_planned() {
        let doc = Document::embedded().unwrap();
        let (plans, collections) = plan(&doc);
        let of = |id: &str| {
            let index = doc.operations.iter().position(|o| o.id == id).unwrap();
            plans[index].clone()
        };
        assert_eq!(of("list_shipments").action, Action::List);
        assert_eq!(of("create_shipment").action, Action::Create);
        assert_eq!(of("get_shipment").action, Action::Details);
        assert_eq!(of("update_shipment").action, Action::Update);
        assert_eq!(of("cancel_shipment").action, Action::OnItem);
        assert_eq!(
            of("cancel_shipment").collection.as_deref(),
            Some("/shipments")
        );
        assert_eq!(of("get_order").collection.as_deref(), Some("/orders"));
        assert_eq!(of("list_order_statuses").action, Action::List);
        let order_shipments = &collections["/orders/{}/shipments"];
        assert_eq!(order_shipments.alias_of.as_deref(), Some("/shipments"));
        assert_eq!(
            order_shipments.parent,
            Some(("/orders".to_owned(), "order_id".to_owned()))
        );
        assert_eq!(
            of("subscribe_webhook").action,
            Action::Command(Some("/webhooks".into()))
        );
        let variants = collections["/products/variants"].embedded.as_ref();
        assert_eq!(
            variants.map(|e| (e.owner.as_str(), e.path.clone(), e.per_parent)),
            Some(("/products", vec!["skus".to_owned()], false))
        );
        let listed = collections["/products/{}/variants"].embedded.as_ref();
        assert!(listed.is_some_and(|e| e.per_parent && e.path == ["skus"]));
        let values = collections["/products/options/values"].embedded.as_ref();
        assert_eq!(
            values.map(|e| e.path.clone()),
            Some(vec!["options".to_owned(), "values".to_owned()])
        );
        assert_eq!(
            collections["/settings/fields"].alias_of.as_deref(),
            Some("/settings")
        );
    }
}
