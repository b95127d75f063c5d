//! What the generator knows of the document and writes beside progenitor's output: the files
//! it produces, the operation table and the paged list operations.

use openapiv3::{OpenAPI, SecurityScheme};

use crate::names::pascal;
use crate::{areas, lint};

/// The core crate of the generated client: the `Client`, the shared types, the hand-off to hooks.
pub const CORE_DIR: &str = "crates/store-admin-client-core";
/// The facade's table of operations (and the modules that gather the areas).
pub const OPERATIONS: &str = "crates/store-admin-client/src/generated_operations.rs";
/// Where fixture documents live, relative to the workspace root.
pub const FIXTURES_DIR: &str = "openapi/fixtures";
/// Where fixture clients are written, relative to the workspace root.
pub const FIXTURES_OUT: &str = "crates/store-admin-fixtures/src";

/// The generated file of a crate directory.
pub fn generated_file(crate_dir: &str) -> String {
    format!("{crate_dir}/src/generated.rs")
}

/// Every generated client file (the core's, then each area's), relative to the workspace root.
pub fn client_files() -> Vec<String> {
    std::iter::once(generated_file(CORE_DIR))
        .chain(
            areas::AREAS
                .iter()
                .map(|a| generated_file(&areas::area_dir(a.name))),
        )
        .collect()
}

/// One file the generator produces: where it goes and what it should hold.
pub struct Output {
    /// Path relative to the workspace root.
    pub rel_path: String,
    /// The full expected content.
    pub content: String,
}

/// What `generated_operations.rs` says about one operation.
#[derive(Debug, PartialEq, Eq)]
pub struct OperationMeta {
    pub operation_id: String,
    pub method: String,
    pub path: String,
    pub tag: String,
    /// The area of the tag (see `areas.rs`); empty when the tag has none.
    pub area: String,
    pub scopes: Vec<String>,
    pub deprecated: bool,
    pub replaced_by: Option<String>,
    pub summary: String,
}

/// The operation table of a document, in document order. Scopes are the union, in order of
/// first appearance, of the OAuth 2 scopes over the operation's security alternatives.
pub fn operation_table(spec: &OpenAPI) -> Vec<OperationMeta> {
    let is_oauth2 = |scheme: &str| {
        spec.components
            .as_ref()
            .and_then(|c| c.security_schemes.get(scheme))
            .and_then(|s| s.as_item())
            .is_some_and(|s| {
                matches!(
                    s,
                    SecurityScheme::OAuth2 { .. } | SecurityScheme::OpenIDConnect { .. }
                )
            })
    };
    lint::operations(spec)
        .map(|(_, path, method, op)| {
            let mut scopes: Vec<String> = Vec::new();
            for requirement in op.security.iter().flatten() {
                for (scheme, names) in requirement {
                    if is_oauth2(scheme) {
                        for name in names {
                            if !scopes.contains(name) {
                                scopes.push(name.clone());
                            }
                        }
                    }
                }
            }
            OperationMeta {
                operation_id: op.operation_id.clone().unwrap_or_default(),
                method: method.to_uppercase(),
                path: path.to_owned(),
                tag: op.tags.first().cloned().unwrap_or_default(),
                area: areas::area_of(op)
                    .map(|a| a.name.to_owned())
                    .unwrap_or_default(),
                scopes,
                deprecated: op.deprecated,
                replaced_by: op
                    .extensions
                    .get("x-replaced-by")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
                summary: op.summary.clone().unwrap_or_default(),
            }
        })
        .collect()
}

/// A list operation paged by number: a GET with a `page` query parameter whose success body is a
/// component with a `data` array of components and a `pagination` property.
#[derive(Debug, PartialEq, Eq)]
pub struct PagedOperation {
    pub operation_id: String,
    /// progenitor's builder type name (the operationId in PascalCase).
    pub builder: String,
    pub response: String,
    pub item: String,
    pub pagination_required: bool,
    /// The item schema's `x-record-key`: the fields that tell its records apart, where `id`
    /// alone does not (empty: `id`).
    pub record_key: Vec<String>,
}

fn ref_name(reference: &str) -> Option<&str> {
    reference.rsplit('/').next()
}

/// The parameter `p` is, or names among the document's shared parameters.
pub fn parameter<'a>(
    spec: &'a OpenAPI,
    p: &'a openapiv3::ReferenceOr<openapiv3::Parameter>,
) -> Option<&'a openapiv3::Parameter> {
    match p {
        openapiv3::ReferenceOr::Item(p) => Some(p),
        openapiv3::ReferenceOr::Reference { reference } => spec
            .components
            .as_ref()?
            .parameters
            .get(ref_name(reference)?)?
            .as_item(),
    }
}

/// Every paged list operation of a document, in document order.
pub fn paged_operations(spec: &OpenAPI) -> Vec<PagedOperation> {
    use openapiv3::{ReferenceOr, SchemaKind, Type};
    let components = spec.components.as_ref();
    let param_name = |p: &ReferenceOr<openapiv3::Parameter>| -> Option<String> {
        Some(parameter(spec, p)?.parameter_data_ref().name.clone())
    };
    let mut out = Vec::new();
    for (_, _, method, op) in lint::operations(spec) {
        if method != "get"
            || !op
                .parameters
                .iter()
                .any(|p| param_name(p).as_deref() == Some("page"))
        {
            continue;
        }
        let Some(ReferenceOr::Item(response)) = op
            .responses
            .responses
            .iter()
            .find(|(code, _)| matches!(code, openapiv3::StatusCode::Code(c) if (200..300).contains(c)))
            .map(|(_, r)| r)
        else {
            continue;
        };
        let Some(ReferenceOr::Reference { reference }) = response
            .content
            .get("application/json")
            .and_then(|m| m.schema.as_ref())
        else {
            continue;
        };
        let Some(response_name) = ref_name(reference) else {
            continue;
        };
        let Some(schema) = components
            .and_then(|c| c.schemas.get(response_name))
            .and_then(|s| s.as_item())
        else {
            continue;
        };
        let SchemaKind::Type(Type::Object(object)) = &schema.schema_kind else {
            continue;
        };
        let item = match object
            .properties
            .get("data")
            .and_then(|s| s.as_item())
            .map(|s| &s.schema_kind)
        {
            Some(SchemaKind::Type(Type::Array(array))) => match &array.items {
                Some(ReferenceOr::Reference { reference }) => {
                    ref_name(reference).map(str::to_owned)
                }
                _ => None,
            },
            _ => None,
        };
        let (Some(item), true) = (item, object.properties.contains_key("pagination")) else {
            continue;
        };
        let operation_id = op.operation_id.clone().unwrap_or_default();
        let record_key = components
            .and_then(|c| c.schemas.get(&item))
            .and_then(|s| s.as_item())
            .and_then(|s| s.schema_data.extensions.get("x-record-key"))
            .and_then(|k| k.as_array())
            .map(|fields| {
                fields
                    .iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        out.push(PagedOperation {
            record_key,
            builder: pascal(&operation_id),
            operation_id,
            response: response_name.to_owned(),
            item,
            pagination_required: object.required.iter().any(|r| r == "pagination"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;

    fn fixture(name: &str) -> Document {
        let root = crate::document::workspace_root();
        let path = format!("{}/{name}.yaml", FIXTURES_DIR);
        Document::load(&root, &path).expect("fixture loads")
    }

    #[test]
    fn every_paged_list_answers_its_pages_with_a_200_only() {
        // The pagination stream reads a 200 itself (`keeping_answer` in the facade's
        // `pagination.rs`) and leaves any other status to the generated code: a list documented
        // with another success would be read by neither as its document says.
        let doc = Document::load(&crate::document::workspace_root(), crate::document::SPEC)
            .expect("the document loads");
        let paged: Vec<String> = paged_operations(&doc.spec)
            .into_iter()
            .map(|p| p.operation_id)
            .collect();
        assert!(paged.len() > 40, "{paged:?}");
        for (_, _, _, op) in crate::lint::operations(&doc.spec) {
            let id = op.operation_id.clone().unwrap_or_default();
            if !paged.contains(&id) {
                continue;
            }
            let successes: Vec<String> = op
                .responses
                .responses
                .keys()
                .map(ToString::to_string)
                .filter(|code| code.starts_with('2'))
                .collect();
            assert_eq!(successes, ["200"], "{id}");
        }
    }

    #[test]
    fn paged_operations_are_the_lists_with_page_data_and_pagination() {
        let doc = Document::load(&crate::document::workspace_root(), crate::document::SPEC)
            .expect("the document loads");
        let paged: Vec<(String, String, String, bool)> = paged_operations(&doc.spec)
            .into_iter()
            .map(|p| (p.builder, p.response, p.item, p.pagination_required))
            .collect();
        let expect =
            |b: &str, r: &str, i: &str, req: bool| (b.to_owned(), r.to_owned(), i.to_owned(), req);
        for known in [
            // No list requires `pagination` (issue 39: the service documents lists without it).
            expect(
                "ListProductQuantities",
                "ProductQuantityList",
                "ProductQuantity",
                false,
            ),
            expect("ListOrders", "OrderList", "Order", false),
            expect(
                "ListShippingRoutes",
                "ShippingRouteList",
                "ShippingRouteSummary",
                false,
            ),
            expect("ListWebhooks", "WebhookList", "Webhook", false),
            expect("ListShipments", "ShipmentList", "Shipment", false),
            expect("ListBrands", "BrandList", "Brand", false),
            expect("ListCustomers", "CustomerList", "Customer", false),
            expect("SearchCategories", "CategoryList", "Category", false),
        ] {
            assert!(paged.contains(&known), "{known:?} in {paged:?}");
        }
        // Lists only: every paged response is a `...List` of its items.
        for (builder, response, item, _) in &paged {
            assert!(
                builder.starts_with("List") || builder.starts_with("Search"),
                "{builder}"
            );
            assert!(response.ends_with("List"), "{builder}: {response}");
            assert!(!item.is_empty(), "{builder}");
        }
        // Operations with a page but no pagination object are not paged.
        assert!(!paged.iter().any(|(b, ..)| b == "ListOrderStatuses"));
        assert_eq!(pascal("list_order_statuses"), "ListOrderStatuses");
    }

    #[test]
    fn operation_table_unions_oauth2_scopes_and_reads_replaced_by() {
        let table = operation_table(&fixture("deprecated").spec);
        assert_eq!(
            table,
            [
                OperationMeta {
                    operation_id: "list_legacy_items".into(),
                    method: "GET".into(),
                    path: "/legacy/items".into(),
                    tag: "Items".into(),
                    area: String::new(),
                    scopes: vec!["items.read".into(), "items.read_write".into()],
                    deprecated: true,
                    replaced_by: Some("list_items".into()),
                    summary: "List items (old path)".into(),
                },
                OperationMeta {
                    operation_id: "list_items".into(),
                    method: "GET".into(),
                    path: "/items".into(),
                    tag: "Items".into(),
                    area: String::new(),
                    scopes: vec!["items.read".into()],
                    deprecated: false,
                    replaced_by: None,
                    summary: "List items".into(),
                },
            ]
        );
    }
}
