//! Read-modify-write of the updates whose documented body requires fields: for each `PUT` whose
//! request schema has required properties and whose path also has a `GET` (the record as it is),
//! the table that turns the read shape into the write shape, field by field, and the
//! `StoreAdmin::modify_*` method that reads, converts, applies the caller's change and sends.
//!
//! The conversion of a field is chosen by comparing the write schema with the read schema of the
//! same name (or, for a flattened write field `a_b` the read lacks, the read's `a.b`):
//!
//! - a number-or-string amount read as a money object (`{"amount": .., "currency": ..}`): the amount;
//! - a string read as a local timestamp object (`{"date": "2025-01-31 00:00:00.000000", ..}`):
//!   its date (`YYYY-MM-DD`) where the write field is a date (`format: date`, or a description
//!   that gives the form `YYYY-MM-DD` without a time), else the date and time without fractions;
//! - a string read as a number-or-string: its text;
//! - an integer read as a record (`{"id": ..}`): its id; a list of integers read as records: their ids;
//! - an object read as an object: the same rules over its properties;
//! - anything else: copied as read.
//!
//! The updates with required fields and no `GET` on their path, and those whose read lacks a
//! required field (no conversion can supply it), are listed in the generated file's header.

use anyhow::{Context, Result, anyhow};
use serde_json::{Map, Value};

use crate::document::{Document, Raw, code_file};
use crate::lint::escape;
use crate::model::Output;
use crate::names::{field_ident, pascal, type_path};

/// Where the table and the methods are written (`modify.rs` includes it).
pub const MODIFY_OUT: &str = "crates/store-admin/src/generated_modify.rs";

/// How one write field is made from the read record (the runtime's `modify::Convert`).
#[derive(Debug, Clone, PartialEq)]
pub enum Convert {
    Copy,
    Text,
    Date,
    DateTime,
    Amount,
    Id,
    Ids,
    Record(Vec<Field>),
}

/// One write field: its name, where it is read from, how it is converted.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub from: Vec<String>,
    pub convert: Convert,
    pub required: bool,
}

/// An update paired with the read of the same path.
#[derive(Debug, Clone)]
pub struct Pairing {
    pub update: String,
    pub get: String,
    pub path: String,
    pub area: &'static str,
    /// Path parameters: (name, Rust type).
    pub params: Vec<(String, &'static str)>,
    /// `with` values the read asks for (the related data the write needs).
    pub with: Option<(String, Vec<String>)>,
    pub get_response: String,
    pub record: String,
    pub body: String,
    pub update_response: String,
    pub fields: Vec<Field>,
    /// Properties of the read record that no write field is made from (dropped).
    pub read_only: Vec<String>,
}

/// An update with required fields that has no read-modify-write, and why.
#[derive(Debug, Clone)]
pub struct Unpaired {
    pub update: String,
    pub why: String,
}

fn json_op<'a>(doc: &'a Document, path: &str, method: &str) -> Option<&'a Value> {
    doc.raw
        .pointer(&format!("/paths/{}/{method}", escape(path)))
}

fn success_schema(op: &Value) -> Option<&Value> {
    op.get("responses")?
        .as_object()?
        .iter()
        .find(|(code, _)| code.starts_with('2'))
        .and_then(|(_, r)| r.pointer("/content/application~1json/schema"))
}

fn strs(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn is_amount(raw: &Raw, schema: &Value) -> bool {
    let schema = raw.resolve(schema);
    let types: Vec<String> = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| raw.resolve(s).get("type").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    types.len() == 2 && types.contains(&"number".to_owned()) && types.contains(&"string".to_owned())
}

fn type_of(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

fn properties<'a>(raw: &Raw<'a>, schema: &'a Value) -> Option<&'a Map<String, Value>> {
    raw.resolve(schema)
        .get("properties")
        .and_then(Value::as_object)
}

fn has_property(raw: &Raw, schema: &Value, name: &str) -> bool {
    properties(raw, schema).is_some_and(|p| p.contains_key(name))
}

/// The write field's conversion from the read schema `read` (none: unknown, copied).
fn convert(raw: &Raw, write: &Value, read: Option<&Value>) -> Convert {
    let resolved = raw.resolve(write);
    let Some(read_schema) = read.map(|r| raw.resolve(r)) else {
        return match properties(raw, write) {
            Some(_) => Convert::Record(fields(raw, write, None)),
            None => Convert::Copy,
        };
    };
    if is_amount(raw, write) || type_of(resolved) == Some("number") {
        return match has_property(raw, read_schema, "amount") {
            true => Convert::Amount,
            false => Convert::Copy,
        };
    }
    match type_of(resolved) {
        Some("string") if has_property(raw, read_schema, "date") => {
            let description = resolved
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let date_only = resolved.get("format").and_then(Value::as_str) == Some("date")
                || (description.contains("YYYY-MM-DD") && !description.contains("HH"));
            match date_only {
                true => Convert::Date,
                false => Convert::DateTime,
            }
        }
        Some("string") if is_amount(raw, read_schema) => Convert::Text,
        Some("integer") if has_property(raw, read_schema, "id") => Convert::Id,
        Some("array") => {
            let items = resolved.get("items").map(|i| raw.resolve(i));
            let read_items = read_schema.get("items");
            match (items.and_then(type_of), read_items) {
                (Some("integer"), Some(r)) if has_property(raw, r, "id") => Convert::Ids,
                _ => Convert::Copy,
            }
        }
        _ if properties(raw, write).is_some() => {
            Convert::Record(fields(raw, write, Some(read_schema)))
        }
        _ => Convert::Copy,
    }
}

/// The write schema's fields, each with its read source in `read` (none: unknown, same name).
fn fields(raw: &Raw, write: &Value, read: Option<&Value>) -> Vec<Field> {
    let resolved = raw.resolve(write);
    let required = strs(resolved.get("required"));
    let read_props = read.and_then(|r| properties(raw, r));
    let mut out = Vec::new();
    for (name, schema) in properties(raw, write).into_iter().flatten() {
        let (from, read_schema) = match read_props {
            None => (vec![name.clone()], None),
            Some(props) => match props.get(name) {
                Some(r) => (vec![name.clone()], Some(r)),
                None => match flattened(raw, props, name) {
                    Some((outer, inner, r)) => (vec![outer, inner], Some(r)),
                    None => (Vec::new(), None),
                },
            },
        };
        let convert = match from.is_empty() {
            true => Convert::Copy,
            false => convert(raw, schema, read_schema),
        };
        out.push(Field {
            name: name.clone(),
            from,
            convert,
            required: required.contains(name),
        });
    }
    out
}

/// `metadata_title` read as `metadata.title`: the read's object property that prefixes the name.
fn flattened<'a>(
    raw: &Raw<'a>,
    props: &'a Map<String, Value>,
    name: &str,
) -> Option<(String, String, &'a Value)> {
    props.iter().find_map(|(outer, schema)| {
        let inner = name.strip_prefix(outer.as_str())?.strip_prefix('_')?;
        let r = properties(raw, schema)?.get(inner)?;
        Some((outer.clone(), inner.to_owned(), r))
    })
}

/// The Rust type of a component schema as the client names it (`types::X`).
fn type_name(schema: &Value) -> Option<String> {
    Raw::ref_name(schema).map(|n| type_path(&n))
}

/// Every pairing and every unpaired update of the document, in document order.
pub fn pairings(doc: &Document) -> Result<(Vec<Pairing>, Vec<Unpaired>)> {
    let raw = Raw(&doc.raw);
    let mut paired = Vec::new();
    let mut unpaired = Vec::new();
    let paths = doc
        .raw
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("the document has no paths"))?;
    for (path, item) in paths {
        for method in ["put", "patch"] {
            let Some(update) = item.get(method) else {
                continue;
            };
            let update_id = update
                .get("operationId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let Some(body) = update.pointer("/requestBody/content/application~1json/schema") else {
                continue;
            };
            let required = strs(raw.resolve(body).get("required"));
            if required.is_empty() {
                continue;
            }
            let Some(get) = json_op(doc, path, "get") else {
                unpaired.push(Unpaired {
                    update: update_id,
                    why: format!(
                        "no `GET {path}` reads the record: send every required field ({})",
                        required.join(", ")
                    ),
                });
                continue;
            };
            let context = || format!("pairing `{update_id}` with the GET of `{path}`");
            let pairing = pairing(&raw, path, item, update, get, body).with_context(context)?;
            let lacking: Vec<&str> = pairing
                .fields
                .iter()
                .filter(|f| f.required && f.from.is_empty())
                .map(|f| f.name.as_str())
                .collect();
            if !lacking.is_empty() {
                unpaired.push(Unpaired {
                    update: update_id,
                    why: format!(
                        "`{}` reads no {}: send every required field ({})",
                        pairing.get,
                        lacking.join(", "),
                        required.join(", ")
                    ),
                });
                continue;
            }
            paired.push(pairing);
        }
    }
    Ok((paired, unpaired))
}

fn pairing(
    raw: &Raw,
    path: &str,
    item: &Value,
    update: &Value,
    get: &Value,
    body: &Value,
) -> Result<Pairing> {
    let id = |op: &Value| {
        op.get("operationId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("an operation without operationId"))
    };
    let tag = update
        .pointer("/tags/0")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("no tag"))?;
    let area = crate::areas::area_of_tag(tag)
        .map(|a| a.name)
        .ok_or_else(|| anyhow!("the tag `{tag}` is in no area"))?;
    let mut params = Vec::new();
    let mut with = None;
    let all_params = item
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(
            get.get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    for p in all_params {
        let p = raw.resolve(p);
        let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
        let schema = p
            .get("schema")
            .map(|s| raw.resolve(s))
            .unwrap_or(&Value::Null);
        match p.get("in").and_then(Value::as_str) {
            Some("path") => {
                let ty = match type_of(schema) {
                    Some("integer") => "i64",
                    _ => "&str",
                };
                params.push((name.to_owned(), ty));
            }
            Some("query") if name == "with" => {
                let values = strs(schema.get("enum"));
                if !values.is_empty() {
                    with = Some((format!("types::{}With", pascal(&id(get)?)), values));
                }
            }
            _ => {}
        }
    }
    let get_schema = success_schema(get).ok_or_else(|| anyhow!("the GET has no JSON answer"))?;
    let data = properties(raw, get_schema)
        .and_then(|p| p.get("data"))
        .ok_or_else(|| anyhow!("the GET's answer has no `data`"))?;
    let update_schema =
        success_schema(update).ok_or_else(|| anyhow!("the update has no JSON answer"))?;
    let fields = fields(raw, body, Some(data));
    let sources: Vec<&str> = fields
        .iter()
        .filter_map(|f| f.from.first().map(String::as_str))
        .collect();
    let read_only = properties(raw, data)
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .filter(|k| !sources.contains(&k.as_str()))
        .cloned()
        .collect();
    Ok(Pairing {
        update: id(update)?,
        get: id(get)?,
        path: path.to_owned(),
        area,
        params,
        with,
        get_response: type_name(get_schema)
            .ok_or_else(|| anyhow!("the GET's answer is no component"))?,
        record: type_name(data).ok_or_else(|| anyhow!("the GET's `data` is no component"))?,
        body: type_name(body).ok_or_else(|| anyhow!("the body is no component"))?,
        update_response: type_name(update_schema)
            .ok_or_else(|| anyhow!("the update's answer is no component"))?,
        fields,
        read_only,
    })
}

fn fields_text(fields: &[Field], indent: &str) -> String {
    let mut text = String::from("&[\n");
    for f in fields {
        let convert = match &f.convert {
            Convert::Record(inner) => format!(
                "Convert::Record({})",
                fields_text(inner, &format!("{indent}    "))
            ),
            other => format!("Convert::{other:?}"),
        };
        text.push_str(&format!(
            "{indent}    Field {{ name: {:?}, from: &{:?}, convert: {convert}, required: {} }},\n",
            f.name, f.from, f.required
        ));
    }
    text.push_str(indent);
    text.push(']');
    text
}

fn table_name(update: &str) -> String {
    update.to_uppercase()
}

/// The method name: `update_brand` → `modify_brand`, `update_product_by_sku` → `modify_product_by_sku`.
pub fn method_name(update: &str) -> String {
    format!(
        "modify_{}",
        update.strip_prefix("update_").unwrap_or(update)
    )
}

/// The generated file.
pub fn outputs(doc: &Document) -> Result<Vec<Output>> {
    let (paired, unpaired) = pairings(doc)?;
    let mut text = String::new();
    text.push_str(
        "/// The updates whose body requires fields and that have no read-modify-write: (operationId,\n/// why, and what to do instead).\npub static UNPAIRED: &[(&str, &str)] = &[\n",
    );
    for u in &unpaired {
        text.push_str(&format!("    ({:?}, {:?}),\n", u.update, u.why));
    }
    text.push_str("];\n\n");
    // The tables.
    for p in &paired {
        text.push_str(&format!(
            "/// How `{}` makes the body of `{}` (`{}`).\npub static {}: Pairing = Pairing {{\n    update: {:?},\n    get: {:?},\n    path: {:?},\n    with: &{:?},\n    fields: {},\n    read_only: &{:?},\n}};\n\n",
            p.get,
            p.update,
            p.path,
            table_name(&p.update),
            p.update,
            p.get,
            p.path,
            p.with.as_ref().map(|(_, v)| v.clone()).unwrap_or_default(),
            fields_text(&p.fields, "    "),
            p.read_only,
        ));
    }
    text.push_str(
        "/// Every pairing, by the update's operationId.\npub static PAIRINGS: &[&Pairing] = &[\n",
    );
    for p in &paired {
        text.push_str(&format!("    &{},\n", table_name(&p.update)));
    }
    text.push_str("];\n");
    // The methods.
    for p in &paired {
        let method = method_name(&p.update);
        let builder = p.body.replacen("types::", "types::builder::", 1);
        let params: Vec<String> = p
            .params
            .iter()
            .map(|(n, t)| format!("{}: {t}", field_ident(n)))
            .collect();
        let setters: String = p
            .params
            .iter()
            .map(|(n, _)| format!(".{0}({0})", field_ident(n)))
            .collect();
        let with = match &p.with {
            Some((ty, values)) => values
                .iter()
                .map(|v| format!(".with({ty}::{})", pascal(v)))
                .collect::<String>(),
            None => String::new(),
        };
        let params_doc: Vec<String> = p.params.iter().map(|(n, _)| format!("`{n}`")).collect();
        text.push_str(&format!(
            r#"
#[cfg(feature = {area:?})]
impl StoreAdmin {{
    /// Changes some fields of the record of `{path}` and keeps the others: reads it with
    /// `{get}`{with_doc}, converts what it read into the body of `{update}` (see
    /// [`{table}`]), hands that body's builder to `change`, and sends it.
    ///
    /// Costs one read more than [`{update}`](store_admin_client::prelude::{area_pascal}Api::{update}). Not atomic: a change another
    /// writer makes between the read and the write is overwritten (the service offers no
    /// `If-Match`). The record read comes back as [`Modified::before`]. A read that fails (a
    /// 404 for {params_doc}) fails this call with nothing written.
    pub async fn {method}(
        &self,
        {params}
        change: impl FnOnce({builder}) -> {builder},
    ) -> Result<Modified<{record}, {update_response}>, Error> {{
        let read: {get_response} = Call::call(self.{get}(){setters}{with}).await?;
        let before = read.data;
        let body: {body} = write_body(&{table}, &before, change)?;
        let after = Call::call(self.{update}(){setters}.body(body)).await?;
        Ok(Modified {{ before, after }})
    }}
}}
"#,
            area = p.area,
            // The operation is a method of its area's trait, which `StoreAdmin` implements.
            area_pascal = pascal(p.area),
            path = p.path,
            get = p.get,
            update = p.update,
            table = table_name(&p.update),
            with_doc = match &p.with {
                Some((_, values)) => format!(" (with `{}`)", values.join("`, `")),
                None => String::new(),
            },
            params_doc = params_doc.join(", "),
            params = params
                .iter()
                .map(|p| format!("{p},"))
                .collect::<Vec<_>>()
                .join(" "),
            record = p.record,
            update_response = p.update_response,
            get_response = p.get_response,
            body = p.body,
        ));
    }
    let file = syn::parse_file(&text).context("the generated read-modify-write does not parse")?;
    let pretty = prettyplease::unparse(&file);
    Ok(vec![Output {
        rel_path: MODIFY_OUT.to_owned(),
        content: code_file(
            doc,
            "The read-modify-write of the updates whose body requires fields, for `modify.rs`, which\n\
             includes this file.",
            &pretty,
        )?,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Document {
        Document::load(&crate::document::workspace_root(), crate::document::SPEC).unwrap()
    }

    #[test]
    fn the_brand_reads_its_metadata_flattened_and_the_advertisement_its_date_as_a_date() {
        let (paired, _) = pairings(&doc()).unwrap();
        let brand = paired.iter().find(|p| p.update == "update_brand").unwrap();
        let title = brand
            .fields
            .iter()
            .find(|f| f.name == "metadata_title")
            .unwrap();
        assert_eq!(title.from, ["metadata", "title"]);
        let ad = paired
            .iter()
            .find(|p| p.update == "update_advertisement")
            .unwrap();
        let date = ad.fields.iter().find(|f| f.name == "expire_date").unwrap();
        assert_eq!(date.convert, Convert::Date);
        let variant = paired
            .iter()
            .find(|p| p.update == "update_product_variant")
            .unwrap();
        let price = variant.fields.iter().find(|f| f.name == "price").unwrap();
        assert_eq!(price.convert, Convert::Amount);
    }

    #[test]
    fn an_update_without_a_read_is_told_with_what_it_needs() {
        let (paired, unpaired) = pairings(&doc()).unwrap();
        assert!(!paired.iter().any(|p| p.update == "update_export_template"));
        let template = unpaired
            .iter()
            .find(|u| u.update == "update_export_template")
            .unwrap();
        assert!(template.why.contains("no `GET"), "{}", template.why);
    }
}
