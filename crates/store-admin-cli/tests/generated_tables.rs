//! The tables the generator writes for the CLI say what the document says: each body's
//! properties (which `--body` keys are known), each record type's CSV columns and the closed
//! value sets of hand-written flags. The CLI reads these tables, not the types' JSON schemas, so
//! they are checked here against the document itself, read again by a rule of this test's own.

use std::collections::BTreeMap;

use serde_json::Value;
use store_admin_cli::generated_cli::{BODY_FIELDS, RECORD_CSV_COLUMNS};

fn document() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../openapi/store-admin.yaml"
    );
    let text = std::fs::read_to_string(path).expect("the OpenAPI document");
    store_admin_mock::read_yaml(&text).expect("the document is YAML")
}

/// `schema` with its `$ref`s (and a lone `allOf` member) followed.
fn resolve<'a>(doc: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..16 {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            schema = doc
                .pointer(reference.trim_start_matches('#'))
                .expect("a $ref that resolves");
        } else if let Some([only]) = schema
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            schema = only;
        } else {
            break;
        }
    }
    schema
}

/// The properties of an object schema, those of each `allOf` member merged; `None` when the
/// schema has none (a union, a free-form object, a scalar).
fn properties<'a>(doc: &'a Value, schema: &'a Value) -> Option<BTreeMap<String, &'a Value>> {
    let schema = resolve(doc, schema);
    let mut out = BTreeMap::new();
    if let Some(own) = schema.get("properties").and_then(Value::as_object) {
        out.extend(own.iter().map(|(k, v)| (k.clone(), v)));
    }
    for member in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.extend(properties(doc, member).unwrap_or_default());
    }
    (!out.is_empty()).then_some(out)
}

/// The properties of the object a value of `schema` always is: through a union of one member
/// besides `null` too; `None` when it may be anything else.
fn object(doc: &Value, schema: &Value, hops: usize) -> Option<BTreeMap<String, Value>> {
    let schema = resolve(doc, schema);
    if hops > 8 {
        return None;
    }
    if let Some(members) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let others: Vec<&Value> = members
            .iter()
            .filter(|m| resolve(doc, m).get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        return match others.as_slice() {
            [only] => object(doc, only, hops + 1),
            _ => None,
        };
    }
    if schema
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "object")
    {
        return None;
    }
    properties(doc, schema).map(|p| p.into_iter().map(|(k, v)| (k, v.clone())).collect())
}

/// A record's CSV columns by the rule `Record::CSV_COLUMNS` documents: every property
/// (alphabetical, `id` first), objects expanded into dotted columns three levels deep, a date
/// object (`{date, timezone}`) one cell.
fn csv_columns(doc: &Value, schema: &Value) -> Vec<String> {
    fn expand(doc: &Value, schema: &Value, prefix: &str, depth: usize, out: &mut Vec<String>) {
        match object(doc, schema, 0) {
            Some(props)
                if depth < 3 && !(props.contains_key("date") && props.contains_key("timezone")) =>
            {
                for (name, value) in &props {
                    let path = match prefix {
                        "" => name.clone(),
                        _ => format!("{prefix}.{name}"),
                    };
                    expand(doc, value, &path, depth + 1, out);
                }
            }
            _ if !prefix.is_empty() => out.push(prefix.to_owned()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    expand(doc, schema, "", 0, &mut out);
    if let Some(at) = out.iter().position(|c| c == "id") {
        let id = out.remove(at);
        out.insert(0, id);
    }
    out
}

#[test]
fn each_body_s_known_fields_are_its_schema_s_properties() {
    let doc = document();
    let mut bodies = BTreeMap::new();
    for item in doc["paths"].as_object().expect("paths").values() {
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            let (Some(id), Some(schema)) = (
                op.get("operationId").and_then(Value::as_str),
                op.pointer("/requestBody/content/application~1json/schema"),
            ) else {
                continue;
            };
            let resolved = resolve(&doc, schema);
            let union = resolved
                .get("anyOf")
                .or_else(|| resolved.get("oneOf"))
                .is_some();
            let fields: Vec<String> = match union {
                true => Vec::new(),
                false => properties(&doc, schema)
                    .unwrap_or_default()
                    .into_keys()
                    .collect(),
            };
            bodies.insert(id.to_owned(), fields);
        }
    }
    let table: BTreeMap<String, Vec<String>> = BODY_FIELDS
        .iter()
        .map(|(id, fields)| {
            (
                (*id).to_owned(),
                fields.iter().map(|f| (*f).to_owned()).collect(),
            )
        })
        .collect();
    // Every JSON body of a command (the hand-written ones take theirs in their own way).
    assert!(table.len() > 80, "{} bodies", table.len());
    for (id, fields) in &table {
        assert_eq!(Some(fields), bodies.get(id), "{id}");
    }
    // A union's variants each have their own fields: any key may be one of them.
    assert_eq!(table.get("create_affiliate"), Some(&Vec::new()));
    assert!(table["create_order_status"].contains(&"parent_id".to_owned()));
}

#[test]
fn each_record_s_csv_columns_are_its_schema_s_properties_expanded() {
    let doc = document();
    assert!(
        RECORD_CSV_COLUMNS.len() > 50,
        "{}",
        RECORD_CSV_COLUMNS.len()
    );
    for (name, columns) in RECORD_CSV_COLUMNS {
        let schema = &doc["components"]["schemas"][*name];
        assert!(schema.is_object(), "{name} is a schema of the document");
        assert_eq!(*columns, csv_columns(&doc, schema).as_slice(), "{name}");
    }
    let order = RECORD_CSV_COLUMNS
        .iter()
        .find(|(name, _)| *name == "Order")
        .map(|(_, columns)| *columns)
        .expect("orders have CSV columns");
    assert_eq!(order.first(), Some(&"id"));
    assert!(
        order.contains(&"total.amount") && order.contains(&"date"),
        "{order:?}"
    );
}

#[test]
fn a_hand_written_flag_takes_the_document_s_closed_set() {
    let doc = document();
    let documented: Vec<String> = doc["components"]["schemas"]["SecurityStrategy"]["enum"]
        .as_array()
        .expect("SecurityStrategy is a closed set")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let mut root = store_admin_cli::cli::command();
    root.build();
    for command in ["subscribe", "update"] {
        let cmd = root
            .find_subcommand("webhooks")
            .and_then(|webhooks| webhooks.find_subcommand(command))
            .expect("webhooks subscribe|update");
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some("security-strategy"))
            .expect("--security-strategy");
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(values, documented, "webhooks {command}");
    }
}
