//! Operations progenitor cannot generate, computed from the document.
//!
//! progenitor 0.15.1 fails on a request body of any media type but JSON, octet-stream, form
//! urlencoded and plain text (a `multipart/form-data` upload), panics on a body offering several
//! media types, and ignores `servers` (a path item served by another host would be sent to the
//! API's base URL). Such operations stay in the document (other languages generate them) and in
//! `OPERATIONS`, are left out of progenitor's input, and are listed in the generated
//! `HAND_WRITTEN` table with the reason, so that the crates that must reach them by hand (the
//! client, the CLI, the mock) can test that each one has its hand-written path.

use openapiv3::{OpenAPI, ReferenceOr};

use crate::lint::operations;

/// Media types of a request body that progenitor generates.
const GENERATED_MEDIA_TYPES: [&str; 5] = [
    "application/json",
    "application/octet-stream",
    "application/x-www-form-urlencoded",
    "text/plain",
    "text/x-markdown",
];

/// An operation that progenitor cannot generate, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandWritten {
    /// The operation's `operationId`.
    pub operation_id: String,
    /// The lower-case method, as in the document.
    pub method: String,
    /// The path template.
    pub path: String,
    /// Why progenitor cannot generate it, for people.
    pub reason: String,
}

/// Every operation of `spec` progenitor cannot generate, in document order.
pub fn hand_written(spec: &OpenAPI) -> Vec<HandWritten> {
    let mut out = Vec::new();
    for (_, path, method, op) in operations(spec) {
        let item = spec.paths.paths.get(path).and_then(ReferenceOr::as_item);
        let servers = item
            .map(|i| i.servers.as_slice())
            .filter(|s| !s.is_empty())
            .or_else(|| Some(op.servers.as_slice()).filter(|s| !s.is_empty()));
        let reason = if let Some(servers) = servers {
            let urls: Vec<&str> = servers.iter().map(|s| s.url.as_str()).collect();
            Some(format!("served by another host ({})", urls.join(", ")))
        } else {
            request_media_types(spec, op).and_then(|types| match types.as_slice() {
                [] => None,
                [one] if GENERATED_MEDIA_TYPES.contains(&media_essence(one)) => None,
                [one] => Some(format!("{} request body", media_essence(one))),
                several => Some(format!(
                    "request body in several media types ({})",
                    several.join(", ")
                )),
            })
        };
        if let Some(reason) = reason {
            out.push(HandWritten {
                operation_id: op.operation_id.clone().unwrap_or_default(),
                method: method.to_owned(),
                path: path.to_owned(),
                reason,
            });
        }
    }
    out
}

/// `multipart/form-data; boundary=x` -> `multipart/form-data`.
fn media_essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or_default().trim()
}

/// The media types of an operation's request body (through a `requestBodies` reference).
fn request_media_types(spec: &OpenAPI, op: &openapiv3::Operation) -> Option<Vec<String>> {
    let body = match op.request_body.as_ref()? {
        ReferenceOr::Item(body) => body,
        ReferenceOr::Reference { reference } => spec
            .components
            .as_ref()?
            .request_bodies
            .get(reference.rsplit('/').next()?)?
            .as_item()?,
    };
    Some(body.content.keys().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths:
  /products/{id}/images:
    post:
      operationId: upload_product_image
      requestBody:
        content:
          multipart/form-data:
            schema: { type: object, properties: { photo: { type: string, format: binary } } }
      responses: { "200": { description: ok } }
    get:
      operationId: list_product_images
      responses: { "200": { description: ok } }
  /categories:
    post:
      operationId: create_category
      requestBody: { $ref: "#/components/requestBodies/Both" }
      responses: { "200": { description: ok } }
    put:
      operationId: update_category
      requestBody:
        content:
          application/json; charset=utf-8: { schema: { type: string } }
      responses: { "200": { description: ok } }
  /oauth2/user/info:
    servers: [{ url: "https://accounts.salla.sa" }]
    get:
      operationId: get_user_info
      responses: { "200": { description: ok } }
components:
  requestBodies:
    Both:
      content:
        application/json: { schema: { type: string } }
        multipart/form-data: { schema: { type: string } }
"##;

    #[test]
    fn multipart_bodies_several_media_types_and_other_servers_are_hand_written() {
        let spec: OpenAPI = crate::yaml::from_str(DOC).expect("parses");
        let listed: Vec<(String, String)> = hand_written(&spec)
            .into_iter()
            .map(|h| (h.operation_id, h.reason))
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "upload_product_image".to_owned(),
                    "multipart/form-data request body".to_owned()
                ),
                (
                    "create_category".to_owned(),
                    "request body in several media types (application/json, multipart/form-data)"
                        .to_owned()
                ),
                (
                    "get_user_info".to_owned(),
                    "served by another host (https://accounts.salla.sa)".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn the_document_lists_what_it_cannot_generate() {
        let doc = crate::document::Document::load(
            &crate::document::workspace_root(),
            crate::document::SPEC,
        )
        .expect("loads");
        // Every operation listed is one of the document's.
        let ids: Vec<String> = operations(&doc.spec)
            .filter_map(|(_, _, _, op)| op.operation_id.clone())
            .collect();
        for h in hand_written(&doc.spec) {
            assert!(ids.contains(&h.operation_id), "{}", h.operation_id);
        }
    }
}
