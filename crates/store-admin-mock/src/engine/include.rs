//! Related data a read shows only when it is asked for (`with=translations`, `with=details`).
//!
//! The service leaves some fields out of a record unless the request names them in an include
//! parameter: a brand's `translations` come with `with=translations` only, an option template's
//! values (`details`) with `with=details` only. The document says so with the parameter (`with`,
//! `with[]`, or `include`) and its known values (`enum`, else `x-known-values`), each the name of a
//! property of the record the operation answers. The store keeps those fields (a brand created
//! with its translations has them, whatever a read shows), so the rule is one of answers: an
//! operation that declares such a parameter leaves out of each record it answers (its details, or
//! each record of a list page) the fields the request does not name. It is read from the document
//! once per operation ([`OnRequest::of`]), so an operation without one pays nothing.
//!
//! An include parameter without known values (the categories' `with[]`, an open array of
//! strings) withholds nothing: the document does not say which field it adds. The answers of the
//! operations that declare no include parameter (a create, an update) are left whole.

use serde_json::Value;

use crate::document::{Document, Location, Operation};
use crate::paging::QueryPairs;

/// The names (without `[]`) of the parameters that ask for related data.
const INCLUDE_PARAMS: &[&str] = &["with", "include", "includes"];

/// The fields of an operation's records that its answers show only when the request asks.
#[derive(Debug, Clone)]
pub(crate) struct OnRequest {
    /// The include parameter (its query key, without `[]`).
    param: String,
    /// The record's properties named by the parameter's known values.
    fields: Vec<String>,
}

impl OnRequest {
    /// What operation `op`, answering records of `record_schema`, shows only on request (`None`
    /// when it declares no include parameter whose known values name properties of the record).
    pub fn of(doc: &Document, op: &Operation, record_schema: Option<&Value>) -> Option<Self> {
        let record = doc.view(record_schema?);
        op.params
            .iter()
            .filter(|p| p.location == Location::Query && INCLUDE_PARAMS.contains(&p.key.as_str()))
            .find_map(|param| {
                let view = doc.view(&param.schema);
                let values = match view.items {
                    Some(items) if view.kind() == Some("array") => items,
                    _ => &param.schema,
                };
                let fields: Vec<String> = doc
                    .known_values(values)
                    .into_iter()
                    .filter(|value| record.property(value).is_some())
                    .collect();
                (!fields.is_empty()).then(|| Self {
                    param: param.key.clone(),
                    fields,
                })
            })
    }

    /// The fields to leave out of the answer to `query`: those it does not ask for (`with=a`,
    /// `with=a,b`, `with[]=a&with[]=b`; compared case-insensitively).
    pub fn withheld(&self, query: &QueryPairs) -> Vec<&str> {
        let asked = query.all(&self.param);
        self.fields
            .iter()
            .map(String::as_str)
            .filter(|field| !asked.iter().any(|a| a.eq_ignore_ascii_case(field)))
            .collect()
    }
}

/// `record` without the fields `withheld`, or `None` when it has none of them (it is answered as
/// it is, not copied).
pub(crate) fn without(record: &Value, withheld: &[&str]) -> Option<Value> {
    let map = record.as_object()?;
    if !withheld.iter().any(|field| map.contains_key(*field)) {
        return None;
    }
    let mut map = map.clone();
    for field in withheld {
        map.remove(*field);
    }
    Some(Value::Object(map))
}

/// Leaves the fields `withheld` out of `data`, an answer's record or an array of records.
pub(crate) fn withhold(data: &mut Value, withheld: &[&str]) {
    match data {
        Value::Object(map) => {
            for field in withheld {
                map.remove(*field);
            }
        }
        Value::Array(records) => {
            for record in records {
                withhold(record, withheld);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The brand's and the option template's include parameters are read from the document; the
    /// categories' open `with[]` names no field; an operation without one has none.
    #[test]
    fn the_document_says_which_fields_come_on_request() {
        let doc = Document::embedded().expect("the document");
        let (plans, _) = super::super::infer::plan(&doc);
        let fields = |id: &str| {
            let (_, plan) = doc
                .operations
                .iter()
                .zip(&plans)
                .find(|(op, _)| op.id == id)
                .expect("an operation of the document");
            plan.on_request.as_ref().map(|o| o.fields.clone())
        };
        assert_eq!(fields("get_brand"), Some(vec!["translations".to_owned()]));
        assert_eq!(fields("list_brands"), Some(vec!["translations".to_owned()]));
        assert_eq!(
            fields("get_product_option_template"),
            Some(vec!["details".to_owned()])
        );
        assert_eq!(fields("create_brand"), None);
        assert_eq!(fields("list_products"), None);
    }

    #[test]
    fn a_field_asked_for_is_kept_and_the_others_left_out() {
        let on_request = OnRequest {
            param: "with".into(),
            fields: vec!["translations".into(), "details".into()],
        };
        let query = QueryPairs::parse(Some("with[]=Translations&page=2"));
        assert_eq!(on_request.withheld(&query), vec!["details"]);
        let query = QueryPairs::parse(Some("with=translations,details"));
        assert!(on_request.withheld(&query).is_empty());
        let record = json!({"id": 1, "details": [1], "name": "a"});
        assert_eq!(
            without(&record, &["details"]),
            Some(json!({"id": 1, "name": "a"}))
        );
        assert_eq!(without(&record, &["translations"]), None);
        let mut page = json!([record.clone(), {"id": 2}]);
        withhold(&mut page, &["details"]);
        assert_eq!(page, json!([{"id": 1, "name": "a"}, {"id": 2}]));
    }
}
