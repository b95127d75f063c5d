//! The resource engine: every operation of the document served from the document alone. The
//! router, the query and body checks, paging, the CRUD semantics and the shaping of answers are
//! generic ([`infer`] says what each operation does); an operation with behaviour of its own
//! (shipment transitions, webhooks, product options, ...) has an override registered by its
//! `operationId` in [`crate::overrides`], which still goes through the same checks and shaping.

pub(crate) mod complete;
pub(crate) mod crud;
pub(crate) mod embedded;
pub(crate) mod include;
pub(crate) mod infer;
pub(crate) mod query;
pub(crate) mod router;
pub(crate) mod validate;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};

use crate::document::{Document, Operation};
use crate::error::{ApiError, FieldErrors, Lang, Text};
use crate::fake::{Generator, stable_hash};
use crate::paging::{PageRequest, QueryPairs, page_window};
use crate::respond::{Handled, Reply, envelope, json_bytes_response};
use crate::shape::{Input, render};
use crate::state::Shared;
pub(crate) use infer::{Action, CollectionInfo, Plan};
use router::Router;

/// Engines built so far, by the address of their document.
type Engines = Vec<(usize, Arc<Engine>)>;

/// A handler of its own for one operation (see [`crate::overrides`]).
pub(crate) type Override = fn(&Call<'_>) -> Handled;

/// One operation the document cannot describe alone: its handler and, when its 422 for
/// schema-valid data depends on the store's state or on two fields at once, why (what `GET /`
/// lists and `.ci/mock-checks` tells schemathesis).
#[derive(Clone, Copy)]
pub(crate) struct OverrideRow {
    /// The `operationId` it serves.
    pub operation_id: &'static str,
    pub handler: Override,
    /// Why schema-valid data can be refused with 422, if it can.
    pub state_rule: Option<&'static str>,
}

impl OverrideRow {
    /// An override whose answers follow from its input alone.
    pub const fn new(operation_id: &'static str, handler: Override) -> Self {
        Self {
            operation_id,
            handler,
            state_rule: None,
        }
    }

    /// An override that refuses schema-valid data for the reason `why`.
    pub const fn refusing(
        operation_id: &'static str,
        handler: Override,
        why: &'static str,
    ) -> Self {
        Self {
            operation_id,
            handler,
            state_rule: Some(why),
        }
    }
}

/// The document made executable.
pub(crate) struct Engine {
    pub doc: Arc<Document>,
    pub plans: Vec<Plan>,
    pub collections: HashMap<String, CollectionInfo>,
    pub router: Router,
    by_id: HashMap<String, usize>,
    /// Validators of the JSON bodies, compiled on first use.
    bodies: Vec<OnceLock<Option<jsonschema::Validator>>>,
    overrides: Vec<Option<OverrideRow>>,
    /// Webhook event names the document knows (`x-known-values` of the event schemas).
    pub events: Vec<String>,
    /// [`Engine::collection_for_field`]'s answers so far.
    field_targets: Mutex<HashMap<String, Option<String>>>,
}

/// One request, routed and checked, as a handler sees it.
pub(crate) struct Call<'a> {
    pub state: &'a Shared,
    pub engine: &'a Engine,
    pub op: &'a Operation,
    pub plan: &'a Plan,
    /// Path parameters by the document's names.
    pub params: Vec<(String, String)>,
    pub query: QueryPairs,
    /// The request path (percent-encoded, without the query), for pagination links.
    pub path: String,
    /// The JSON body (an empty one is `{}`), a form's fields without its files as an object, or
    /// `Null` for an operation without a body.
    pub body: Value,
    /// The language of the error messages (the request's `Accept-Language`).
    pub lang: Lang,
    /// The files of a `multipart/form-data` body, by field name.
    pub files: Vec<(String, Bytes)>,
}

impl Call<'_> {
    /// The path parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The last path parameter (the record an item path names).
    pub fn last_param(&self) -> Option<&str> {
        self.params.last().map(|(_, v)| v.as_str())
    }

    /// The body's object (empty for a body that is not one).
    pub fn body_object(&self) -> Map<String, Value> {
        self.body.as_object().cloned().unwrap_or_default()
    }

    /// A generator seeded for this operation and `serial`.
    pub fn generator(&self, serial: u64) -> Generator<'_> {
        Generator::new(
            &self.engine.doc,
            stable_hash(&[
                &self.state.seed.to_string(),
                &self.op.id,
                &serial.to_string(),
            ]),
            serial,
        )
    }
}

/// Serves `call` by its plan: the operations on records embedded in another record's array by
/// [`embedded`], the others by [`crud`]. Overrides that add to what the generic semantics do
/// (an order repriced after its items change) call it too.
pub(crate) fn generic(call: &Call<'_>) -> Handled {
    if let Some(embedded) = call
        .plan
        .collection
        .as_deref()
        .and_then(|key| call.engine.collections.get(key))
        .and_then(|info| info.embedded.as_ref())
        && !matches!(call.plan.action, Action::Command(_))
    {
        return embedded::handle(call, embedded);
    }
    crud::generic(call)
}

/// The singular of a collection name (`categories` gives `category`), for event names.
pub(crate) fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name
        .strip_suffix("ses")
        .or_else(|| name.strip_suffix("ches"))
        .or_else(|| name.strip_suffix("xes"))
    {
        format!("{stem}{}", &name[stem.len()..name.len() - 2])
    } else if let Some(stem) = name.strip_suffix('s') {
        stem.to_owned()
    } else {
        name.to_owned()
    }
}

impl Engine {
    /// The engine of `doc`, built once per document and process.
    pub fn for_document(doc: Arc<Document>, registry: &[OverrideRow]) -> Arc<Engine> {
        static ENGINES: OnceLock<Mutex<Engines>> = OnceLock::new();
        let key = Arc::as_ptr(&doc) as usize;
        let engines = ENGINES.get_or_init(Default::default);
        if let Some((_, engine)) = engines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(k, _)| *k == key)
        {
            return engine.clone();
        }
        let engine = Arc::new(Engine::new(doc, registry));
        let mut engines = engines.lock().unwrap_or_else(PoisonError::into_inner);
        if engines.len() > 16 {
            engines.remove(0);
        }
        engines.push((key, engine.clone()));
        engine
    }

    fn new(doc: Arc<Document>, registry: &[OverrideRow]) -> Self {
        let (plans, collections) = infer::plan(&doc);
        let router = Router::new(&doc.operations);
        let by_id = doc
            .operations
            .iter()
            .enumerate()
            .map(|(i, op)| (op.id.clone(), i))
            .collect();
        let bodies = doc.operations.iter().map(|_| OnceLock::new()).collect();
        let overrides = doc
            .operations
            .iter()
            .map(|op| {
                registry
                    .iter()
                    .find(|row| row.operation_id == op.id)
                    .copied()
            })
            .collect();
        let mut events: Vec<String> = Vec::new();
        for op in &doc.operations {
            if op.tag.as_deref() != Some("Webhooks") && !op.path.starts_with("/webhooks") {
                continue;
            }
            let mut schemas: Vec<&Value> = Vec::new();
            if let Some(schema) = op.success_schema.as_ref() {
                schemas.extend(
                    ["data.event", "data.[].event"]
                        .iter()
                        .filter_map(|p| doc.property(schema, p)),
                );
            }
            if let Some(schema) = op.body.as_ref().and_then(|b| b.schema.as_ref()) {
                schemas.extend(doc.property(schema, "event"));
            }
            for schema in schemas {
                for event in doc.known_values(schema) {
                    if !events.contains(&event) {
                        events.push(event);
                    }
                }
            }
        }
        Self {
            doc,
            plans,
            collections,
            router,
            by_id,
            bodies,
            overrides,
            events,
            field_targets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether operation `id` has a handler of its own.
    pub fn overridden(&self, id: &str) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|&index| self.overrides[index].is_some())
    }

    /// Operations whose 422 for schema-valid data depends on the store or on two fields at once,
    /// with the reason: the overrides' own ([`OverrideRow::state_rule`]), and what the generic
    /// semantics imply (a `<thing>_id` naming a record, a date range, a `sort_by` attribute).
    pub fn state_rules(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for ((op, plan), row) in self
            .doc
            .operations
            .iter()
            .zip(&self.plans)
            .zip(&self.overrides)
        {
            let mut why: Vec<String> = row
                .and_then(|row| row.state_rule)
                .map(str::to_owned)
                .into_iter()
                .collect();
            if let Some(schema) = op.body.as_ref().and_then(|b| b.schema.as_ref()) {
                for (name, _) in self.doc.view(schema).properties {
                    if name.ends_with("_id")
                        && (name == "parent_id" || self.collection_for_field(name).is_some())
                    {
                        why.push(format!("{name} must name an existing record"));
                    }
                }
            }
            if matches!(plan.action, Action::List) {
                let dates = op
                    .params
                    .iter()
                    .filter(|p| {
                        self.doc
                            .view(&p.schema)
                            .keyword("format")
                            .and_then(Value::as_str)
                            == Some("date")
                    })
                    .count();
                if dates >= 2 {
                    why.push(
                        "the upper date bound may not be before the lower one (two fields)".into(),
                    );
                }
                if op.query_param("sort_by").is_some() {
                    why.push("sort_by must name an attribute the records have".into());
                }
            }
            if !why.is_empty() {
                out.push((op.id.clone(), why.join("; ")));
            }
        }
        out
    }

    /// A body operation `index` accepts (see [`crate::MockServer::sample_body`]).
    pub fn sample_body(
        &self,
        store: &crate::store::Store,
        index: usize,
        seed: u64,
    ) -> Option<Value> {
        let op = self.doc.operations.get(index)?;
        let schema = op.body.as_ref().filter(|b| b.json)?.schema.as_ref()?;
        let related = |field: &str, rng: &mut rand::rngs::StdRng| -> Option<Value> {
            use rand::Rng;
            let key = if field == "parent_id" {
                self.plans.get(index)?.collection.clone()?
            } else {
                self.collection_for_field(field)?.key.clone()
            };
            let records = store.records(self.real_key(&key));
            let ids: Vec<Value> = records
                .iter()
                .filter_map(|r| r.get("id").cloned())
                .collect();
            (!ids.is_empty()).then(|| ids[rng.random_range(0..ids.len())].clone())
        };
        let mut generator = Generator::new(&self.doc, stable_hash(&[&seed.to_string(), &op.id]), 1)
            .with_related(&related);
        Some(generator.value(schema, "body"))
    }

    /// What the body check of operation `index` finds wrong with the JSON body `body` (nothing
    /// for a valid one), as a request would be checked before its record is looked up.
    pub fn body_errors(
        &self,
        state: &Shared,
        index: usize,
        body: &Value,
    ) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
        let op = self.doc.operations.get(index)?;
        let plan = self.plans.get(index)?;
        let raw = Bytes::from(serde_json::to_vec(body).ok()?);
        Some(match self.read_body(state, index, op, plan, &raw, None) {
            // In English: the check is read by tests and tools, not by a client.
            Ok((_, errors)) => errors.into_map(Lang::English),
            Err(error) => std::collections::BTreeMap::from([(
                "body".to_owned(),
                vec![format!("{}", error.status)],
            )]),
        })
    }

    /// The index of operation `id`.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The collection that holds the records of `key` (itself, or the one it is a view of).
    pub fn real_key<'a>(&'a self, key: &'a str) -> &'a str {
        self.collections
            .get(key)
            .and_then(|c| c.alias_of.as_deref())
            .unwrap_or(key)
    }

    /// The top-level collection a field such as `customer_id` (or `customer`) refers to.
    pub fn collection_for_field(&self, field: &str) -> Option<&CollectionInfo> {
        let mut targets = self
            .field_targets
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(key) = targets.get(field) {
            return key.as_ref().and_then(|k| self.collections.get(k));
        }
        let found = self.find_collection_for_field(field).map(|c| c.key.clone());
        if targets.len() < 4096 {
            targets.insert(field.to_owned(), found.clone());
        }
        found.and_then(|k| self.collections.get(&k))
    }

    fn find_collection_for_field(&self, field: &str) -> Option<&CollectionInfo> {
        let base = field.strip_suffix("_id").unwrap_or(field);
        if base.is_empty() {
            return None;
        }
        let candidates = [
            base.to_owned(),
            format!("{base}s"),
            format!("{base}es"),
            base.strip_suffix('y')
                .map(|s| format!("{s}ies"))
                .unwrap_or_default(),
        ];
        let mut found: Vec<&CollectionInfo> = self
            .collections
            .values()
            .filter(|c| {
                c.parent.is_none()
                    && c.alias_of.is_none()
                    && !c.singleton
                    && (c.has_list || c.has_create)
                    && candidates.contains(&c.name)
            })
            .collect();
        found.sort_by_key(|c| c.key.len());
        found.first().copied()
    }

    /// Serves one routed request: checks its query and body, runs the override or the generic
    /// handler, and shapes the answer by the operation's schema.
    #[allow(clippy::too_many_arguments)]
    pub fn handle(
        &self,
        state: &Shared,
        index: usize,
        params: Vec<(String, String)>,
        path: &str,
        raw_query: Option<&str>,
        raw_body: Bytes,
        form: Option<Result<Option<Vec<FormField>>, Text>>,
        lang: Lang,
    ) -> Response {
        let (Some(op), Some(plan)) = (self.doc.operations.get(index), self.plans.get(index)) else {
            return ApiError::not_found().respond(lang);
        };
        // An integer path parameter that is not one (or is out of its bounds) names nothing.
        for (name, value) in &params {
            let Some(param) = op
                .params
                .iter()
                .find(|p| p.location == crate::document::Location::Path && p.name == *name)
            else {
                continue;
            };
            let view = self.doc.view(&param.schema);
            if view.kind() == Some("integer") {
                let fits = value
                    .trim()
                    .parse::<i64>()
                    .is_ok_and(|n| view.range().admits(n as f64));
                if !fits {
                    return ApiError::not_found().respond(lang);
                }
            }
        }
        let query = QueryPairs::parse(raw_query);
        let mut errors = FieldErrors::new();
        if let Err(query_errors) = query::check(&self.doc, op, &query) {
            errors.extend(query_errors);
        }
        if op.paged()
            && let Err(error) = PageRequest::from_query(&query)
        {
            return error.respond(lang);
        }
        let files = match &form {
            Some(Ok(Some(fields))) => fields
                .iter()
                .filter_map(|f| Some((f.name.clone(), f.content.clone()?)))
                .collect(),
            _ => Vec::new(),
        };
        let (body, body_errors) = match self.read_body(state, index, op, plan, &raw_body, form) {
            Ok(body) => body,
            Err(error) => return error.respond(lang),
        };
        errors.extend(body_errors);
        if !errors.is_empty() && !self.path_record_exists(state, plan, &params) {
            return ApiError::not_found().respond(lang);
        }
        if !errors.is_empty() {
            return errors.into_error().respond(lang);
        }
        let call = Call {
            state,
            engine: self,
            op,
            plan,
            params,
            query,
            path: path.to_owned(),
            body,
            lang,
            files,
        };
        let handled = match self.overrides.get(index).copied().flatten() {
            Some(row) => (row.handler)(&call),
            None => generic(&call),
        };
        match handled {
            Ok(reply) => self.finish(&call, reply),
            Err(error) => error.respond(lang),
        }
    }

    /// Whether the record the path names exists (true when the path names none, or names it in a
    /// collection the store does not hold): a request about a missing record is a 404 before its
    /// body is checked.
    fn path_record_exists(&self, state: &Shared, plan: &Plan, params: &[(String, String)]) -> bool {
        let Some(key) = plan.collection.as_deref() else {
            return true;
        };
        // A create below a record (`POST /products/{id}/images`) is about that record.
        let (key, at) = match (
            &plan.action,
            self.collections.get(key).and_then(|c| c.parent.as_ref()),
        ) {
            (Action::Create, Some((parent, _))) => (parent.as_str(), parent.matches("{}").count()),
            (Action::Create, None) => return true,
            _ => (key, key.matches("{}").count()),
        };
        let Some((param, value)) = (match plan.action {
            Action::Details | Action::Update | Action::Delete | Action::OnItem | Action::Create => {
                params.get(at)
            }
            _ => None,
        }) else {
            return true;
        };
        let store = state.read();
        let real = self.real_key(key);
        store.records(real).len() == 0 || crud::find_id(&store, real, param, value).is_some()
    }

    /// Whether property `name` of `schema` is a file (`format: binary`, or an array of them).
    fn is_file_field(&self, schema: &Value, name: &str) -> bool {
        let Some(property) = self.doc.view(schema).property(name.trim_end_matches("[]")) else {
            return false;
        };
        let view = self.doc.view(property);
        let view = match view.items {
            Some(items) if view.kind() == Some("array") => self.doc.view(items),
            _ => view,
        };
        view.keyword("format").and_then(Value::as_str) == Some("binary")
    }

    /// The fields of a form as the JSON object the body's schema describes: a file is a string,
    /// a text field is read as the property's type (an integer, a number, a boolean; left a
    /// string when it is not one, so that the check names it), repeated names (and `name[]`)
    /// make an array.
    fn form_value(&self, schema: &Value, fields: Vec<FormField>) -> Value {
        let view = self.doc.view(schema);
        let mut object = Map::new();
        for field in fields {
            let name = field
                .name
                .strip_suffix("[]")
                .unwrap_or(&field.name)
                .to_owned();
            let property = view.property(&name).map(|p| self.doc.view(p));
            let is_array = property.as_ref().and_then(|p| p.kind()) == Some("array");
            let item_kind = property
                .as_ref()
                .and_then(|p| p.items)
                .and_then(|items| self.doc.view(items).kind());
            let kind = if is_array {
                item_kind
            } else {
                property.as_ref().and_then(|p| p.kind())
            };
            let value = match (&field.text, field.file) {
                (_, true) | (None, _) => Value::String(String::from("(file)")),
                // A text where a file is declared is no file: the field is missing.
                (Some(_), false) if self.is_file_field(schema, &name) => continue,
                (Some(text), false) => form_text(text, kind),
            };
            if is_array {
                match object
                    .entry(name)
                    .or_insert_with(|| Value::Array(Vec::new()))
                {
                    Value::Array(items) => items.push(value),
                    other => *other = Value::Array(vec![value]),
                }
            } else {
                object.insert(name, value);
            }
        }
        Value::Object(object)
    }

    /// The JSON body of the request and what is wrong with it, or `Err` for a body that is not
    /// JSON at all.
    fn read_body(
        &self,
        state: &Shared,
        index: usize,
        op: &Operation,
        plan: &Plan,
        raw: &Bytes,
        form: Option<Result<Option<Vec<FormField>>, Text>>,
    ) -> Result<(Value, FieldErrors), ApiError> {
        let Some(declared) = op.body.as_ref() else {
            return Ok((Value::Null, FieldErrors::new()));
        };
        let empty = raw.iter().all(u8::is_ascii_whitespace);
        if empty && declared.required {
            return Err(ApiError::bad_request(Text::new(
                "The request body is required.",
                "محتوى الطلب مطلوب.",
            )));
        }
        if !declared.json {
            // A form is checked against the body's schema (its text fields read by the types the
            // schema gives them) and handed on without its files, so that what a merchant typed
            // (a brand's name) is stored; a JSON object sent instead is read as the service reads
            // it, unchecked; anything else hands on no body.
            let mut errors = FieldErrors::new();
            let mut body = Value::Null;
            match form {
                Some(Err(message)) => return Err(ApiError::bad_request(message)),
                Some(Ok(Some(fields))) if declared.multipart => {
                    let files: Vec<String> = fields
                        .iter()
                        .filter(|f| f.file || f.text.is_none())
                        .map(|f| f.name.trim_end_matches("[]").to_owned())
                        .collect();
                    if let Some(schema) = declared.schema.as_ref() {
                        let value = self.form_value(schema, fields);
                        validate::long_strings(&value, state.limits.field_bytes, &mut errors);
                        let validator = self.bodies.get(index).and_then(|cell| {
                            cell.get_or_init(|| self.doc.validator(schema)).as_ref()
                        });
                        if let Some(validator) = validator {
                            errors.extend(validate::check(validator, &value));
                        }
                        validate::out_of_range_integers(
                            &self.doc,
                            schema,
                            &value,
                            "",
                            &mut errors,
                            0,
                        );
                        body = value;
                    } else {
                        body = Value::Object(
                            fields
                                .into_iter()
                                .filter_map(|f| Some((f.name, Value::String(f.text?))))
                                .collect(),
                        );
                    }
                    if let Value::Object(map) = &mut body {
                        map.retain(|name, _| !files.contains(name));
                    }
                }
                Some(Ok(Some(_))) => {}
                _ => {
                    if let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(raw) {
                        body = value;
                    }
                }
            }
            return Ok((body, errors));
        }
        let value = if empty {
            Value::Object(Map::new())
        } else {
            serde_json::from_slice::<Value>(raw).map_err(|error| {
                ApiError::bad_request(Text::new(
                    format!("The request body is not valid JSON: {error}"),
                    format!("محتوى الطلب ليس JSON صالحًا: {error}"),
                ))
            })?
        };
        let mut errors = FieldErrors::new();
        let stores = matches!(
            plan.action,
            Action::Create | Action::Update | Action::OnItem | Action::Command(Some(_))
        );
        if stores && raw.len() > state.limits.record_bytes {
            let limit = state.limits.record_bytes;
            errors.add(
                "body",
                Text::new(
                    format!("The request body of a record may not be larger than {limit} bytes."),
                    format!("يجب ألا يتجاوز حجم محتوى طلب السجل {limit} بايت."),
                ),
            );
        }
        validate::long_strings(&value, state.limits.field_bytes, &mut errors);
        let validator = self.bodies.get(index).and_then(|cell| {
            cell.get_or_init(|| {
                let schema = op.body.as_ref().and_then(|b| b.schema.as_ref())?;
                self.doc.validator(schema)
            })
            .as_ref()
        });
        let schema = op.body.as_ref().and_then(|b| b.schema.as_ref());
        // Checked as the service's validation reads it (numeric strings, `0`/`1` booleans).
        let read = match schema {
            Some(schema) => validate::laravel(&self.doc, schema, &value),
            None => std::borrow::Cow::Borrowed(&value),
        };
        if let Some(validator) = validator {
            errors.extend(validate::check(validator, &validate::widened(&read)));
        }
        if let Some(schema) = schema {
            validate::out_of_range_integers(&self.doc, schema, &read, "", &mut errors, 0);
            if state.strict_fields {
                validate::unknown_fields(&self.doc, schema, &value, "", &mut errors, 0);
            }
        }
        Ok((value, errors))
    }

    fn finish(&self, call: &Call<'_>, reply: Reply) -> Response {
        let status = StatusCode::from_u16(call.op.success_status).unwrap_or(StatusCode::OK);
        match reply {
            Reply::Response(response) => response,
            Reply::Data(data) => {
                let data = self.expand_references(call, data);
                self.data_response(call, status, withheld(call, data))
            }
            Reply::DataWithStatus(status, data) => {
                let data = self.expand_references(call, data);
                self.data_response(call, status, withheld(call, data))
            }
            Reply::Records(records) => {
                let refs: Vec<&Value> = records.iter().collect();
                self.list_response(call, refs)
            }
            Reply::SharedRecords(records) => {
                let refs: Vec<&Value> = records.iter().collect();
                self.list_response(call, refs)
            }
        }
    }

    /// `data` with each field that holds ids of another collection's records (a product's
    /// `categories: [12, 14]`), where the answer declares objects there, holding those records as
    /// the store has them (an id the store does not hold stays an id).
    fn expand_references(&self, call: &Call<'_>, mut data: Value) -> Value {
        let Some(schema) = call.plan.record_schema.as_ref() else {
            return data;
        };
        let Value::Object(map) = &mut data else {
            return data;
        };
        let is_id = |v: &Value| v.is_i64() || v.is_u64();
        let view = self.doc.view(schema);
        let mut store = None;
        for (name, property) in &view.properties {
            let Some(value) = map.get_mut(*name) else {
                continue;
            };
            let ids_only = match &*value {
                Value::Array(items) => !items.is_empty() && items.iter().all(is_id),
                other => is_id(other),
            };
            if !ids_only {
                continue;
            }
            let declared = self.doc.view(property);
            let target = match declared.items {
                Some(items) => self.doc.view(items),
                None => declared,
            };
            if target.kind() != Some("object") || target.property("id").is_none() {
                continue;
            }
            let Some(info) = self.collection_for_field(name) else {
                continue;
            };
            let key = self.real_key(&info.key).to_owned();
            let store = store.get_or_insert_with(|| call.state.read());
            let expand = |id: &mut Value| {
                if let Some(record) =
                    crate::store::id_text_value(id).and_then(|t| store.get(&key, &t))
                {
                    *id = record.clone();
                }
            };
            match value {
                Value::Array(items) => items.iter_mut().for_each(expand),
                other => expand(other),
            }
        }
        data
    }

    /// The success answer of `data`, shaped by the operation's schema.
    pub fn data_response(&self, call: &Call<'_>, status: StatusCode, data: Value) -> Response {
        if let Some(media) = call.op.success_media.as_deref() {
            // Not JSON (a file): an empty body of the documented type.
            let mut response = Response::new(axum::body::Body::empty());
            *response.status_mut() = status;
            if let Ok(value) = axum::http::HeaderValue::from_str(media) {
                response
                    .headers_mut()
                    .insert(axum::http::header::CONTENT_TYPE, value);
            }
            return response;
        }
        let body = if call.plan.enveloped {
            envelope(status, data)
        } else {
            data
        };
        let serial = body
            .pointer("/data/id")
            .and_then(crate::store::id_text_value)
            .map_or(0, |id| stable_hash(&[&id]) % 10_000);
        self.answer(call, status, Input::Value(&body), serial)
    }

    /// The answer of `body`, shaped by the operation's schema and written out.
    fn answer(
        &self,
        call: &Call<'_>,
        status: StatusCode,
        body: Input<'_>,
        serial: u64,
    ) -> Response {
        // Without a schema, the untyped schema (`null`) answers the body as it is.
        let schema = call.op.success_schema.as_ref().unwrap_or(&Value::Null);
        let json = render(&self.doc, body, schema, call.generator(serial), "data");
        json_bytes_response(status, json)
    }

    /// A list answer: `records` (newest first) filtered by the query, sorted, paged and shaped.
    /// The page's records are shaped where they are (in the store, or a shared view of it).
    pub fn list_response(&self, call: &Call<'_>, records: Vec<&Value>) -> Response {
        let record_schema = call.plan.record_schema.as_ref();
        let has_field = |field: &str| {
            records.iter().take(64).any(|r| r.get(field).is_some())
                || record_schema.is_some_and(|s| self.doc.view(s).property(field).is_some())
        };
        let filters = match query::Filters::parse(&self.doc, call.op, &call.query, &has_field) {
            Ok(filters) => filters,
            Err(errors) => return errors.into_error().respond(call.lang),
        };
        let mut selected = records;
        if !filters.is_empty() {
            selected.retain(|r| filters.accepts(r));
        }
        filters.sort(&mut selected);
        let request = if call.op.paged() {
            match PageRequest::from_query(&call.query) {
                Ok(request) => request,
                Err(error) => return error.respond(call.lang),
            }
        } else {
            PageRequest {
                page: 1,
                per_page: (selected.len() as u64).max(1),
            }
        };
        let url = format!(
            "{}{}",
            call.state
                .base_url
                .trim_end_matches(crate::document::API_PREFIX),
            call.path
        );
        let (window, pagination) = page_window(selected.len(), request, &url, &call.query);
        let mut page = selected.get(window).unwrap_or_default();
        // The fields shown on request only, left out of copies of the records that have them.
        let withheld = call
            .plan
            .on_request
            .as_ref()
            .map(|o| o.withheld(&call.query))
            .unwrap_or_default();
        let copies: Vec<Option<Value>>;
        let stripped: Vec<&Value>;
        if !withheld.is_empty() {
            copies = page
                .iter()
                .map(|r| include::without(r, &withheld))
                .collect();
            stripped = page
                .iter()
                .zip(&copies)
                .map(|(record, copy)| copy.as_ref().unwrap_or(record))
                .collect();
            page = &stripped;
        }
        let mut body = envelope(StatusCode::OK, Value::Null);
        if let (Some(map), Ok(pagination)) =
            (body.as_object_mut(), serde_json::to_value(&pagination))
        {
            map.insert("pagination".into(), pagination);
        }
        let input = match body.as_object() {
            Some(envelope) if call.plan.enveloped => Input::Enveloped(envelope, page),
            _ => Input::Page(page),
        };
        let status = StatusCode::from_u16(call.op.success_status).unwrap_or(StatusCode::OK);
        self.answer(call, status, input, 0)
    }
}

/// `data` without the fields of its records that the operation shows only when asked and
/// `call` does not ask for ([`include`]).
fn withheld(call: &Call<'_>, mut data: Value) -> Value {
    if let Some(on_request) = &call.plan.on_request {
        include::withhold(&mut data, &on_request.withheld(&call.query));
    }
    data
}

/// One field of a `multipart/form-data` body.
#[derive(Debug, Clone)]
pub(crate) struct FormField {
    pub name: String,
    /// The text of a field that is not a file (and is UTF-8).
    pub text: Option<String>,
    /// Whether the field is a file (it has a file name).
    pub file: bool,
    /// A file's bytes.
    pub content: Option<Bytes>,
}

/// A form field's text as the JSON value of the schema's type `kind`.
fn form_text(text: &str, kind: Option<&str>) -> Value {
    let trimmed = text.trim();
    let parsed = match kind {
        Some("integer") => trimmed
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| trimmed.parse::<u64>().map(Value::from))
            .ok(),
        Some("number") => trimmed
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(Value::from),
        // As the service's form validation reads a boolean: `true`/`false`, `1`/`0`, `on`/`off`,
        // `yes`/`no` (the client sends `1`/`0`).
        Some("boolean") => crate::laravel::laravel_bool(&Value::from(trimmed)).map(Value::Bool),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(text.to_owned()))
}
