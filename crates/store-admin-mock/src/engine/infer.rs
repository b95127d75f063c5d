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

use super::include::OnRequest;
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
    /// The fields of its records it answers only when the request asks (`with=translations`).
    pub on_request: Option<OnRequest>,
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
    /// For a read-only sub-collection, the records of another collection it lists.
    pub related: Option<Related>,
    /// The array property of the records that holds records of their own collection (a
    /// category's sub-categories in `items`), filled on every read from the records whose
    /// `parent_id` names the record.
    pub children_field: Option<String>,
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
    /// The request field naming the owner's record when the path does not (`order_id` of
    /// `GET /orders/items?order_id=` and `POST /orders/items`).
    pub owner_field: Option<String>,
}

/// How the records of a read-only sub-collection (`/categories/{}/products`) are the records of
/// another collection that point at the parent's record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Related {
    /// The collection whose records are listed.
    pub source: String,
    /// The field of those records naming the parent (`categories`, `parent_id`): an id, an array
    /// of ids, or an object (or objects) with an `id`. With [`Related::held`], the field of the
    /// parent's record naming them.
    pub field: String,
    /// Whether the parent's record holds the ids of the listed records (an order's
    /// `assign_employee` holds the ids of the employees `/orders/assignment/{order_id}` lists),
    /// rather than each listed record naming the parent.
    pub held: bool,
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
        if let Some(Segment::Param(_)) = op.segments.last()
            && !lists_below_record(doc, op)
        {
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
        let (action, collection) = if last_is_param && op.method == Method::GET && items.is_some() {
            // `GET /orders/assignment/{order_id}` answering a list: the records below the order
            // the parameter names, not a record of `/orders/assignment` found by its id.
            (Action::List, Some(key.clone()))
        } else if last_is_param {
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
        } else if after_param
            && op.method == Method::POST
            && creates_below(segments, &has_item_below)
        {
            // `POST /products/{id}/images`: a record of the collection whose items are found by
            // their own ids at `/products/images/{id}`, below the record the path names.
            (Action::Create, Some(key.clone()))
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
        let on_request = OnRequest::of(doc, op, record_schema.as_ref());
        plans.push(Plan {
            action,
            collection,
            record_schema,
            enveloped,
            on_request,
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
        let below_named = segments.last() == Some(&"{}");
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
            // A list below the record its last parameter names: that record's collection, by
            // the parameter's name (`order_id` names an order), else the path before it.
            let parent_key = below_named
                .then(|| named_collection(&collections, &param))
                .flatten()
                .unwrap_or(parent_key);
            (parent_key, param)
        });
        if let Some(info) = collections.get_mut(key) {
            info.name = name;
            info.parent = parent;
        }
    }
    // Aliases: a collection whose records are of a component that a top-level collection with a
    // list or a create owns is that collection, seen through a parent id or another key.
    // One owner per component, the same on every run: a collection that creates them before one
    // that only lists them, then the shortest path (`/categories` before `/categories/search`).
    let mut candidates: Vec<&CollectionInfo> = collections
        .values()
        .filter(|c| c.parent.is_none() && (c.has_list || c.has_create) && !c.singleton)
        .collect();
    candidates.sort_by(|a, b| {
        (b.has_create, a.key.len(), &a.key).cmp(&(a.has_create, b.key.len(), &b.key))
    });
    let mut owners: HashMap<String, String> = HashMap::new();
    for c in candidates {
        for t in &c.record_types {
            owners.entry(t.clone()).or_insert_with(|| c.key.clone());
        }
    }
    for key in &keys {
        let Some(info) = collections.get(key) else {
            continue;
        };
        // A top-level list of its own is a collection, unless it only lists (no create) the
        // records of the collection its path is below (`/categories/search` of `/categories`).
        let listed_below = |owner: &String| {
            info.parent.is_some()
                || !(info.has_list || info.has_create)
                || (!info.has_create && key.starts_with(&format!("{owner}/")))
        };
        let owner = info
            .record_types
            .iter()
            .filter_map(|t| owners.get(t))
            .find(|owner| *owner != key && listed_below(owner))
            .cloned();
        if let Some(owner) = owner
            && let Some(info) = collections.get_mut(key)
        {
            info.alias_of = Some(owner);
        }
    }
    embed(doc, &mut collections, &owners);
    embed_by_name(doc, &mut collections);
    relate(doc, &mut collections);
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

/// Whether `op` is a `GET` of a path ending in a parameter whose documented answer is a list:
/// the records below the record the parameter names (`GET /orders/assignment/{order_id}`, an
/// order's assigned employees), not one record found by its id.
fn lists_below_record(doc: &Document, op: &Operation) -> bool {
    op.method == Method::GET
        && matches!(op.segments.last(), Some(Segment::Param(_)))
        && data_schema(doc, op).is_some_and(|(data, _)| list_items(doc, data).is_some())
}

/// The top-level collection a parameter such as `order_id` names (`/orders`): the shortest one
/// named after the parameter's thing.
fn named_collection(collections: &HashMap<String, CollectionInfo>, param: &str) -> Option<String> {
    let thing = param.strip_suffix("_id")?;
    let names = [
        format!("{thing}s"),
        format!("{thing}es"),
        thing
            .strip_suffix('y')
            .map(|s| format!("{s}ies"))
            .unwrap_or_default(),
        thing.to_owned(),
    ];
    collections
        .keys()
        .filter(|key| !key.contains("{}") && key.matches('/').count() == 1)
        .filter(|key| names.iter().any(|n| key[1..] == *n))
        .filter(|key| collections[*key].has_list || collections[*key].has_create)
        .min_by_key(|key| key.len())
        .cloned()
}

/// Whether `/P/{id}/name` (or `/P/view/{value}/name`) has a sibling item path `/P/name/{id}`:
/// its records are then a collection of their own below each record of `P`, not an action on it.
fn creates_below(segments: &[Segment], has_item_below: &HashMap<String, bool>) -> bool {
    let n = segments.len();
    let without = |from: usize| {
        let mut kept: Vec<Segment> = segments[..from].to_vec();
        kept.extend_from_slice(&segments[n - 1..]);
        key_of(&kept)
    };
    let mut siblings = vec![without(n - 2)];
    if n >= 4 && matches!(segments[n - 3], Segment::Static(_)) {
        siblings.push(without(n - 3));
    }
    siblings
        .iter()
        .any(|sibling| has_item_below.contains_key(sibling))
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
                                owner_field: None,
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

/// The record property a path segment names (`digital-files` is `digital_files`).
fn field_name(segment: &str) -> String {
    segment.replace('-', "_")
}

/// Whether the records of `info` declare an array property `name`.
fn declares_array(doc: &Document, info: &CollectionInfo, name: &str) -> bool {
    info.record_schemas.iter().any(|schema| {
        doc.view(schema)
            .property(name)
            .is_some_and(|p| doc.view(p).items.is_some())
    })
}

/// Whether an operation on collection `key` reads field `field` from its query or its body.
fn reads_field(doc: &Document, key: &str, field: &str) -> bool {
    doc.operations
        .iter()
        .filter(|op| key_of(&op.segments) == key)
        .any(|op| {
            op.query_param(field).is_some()
                || op
                    .body
                    .as_ref()
                    .and_then(|b| b.schema.as_ref())
                    .is_some_and(|s| doc.view(s).property(field).is_some())
        })
}

/// Child collections found by the document's paths where no component says so (a product's
/// gallery answers `ProductImage`s through `/products/{}/images` but holds `ProductGalleryImage`s):
///
/// - `/P/{}/name` whose parent's records declare an array `name` is held there, per parent
///   (`/products/{}/digital-files` in a product's `digital_files`);
/// - `/P/name` (its records found by their own id, `/P/name/{id}`) whose `P` records declare an
///   array `name` is held there too, the owner named by the path of its sibling `/P/{}/name`
///   (`/products/digital-files/{id}`), or by a `<p>_id` field of its requests
///   (`/orders/items?order_id=`, `POST /orders/items`);
/// - `/P/name` whose sibling `/P/{}/name` is a collection of its own (no array of the parent's
///   records holds it) is that collection's item path.
fn embed_by_name(doc: &Document, collections: &mut HashMap<String, CollectionInfo>) {
    let mut keys: Vec<String> = collections.keys().cloned().collect();
    // Per-parent ones first: a sibling `/P/name` follows them.
    keys.sort_by_key(|k| !k.contains("{}"));
    for key in &keys {
        let info = &collections[key];
        if info.embedded.is_some() || info.alias_of.is_some() || info.singleton {
            continue;
        }
        let Some((stem, last)) = key.rsplit_once('/') else {
            continue;
        };
        if last == "{}" || last.is_empty() {
            continue;
        }
        let field = field_name(last);
        let found = if let Some(parent) = stem.strip_suffix("/{}") {
            // `/P/{}/name`: below one record of P (P itself may be a view: `/products/sku`).
            let owner = collections
                .get(parent)
                .and_then(|p| p.alias_of.clone())
                .unwrap_or_else(|| parent.to_owned());
            collections
                .get(&owner)
                .filter(|o| declares_array(doc, o, &field))
                .map(|_| Embedded {
                    owner,
                    path: vec![field.clone()],
                    per_parent: true,
                    owner_field: None,
                })
        } else {
            let sibling = format!("{stem}/{{}}/{last}");
            match collections.get(&sibling) {
                Some(sibling) if sibling.embedded.is_some() => {
                    sibling.embedded.clone().map(|e| Embedded {
                        per_parent: false,
                        owner_field: None,
                        ..e
                    })
                }
                Some(sibling) if !info.has_list && !info.has_create => {
                    let sibling = sibling.key.clone();
                    if let Some(info) = collections.get_mut(key) {
                        info.alias_of = Some(sibling);
                    }
                    continue;
                }
                _ => {
                    let owner_field = stem
                        .rsplit('/')
                        .next()
                        .map(|name| format!("{}_id", super::singular(name)));
                    collections
                        .get(stem)
                        .filter(|o| o.parent.is_none() && declares_array(doc, o, &field))
                        .zip(owner_field)
                        .filter(|(_, f)| reads_field(doc, key, f))
                        .map(|(_, owner_field)| Embedded {
                            owner: stem.to_owned(),
                            path: vec![field.clone()],
                            per_parent: false,
                            owner_field: Some(owner_field),
                        })
                }
            }
        };
        if let Some(found) = found
            && let Some(info) = collections.get_mut(key)
        {
            info.embedded = Some(found);
        }
    }
}

/// A read-only sub-collection whose records are a view of another collection's (their component
/// is named after that collection's: `OrderAssignedEmployee` shows an `Employee` of `/users`),
/// held by id in a field of the parent's records: the array field, declared by the parent's
/// records or read by the parent's list as a query parameter (the records hold the fields their
/// list filters by), whose name says it holds those things (`assign_employee[]` of
/// `GET /orders`).
fn held_by_parent(
    doc: &Document,
    collections: &HashMap<String, CollectionInfo>,
    info: &CollectionInfo,
    parent: &str,
) -> Option<Related> {
    let (source, thing) = info
        .record_types
        .iter()
        .flat_map(|own| {
            collections
                .values()
                .filter(|c| c.parent.is_none() && c.alias_of.is_none() && c.has_list)
                .flat_map(move |c| {
                    c.record_types
                        .iter()
                        .filter(move |t| own.len() > t.len() && own.ends_with(t.as_str()))
                        .map(move |t| (c.key.clone(), t.to_ascii_lowercase()))
                })
        })
        .max_by(|a, b| (a.1.len(), &b.0).cmp(&(b.1.len(), &a.0)))?;
    let source_thing = super::singular(source.rsplit('/').next().unwrap_or_default());
    let names_them = |name: &str| name.contains(&thing) || name.contains(&source_thing);
    let is_array = |schema: &Value| doc.view(schema).kind() == Some("array");
    let parent_info = collections.get(parent)?;
    let declared = parent_info.record_schemas.iter().find_map(|schema| {
        doc.view(schema)
            .properties
            .iter()
            .find(|(name, property)| names_them(name) && is_array(property))
            .map(|(name, _)| (*name).to_owned())
    });
    let filtered = || {
        doc.operations
            .iter()
            .filter(|op| op.method == Method::GET && key_of(&op.segments) == parent)
            .flat_map(|op| &op.params)
            .filter(|p| p.location == crate::document::Location::Query)
            .find(|p| names_them(&p.key) && is_array(&p.schema))
            .map(|p| p.key.clone())
    };
    let field = declared.or_else(filtered)?;
    Some(Related {
        source,
        field,
        held: true,
    })
}

/// Read-only sub-collections that list another collection's records pointing at the parent
/// (`/categories/{}/products`: the products whose `categories` hold the category;
/// `/categories/{}/children`: the categories whose `parent_id` is it), and the records that hold
/// their own collection's records in an array (a category's sub-categories in `items`).
fn relate(doc: &Document, collections: &mut HashMap<String, CollectionInfo>) {
    let keys: Vec<String> = collections.keys().cloned().collect();
    for key in &keys {
        let info = &collections[key];
        if info.embedded.is_some() || info.alias_of.is_some() || info.has_create {
            continue;
        }
        let Some((parent, _)) = info.parent.clone() else {
            continue;
        };
        let Some(parent_name) = parent.rsplit('/').next().map(str::to_owned) else {
            continue;
        };
        let declares = |info: &CollectionInfo, name: &str| {
            info.record_schemas
                .iter()
                .any(|s| doc.view(s).property(name).is_some())
        };
        // `/name`, or a sibling of the parent's collection (`/shipping/name` beside
        // `/shipping/companies`).
        let sibling = parent
            .rsplit_once('/')
            .map(|(above, _)| format!("{above}/{}", info.name));
        let source = [Some(format!("/{}", info.name)), sibling]
            .into_iter()
            .flatten()
            .find(|candidate| {
                collections.get(candidate).is_some_and(|c| {
                    c.parent.is_none() && c.alias_of.is_none() && c.has_list && c.key != parent
                })
            });
        let related = match source {
            // The records of another collection, by the field that names the parent: the
            // parent's collection name (`categories`), or `<parent>_id`.
            Some(source) => {
                let singular = super::singular(&parent_name);
                let field = [format!("{singular}_id"), singular.clone()]
                    .into_iter()
                    .find(|f| declares(&collections[&source], f))
                    .unwrap_or(parent_name.clone());
                Some(Related {
                    source,
                    field,
                    held: false,
                })
            }
            None if collections
                .get(&parent)
                .is_some_and(|p| declares(p, "parent_id")) =>
            {
                Some(Related {
                    source: parent.clone(),
                    field: "parent_id".to_owned(),
                    held: false,
                })
            }
            None => held_by_parent(doc, collections, info, &parent),
        };
        if let Some(related) = related
            && let Some(info) = collections.get_mut(key)
        {
            info.related = Some(related);
        }
    }
    for key in &keys {
        let info = &collections[key];
        if info.parent.is_some()
            || !info
                .record_schemas
                .iter()
                .any(|s| doc.view(s).property("parent_id").is_some())
        {
            continue;
        }
        let field = info.record_schemas.iter().find_map(|schema| {
            doc.view(schema)
                .properties
                .iter()
                .find_map(|(name, property)| {
                    let items = doc.view(property).items?;
                    let own = Document::ref_name(items)?;
                    info.record_types
                        .iter()
                        .any(|t| t == own)
                        .then(|| (*name).to_owned())
                })
        });
        if let Some(field) = field
            && let Some(info) = collections.get_mut(key)
        {
            info.children_field = Some(field);
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
        // Child collections found by the paths, where no component says so.
        assert_eq!(of("create_product_image").action, Action::Create);
        let embedded = |key: &str| {
            collections[key].embedded.as_ref().map(|e| {
                (
                    e.owner.clone(),
                    e.path.clone(),
                    e.per_parent,
                    e.owner_field.clone(),
                )
            })
        };
        let images = Some((
            "/products".to_owned(),
            vec!["images".to_owned()],
            true,
            None,
        ));
        assert_eq!(embedded("/products/{}/images"), images);
        assert_eq!(embedded("/products/sku/{}/images"), images);
        assert_eq!(
            embedded("/products/images").map(|e| e.2),
            Some(false),
            "found in any product by its own id"
        );
        assert_eq!(
            embedded("/orders/items"),
            Some((
                "/orders".to_owned(),
                vec!["items".to_owned()],
                false,
                Some("order_id".to_owned())
            ))
        );
        // A product's digital files are held in its `digital_files`, found by their own id.
        let files = |per_parent| {
            Some((
                "/products".to_owned(),
                vec!["digital_files".to_owned()],
                per_parent,
                None,
            ))
        };
        assert_eq!(embedded("/products/{}/digital-files"), files(true));
        assert_eq!(embedded("/products/digital-files"), files(false));
        let related = |key: &str| {
            collections[key]
                .related
                .as_ref()
                .map(|r| (r.source.clone(), r.field.clone()))
        };
        assert_eq!(
            related("/categories/{}/products"),
            Some(("/products".to_owned(), "categories".to_owned()))
        );
        assert_eq!(
            related("/categories/{}/children"),
            Some(("/categories".to_owned(), "parent_id".to_owned()))
        );
        assert_eq!(
            collections["/categories"].children_field.as_deref(),
            Some("items")
        );
        assert_eq!(
            collections["/categories/search"].alias_of.as_deref(),
            Some("/categories")
        );
        // A GET of a path ending in a parameter that answers a list: the records below the
        // record the parameter names (an order's assigned employees, held by id in the order).
        assert_eq!(of("list_order_assigned_employees").action, Action::List);
        let assigned = &collections["/orders/assignment/{}"];
        assert_eq!(
            assigned.parent,
            Some(("/orders".to_owned(), "order_id".to_owned()))
        );
        assert_eq!(
            assigned
                .related
                .as_ref()
                .map(|r| (r.source.as_str(), r.field.as_str(), r.held)),
            Some(("/users", "assign_employee", true))
        );
        assert_eq!(
            of("list_order_assignment_rules").collection.as_deref(),
            Some("/orders/assignment/rules")
        );
    }
}
