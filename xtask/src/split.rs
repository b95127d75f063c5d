//! Splits the document into the core and one sub-document per area, for progenitor.
//!
//! A component schema reached (through `$ref`s, from parameters, bodies and responses) by the
//! operations of one area only is generated in that area's crate; a schema reached by two areas or
//! more, or by the core's own hand-written code ([`FORCED_CORE`]), is generated in the core crate
//! with everything it reaches. An area's sub-document keeps its operations (minus the hand-written
//! ones, see [`crate::hand_written`]) and the schemas of the area and of the core; progenitor's type
//! replacement turns every core schema into a path to `store_admin_client_core::types`, so nothing
//! is generated twice.

use std::collections::{BTreeMap, BTreeSet};

use openapiv3::{OpenAPI, ReferenceOr, Response, Responses, StatusCode};
use serde_json::Value;

use crate::areas::{AREAS, area_of};
use crate::hand_written::HandWritten;
use crate::lint::{escape, operations};

/// Schemas the core crate's hand-written code names (the error envelope, the pagination object):
/// always in the core, with what they reach.
pub const FORCED_CORE: [&str; 2] = ["ErrorResponse", "Pagination"];

/// How the document's schemas and operations are split.
#[derive(Debug, Default)]
pub struct Split {
    /// Schemas generated in the core crate.
    pub core: BTreeSet<String>,
    /// Per area (in [`AREAS`] order; areas without operations included): its part.
    pub areas: Vec<AreaPart>,
}

/// One area's share of the document.
#[derive(Debug, Default)]
pub struct AreaPart {
    /// The area's name.
    pub name: &'static str,
    /// `(path, lower-case method)` of the operations progenitor generates for the area.
    pub operations: Vec<(String, String)>,
    /// Schemas only this area reaches.
    pub schemas: BTreeSet<String>,
    /// The other components its operations reach (`responses/Unauthorized`, `parameters/Page`).
    pub components: BTreeSet<String>,
}

/// Splits `spec` (with its raw JSON `raw`) by area. Operations whose tag has no area are ignored
/// (the lint reports them).
pub fn split(spec: &OpenAPI, raw: &Value, hand_written: &[HandWritten]) -> Split {
    let mut reached_by: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let mut areas: Vec<AreaPart> = AREAS
        .iter()
        .map(|a| AreaPart {
            name: a.name,
            ..AreaPart::default()
        })
        .collect();
    for (_, path, method, op) in operations(spec) {
        let Some(area) = area_of(op) else { continue };
        let roots = [
            format!("/paths/{}/{method}", escape(path)),
            format!("/paths/{}/parameters", escape(path)),
        ];
        let components = reached(raw, &roots);
        for schema in schemas_of(&components) {
            reached_by.entry(schema).or_default().insert(area.name);
        }
        let generated = !hand_written
            .iter()
            .any(|h| h.path == path && h.method == method);
        if let Some(part) = areas.iter_mut().find(|p| p.name == area.name) {
            if generated {
                part.operations.push((path.to_owned(), method.to_owned()));
            }
            part.components.extend(
                components
                    .into_iter()
                    .filter(|c| !c.starts_with("schemas/")),
            );
        }
    }
    let all_schemas: Vec<String> = spec
        .components
        .iter()
        .flat_map(|c| c.schemas.keys().cloned())
        .collect();
    let mut core: BTreeSet<String> = all_schemas
        .iter()
        .filter(|name| reached_by.get(*name).is_none_or(|areas| areas.len() != 1))
        .cloned()
        .collect();
    let forced: Vec<String> = FORCED_CORE
        .iter()
        .filter(|name| all_schemas.iter().any(|s| s == *name))
        .map(|name| format!("/components/schemas/{name}"))
        .collect();
    core.extend(reached_schemas(raw, &forced));
    // Whatever a core schema reaches is in the core too (by construction for the schemas of two
    // areas; the forced ones may reach a schema of one area).
    let roots: Vec<String> = core
        .iter()
        .map(|name| format!("/components/schemas/{}", escape(name)))
        .collect();
    core.extend(reached_schemas(raw, &roots));
    for part in &mut areas {
        part.schemas = reached_by
            .iter()
            .filter(|(name, areas)| areas.contains(part.name) && !core.contains(*name))
            .map(|(name, _)| name.clone())
            .collect();
    }
    Split { core, areas }
}

/// Every component schema reached from the nodes at `roots` (JSON pointers), following `$ref`s
/// through responses, parameters, request bodies, headers and schemas. Roots that are schemas
/// count as reached.
pub fn reached_schemas(raw: &Value, roots: &[String]) -> BTreeSet<String> {
    schemas_of(&reached(raw, roots))
}

/// The schema names among components named `kind/name` (`schemas/Order` -> `Order`).
fn schemas_of(components: &BTreeSet<String>) -> BTreeSet<String> {
    components
        .iter()
        .filter_map(|c| c.strip_prefix("schemas/"))
        .map(str::to_owned)
        .collect()
}

/// Every component reached from the nodes at `roots` (JSON pointers), as `kind/name`
/// (`schemas/Order`, `responses/NotFound`), following `$ref`s. Roots that are components count.
pub fn reached(raw: &Value, roots: &[String]) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut components = BTreeSet::new();
    let mut stack: Vec<String> = roots.to_vec();
    while let Some(pointer) = stack.pop() {
        if !seen.insert(pointer.clone()) {
            continue;
        }
        if let Some(rest) = pointer.strip_prefix("/components/")
            && let Some((kind, name)) = rest.split_once('/')
            && !name.contains('/')
        {
            components.insert(format!("{kind}/{}", unescape(name)));
        }
        let Some(node) = raw.pointer(&pointer) else {
            continue;
        };
        collect_refs(node, &mut |reference| {
            if let Some(target) = reference.strip_prefix('#') {
                stack.push(target.to_owned());
            }
        });
    }
    components
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

fn collect_refs(value: &Value, f: &mut dyn FnMut(&str)) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => f(reference),
                    _ => collect_refs(child, f),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|child| collect_refs(child, f)),
        _ => {}
    }
}

/// What progenitor needs of the document besides paths and components (the title, the
/// description and version, which the `Client` carries); tags, servers, security schemes and
/// extensions go, so that editing them changes no generated file.
fn bare(spec: &OpenAPI) -> OpenAPI {
    let mut copy = spec.clone();
    copy.tags.clear();
    copy.servers.clear();
    copy.security = None;
    copy.external_docs = None;
    copy.extensions.clear();
    if let Some(components) = copy.components.as_mut() {
        components.security_schemes.clear();
        components.examples.clear();
        components.links.clear();
        components.callbacks.clear();
        components.extensions.clear();
    }
    copy
}

/// The core's sub-document: no operation; only the core schemas.
pub fn core_document(spec: &OpenAPI, split: &Split) -> OpenAPI {
    let mut copy = bare(spec);
    copy.paths.paths.clear();
    if let Some(components) = copy.components.as_mut() {
        components
            .schemas
            .retain(|name, _| split.core.contains(name));
        components.responses.clear();
        components.parameters.clear();
        components.request_bodies.clear();
        components.headers.clear();
    }
    copy
}

/// An area's sub-document: its generated operations, the components they reach, its schemas and
/// the core's (which the settings replace by the core crate's types). The `Client` is the core's,
/// so the document's description and version are left out: editing them rebuilds the core only.
pub fn area_document(spec: &OpenAPI, split: &Split, part: &AreaPart) -> OpenAPI {
    let mut copy = bare(spec);
    copy.info.description = None;
    copy.info.version = String::new();
    for (path, item) in copy.paths.paths.iter_mut() {
        let ReferenceOr::Item(item) = item else {
            continue;
        };
        let keep = |method: &str| {
            part.operations
                .iter()
                .any(|(p, m)| p == path && m == method)
        };
        for (method, slot) in [
            ("get", &mut item.get),
            ("put", &mut item.put),
            ("post", &mut item.post),
            ("delete", &mut item.delete),
            ("options", &mut item.options),
            ("head", &mut item.head),
            ("patch", &mut item.patch),
            ("trace", &mut item.trace),
        ] {
            match slot {
                Some(operation) if keep(method) => {
                    operation.responses = answered_by_their_range(&operation.responses, spec);
                }
                _ => *slot = None,
            }
        }
    }
    copy.paths
        .paths
        .retain(|_, item| item.as_item().is_none_or(|i| i.iter().next().is_some()));
    if let Some(components) = copy.components.as_mut() {
        components
            .schemas
            .retain(|name, _| split.core.contains(name) || part.schemas.contains(name));
        let reached = |kind: &str, name: &str| part.components.contains(&format!("{kind}/{name}"));
        components.responses.retain(|n, _| reached("responses", n));
        components
            .parameters
            .retain(|n, _| reached("parameters", n));
        components
            .request_bodies
            .retain(|n, _| reached("requestBodies", n));
        components.headers.retain(|n, _| reached("headers", n));
    }
    copy
}

/// The responses without each status that the range covering it answers alike: the same media
/// types with the same schemas (`401`, `404`, `422` and `429` beside `4XX`, all the error
/// envelope; the document lists them for readers in other languages and for the mock).
///
/// progenitor writes one `match` arm per documented status in each builder's `send`, each
/// decoding its body (an `.await` in an `async fn`): such a status is an arm that answers
/// exactly as the range's arm would, so leaving it out of what progenitor reads changes no
/// answer, and each `send` keeps two error arms of six (`4XX`, `5XX`). A status whose body differs
/// from its range's (or has no range) stays; descriptions, headers and examples, which progenitor
/// does not read, do not count. `$ref`s are read through the document's `components.responses`.
pub fn answered_by_their_range(responses: &Responses, spec: &OpenAPI) -> Responses {
    let resolve = |response: &ReferenceOr<Response>| -> Option<Response> {
        match response {
            ReferenceOr::Item(response) => Some(response.clone()),
            ReferenceOr::Reference { reference } => {
                let name = reference.strip_prefix("#/components/responses/")?;
                spec.components
                    .as_ref()?
                    .responses
                    .get(name)?
                    .as_item()
                    .cloned()
            }
        }
    };
    let body = |response: &Response| -> Vec<(String, Option<ReferenceOr<openapiv3::Schema>>)> {
        response
            .content
            .iter()
            .map(|(media, content)| (media.clone(), content.schema.clone()))
            .collect()
    };
    let mut kept = responses.clone();
    kept.responses.retain(|status, response| {
        let StatusCode::Code(code) = status else {
            return true;
        };
        let Some(range) = responses.responses.get(&StatusCode::Range(code / 100)) else {
            return true;
        };
        match (resolve(response), resolve(range)) {
            (Some(response), Some(range)) => body(&response) != body(&range),
            _ => true,
        }
    });
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths:
  /orders:
    get:
      operationId: list_orders
      tags: [Orders]
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/OrderList" } } } }
        "401": { $ref: "#/components/responses/Unauthorized" }
  /shipments:
    get:
      operationId: list_shipments
      tags: [Shipments]
      parameters: [{ $ref: "#/components/parameters/Status" }]
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/ShipmentList" } } } }
        "401": { $ref: "#/components/responses/Unauthorized" }
components:
  parameters:
    Status: { name: status, in: query, schema: { $ref: "#/components/schemas/ShipmentStatus" } }
  responses:
    Unauthorized: { description: no, content: { application/json: { schema: { $ref: "#/components/schemas/ErrorResponse" } } } }
  schemas:
    OrderList: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/Order" } }, pagination: { $ref: "#/components/schemas/Pagination" } } }
    Order: { type: object, properties: { total: { $ref: "#/components/schemas/Money" } } }
    ShipmentList: { type: object, properties: { data: { type: array, items: { $ref: "#/components/schemas/Shipment" } } } }
    Shipment: { type: object, properties: { cost: { $ref: "#/components/schemas/Money" } } }
    ShipmentStatus: { type: string }
    Money: { type: object, properties: { amount: { type: number } } }
    Pagination: { type: object, properties: { links: { $ref: "#/components/schemas/PageLinks" } } }
    PageLinks: { type: object }
    ErrorResponse: { type: object, properties: { message: { type: string } } }
"##;

    #[test]
    fn schemas_of_one_area_stay_there_and_shared_ones_go_to_the_core() {
        let spec: OpenAPI = crate::yaml::from_str(DOC).expect("parses");
        let raw: Value = crate::yaml::from_str(DOC).expect("parses");
        let split = split(&spec, &raw, &[]);
        let names = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(" ");
        assert_eq!(
            names(&split.core),
            "ErrorResponse Money PageLinks Pagination"
        );
        let orders = &split.areas[0];
        assert_eq!(
            (orders.name, names(&orders.schemas).as_str()),
            ("orders", "Order OrderList")
        );
        assert_eq!(
            orders.operations,
            [("/orders".to_owned(), "get".to_owned())]
        );
        let shipping = split
            .areas
            .iter()
            .find(|a| a.name == "shipping")
            .expect("area");
        assert_eq!(
            names(&shipping.schemas),
            "Shipment ShipmentList ShipmentStatus"
        );
        let doc = area_document(&spec, &split, shipping);
        assert_eq!(doc.paths.paths.keys().collect::<Vec<_>>(), ["/shipments"]);
        let kept: Vec<&String> = doc
            .components
            .as_ref()
            .expect("components")
            .schemas
            .keys()
            .collect();
        assert!(!kept.contains(&&"Order".to_owned()), "{kept:?}");
        assert!(core_document(&spec, &split).paths.paths.is_empty());
    }

    #[test]
    fn a_status_its_range_answers_alike_is_left_out_and_no_other() {
        const RESPONSES: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths:
  /orders/{id}:
    get:
      operationId: get_order
      responses:
        "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/Order" } } } }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "404": { description: gone, headers: { X-Why: { schema: { type: string } } }, content: { application/json: { schema: { $ref: "#/components/schemas/ErrorResponse" }, example: { error: { message: no } } } } }
        "409": { description: other, content: { application/json: { schema: { $ref: "#/components/schemas/Conflict" } } } }
        "410": { description: no body }
        "422": { description: other type, content: { text/plain: { schema: { $ref: "#/components/schemas/ErrorResponse" } } } }
        "4XX": { $ref: "#/components/responses/ClientError" }
        "500": { $ref: "#/components/responses/Unauthorized" }
components:
  responses:
    Unauthorized: { description: no, content: { application/json: { schema: { $ref: "#/components/schemas/ErrorResponse" } } } }
    ClientError: { description: any, content: { application/json: { schema: { $ref: "#/components/schemas/ErrorResponse" } } } }
  schemas:
    Order: { type: object }
    Conflict: { type: object }
    ErrorResponse: { type: object }
"##;
        let spec: OpenAPI = crate::yaml::from_str(RESPONSES).expect("parses");
        let operation = spec.paths.paths["/orders/{id}"]
            .as_item()
            .and_then(|item| item.get.as_ref())
            .expect("operation");
        let kept = answered_by_their_range(&operation.responses, &spec);
        let statuses: Vec<String> = kept.responses.keys().map(ToString::to_string).collect();
        // 401 (by reference) and 404 (inline, with a header and an example progenitor does not
        // read) answer as 4XX does; 409's schema, 410's missing body and 422's media type differ;
        // 500 has no range; 200 none either.
        assert_eq!(statuses, ["200", "409", "410", "422", "4XX", "500"]);
    }
}
