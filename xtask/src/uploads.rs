//! The table of `store-admin`'s hand-written operations (`crates/store-admin/src/hand_written.rs`),
//! generated from the document as the value sets are: for each `multipart/form-data` upload, its
//! builder, path parameters and form fields (a setter per field of the document's request schema,
//! typed from it, documented with its description); for each other operation progenitor cannot
//! generate, the row naming its hand-written method, and a compile-time check that the method
//! exists. A field the document adds, renames or drops changes the builders with it: the table
//! is no hand copy of the document.

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::document::{Document, Raw, code_file, ordered, property_order};
use crate::hand_written::{HandWritten, hand_written};
use crate::lint::escape;
use crate::model::Output;
use crate::names::{field_ident, pascal, snake, type_path};

/// Where the table is written (`hand_written.rs` includes it after the `uploads!` macro).
pub const UPLOADS_OUT: &str = "crates/store-admin/src/generated_uploads.rs";

/// The generated table.
pub fn outputs(doc: &Document) -> Result<Vec<Output>> {
    let mut uploads = Vec::new();
    let mut others = Vec::new();
    for op in hand_written(&doc.spec) {
        let context = || format!("the hand-written operation `{}`", op.operation_id);
        let json = operation_json(doc, &op).with_context(context)?;
        let area = area(json).with_context(context)?;
        match json.pointer("/requestBody/content/multipart~1form-data/schema") {
            Some(schema) => {
                uploads.push(upload(doc, &op, json, schema, area).with_context(context)?)
            }
            None => others.push(other(&op, area)),
        }
    }
    let mut text = String::from("uploads! {\n");
    for upload in &uploads {
        text.push_str(upload);
        text.push('\n');
    }
    text.push_str("    others {\n");
    for (row, _) in &others {
        text.push_str(row);
    }
    text.push_str("    }\n}\n");
    for (_, check) in &others {
        text.push('\n');
        text.push_str(check);
    }
    syn::parse_file(&text).context("the generated table of uploads does not parse")?;
    Ok(vec![Output {
        rel_path: UPLOADS_OUT.to_owned(),
        content: code_file(
            doc,
            "The uploads and other hand-written operations of `store-admin`, for the `uploads!` macro of\n\
             `hand_written.rs`, which includes this file.",
            &text,
        )?,
    }])
}

/// The operation's node of the document.
fn operation_json<'a>(doc: &'a Document, op: &HandWritten) -> Result<&'a Value> {
    doc.raw
        .pointer(&format!("/paths/{}/{}", escape(&op.path), op.method))
        .ok_or_else(|| anyhow!("not found at {} {}", op.method, op.path))
}

/// The area (cargo feature) of an operation, from its first tag.
fn area(op: &Value) -> Result<&'static str> {
    let tag = op
        .pointer("/tags/0")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("no tag"))?;
    crate::areas::area_of_tag(tag)
        .map(|area| area.name)
        .ok_or_else(|| anyhow!("the tag `{tag}` is in no area"))
}

/// One upload, as a row of the `uploads!` macro.
fn upload(
    doc: &Document,
    op: &HandWritten,
    json: &Value,
    schema: &Value,
    area: &str,
) -> Result<String> {
    let builder = pascal(&op.operation_id);
    let success = success_type(doc, json)?;
    let item = doc
        .raw
        .pointer(&format!("/paths/{}", escape(&op.path)))
        .unwrap_or(&Value::Null);
    let params = path_params(doc, item, json)?;
    let schema_name = Raw::ref_name(schema)
        .ok_or_else(|| anyhow!("the form's schema is not a component (its enums need a name)"))?;
    let form = Raw(&doc.raw).resolve(schema);
    let required: Vec<&str> = crate::schema::required(form).collect();
    let properties = form
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("the form's schema has no properties"))?;
    let mut text = doc_lines(&operation_docs(op, json), "    ");
    let params: Vec<String> = params
        .iter()
        .map(|(name, ty)| format!("{name}: {ty}"))
        .collect();
    text.push_str(&format!(
        "    {area:?} {} -> {builder}, {success} {{\n        path {}\n",
        op.operation_id,
        match params.is_empty() {
            true => "{}".to_owned(),
            false => format!("{{ {} }}", params.join(", ")),
        }
    ));
    for wire in ordered(properties, &property_order(doc, &schema_name)) {
        let property = &properties[wire];
        let setter = field_ident(&snake(wire));
        let ty = field_type(doc, &schema_name, wire, property)
            .with_context(|| format!("the form field `{wire}`"))?;
        let description = match property.get("description") {
            Some(text) => text.as_str(),
            None => Raw(&doc.raw)
                .resolve(property)
                .get("description")
                .and_then(Value::as_str),
        };
        if let Some(description) = description {
            text.push_str(&doc_lines(description, "        "));
        }
        let is_required = required.contains(&wire.as_str());
        text.push_str(&format!(
            "        {setter} = {wire:?}: {ty}, {is_required};\n"
        ));
    }
    text.push_str("    }\n");
    Ok(text)
}

/// A hand-written operation that is no upload: its row of `METHODS` (the method of its
/// `operationId`'s name), and a check that `StoreAdmin` has that method.
fn other(op: &HandWritten, area: &str) -> (String, String) {
    let id = &op.operation_id;
    let row = format!(
        "        #[cfg(feature = {area:?})]\n        HandWrittenMethod {{\n            operation_id: {id:?},\n            method: \"StoreAdmin::{id}\",\n            multipart: false,\n            path_params: &[],\n            fields: &[],\n        }},\n"
    );
    let check = format!(
        "// `{id}` is hand-written as a method of `StoreAdmin` of its name.\n#[cfg(feature = {area:?})]\nconst _: () = {{\n    let _ = StoreAdmin::{id};\n}};\n"
    );
    (row, check)
}

/// `text` as `///` lines, each indented by `indent`.
fn doc_lines(text: &str, indent: &str) -> String {
    text.trim_end()
        .lines()
        .map(|line| match line.trim_end() {
            "" => format!("{indent}///\n"),
            line => format!("{indent}/// {line}\n"),
        })
        .collect()
}

/// An operation's documentation: its summary and the method and path, then its description.
fn operation_docs(op: &HandWritten, json: &Value) -> String {
    let summary = json
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or(&op.operation_id)
        .trim_end_matches('.');
    let mut text = format!(
        "{summary} (`{} {}`).",
        op.method.to_ascii_uppercase(),
        op.path
    );
    if let Some(description) = json.get("description").and_then(Value::as_str) {
        text.push_str("\n\n");
        text.push_str(description);
    }
    text
}

/// The type of the body of the first success that has one: `types::Name` of its JSON schema.
fn success_type(doc: &Document, op: &Value) -> Result<String> {
    let responses = op
        .get("responses")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("no responses"))?;
    for (status, response) in responses {
        if !status.starts_with('2') {
            continue;
        }
        let response = Raw(&doc.raw).resolve(response);
        if let Some(schema) = response.pointer("/content/application~1json/schema") {
            let name = Raw::ref_name(schema)
                .ok_or_else(|| anyhow!("the {status} response's schema is not a component"))?;
            return Ok(type_path(&name));
        }
    }
    bail!("no success with a JSON body")
}

/// The path parameters (the path item's, then the operation's), with their Rust types.
fn path_params(
    doc: &Document,
    item: &Value,
    op: &Value,
) -> Result<Vec<(syn::Ident, &'static str)>> {
    let mut params = Vec::new();
    let declared = [item, op]
        .into_iter()
        .filter_map(|node| node.get("parameters").and_then(Value::as_array))
        .flatten();
    for param in declared {
        let param = Raw(&doc.raw).resolve(param);
        if param.get("in").and_then(Value::as_str) != Some("path") {
            continue;
        }
        let name = param
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("a path parameter without a name"))?;
        let schema = Raw(&doc.raw).resolve(param.get("schema").unwrap_or(&Value::Null));
        let ty = match schema.get("type").and_then(Value::as_str) {
            Some("integer") => "i64",
            Some("string") => "String",
            other => bail!("the path parameter `{name}` is of type {other:?}"),
        };
        params.push((field_ident(&snake(name)), ty));
    }
    Ok(params)
}

/// A form field's Rust type: a file is a `Part`; a scalar its type (an enum of strings its
/// generated type, named by typify: the form's schema then the field, or its component's name).
fn field_type(doc: &Document, form: &str, wire: &str, property: &Value) -> Result<String> {
    let target = Raw(&doc.raw).resolve(property);
    let kind = target.get("type").and_then(Value::as_str);
    let format = target.get("format").and_then(Value::as_str);
    Ok(match (kind, format) {
        (Some("string"), Some("binary")) => "Part".to_owned(),
        (Some("string"), _) if target.get("enum").is_some() => match Raw::ref_name(property) {
            Some(name) => type_path(&name),
            None => format!("{}{}", type_path(form), pascal(wire)),
        },
        (Some("string"), _) => "String".to_owned(),
        (Some("integer"), _) => "i64".to_owned(),
        (Some("number"), _) => "f64".to_owned(),
        (Some("boolean"), _) => "bool".to_owned(),
        other => bail!("neither a file nor a scalar: {other:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(yaml: &str) -> Document {
        let raw: Value = crate::yaml::from_str(yaml).expect("YAML");
        Document {
            rel_path: "test.yaml".to_owned(),
            text: yaml.to_owned(),
            spec: serde_json::from_value(raw.clone()).expect("an OpenAPI document"),
            raw,
        }
    }

    const DOC: &str = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /brands/{brand_id}/logo:
    post:
      operationId: set_brand_logo
      summary: Sets a brand's logo.
      tags: [Brands]
      parameters:
        - {name: brand_id, in: path, required: true, schema: {type: integer}}
      requestBody:
        content:
          multipart/form-data:
            schema: {$ref: "#/components/schemas/SetLogo"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Brand"}
  /oauth2/user/info:
    servers: [{url: "https://accounts.example.test"}]
    get:
      operationId: get_user_info
      tags: [Settings]
      responses:
        "200": {description: ok}
components:
  schemas:
    Brand: {type: object}
    SetLogo:
      type: object
      required: [logo]
      properties:
        logo: {type: string, format: binary, description: The logo file.}
        kind: {type: string, enum: [square, wide]}
        "translations[en][name]": {type: string, description: "The English name\nof the brand."}
        main: {type: boolean}
"##;

    #[test]
    fn each_upload_has_its_setters_and_each_other_operation_its_row_and_check() {
        let out = outputs(&document(DOC)).expect("generates");
        let text = &out[0].content;
        assert_eq!(out[0].rel_path, UPLOADS_OUT);
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            "/// Sets a brand's logo (`POST /brands/{brand_id}/logo`).",
            "\"products\" set_brand_logo -> SetBrandLogo, types::Brand {",
            "path { brand_id: i64 }",
            "/// The logo file. logo = \"logo\": Part, true;",
            "kind = \"kind\": types::SetLogoKind, false;",
            "/// The English name /// of the brand. translations_en_name = \"translations[en][name]\": String, false;",
            "main = \"main\": bool, false;",
            "#[cfg(feature = \"store\")] HandWrittenMethod { operation_id: \"get_user_info\", method: \"StoreAdmin::get_user_info\", multipart: false,",
            "const _: () = { let _ = StoreAdmin::get_user_info; };",
        ] {
            assert!(flat.contains(expected), "{expected}\n\nin\n\n{text}");
        }
    }

    #[test]
    fn a_form_field_that_is_no_scalar_fails_naming_it() {
        let doc = document(&DOC.replace(
            "main: {type: boolean}",
            "main: {type: array, items: {type: string}}",
        ));
        let Err(error) = outputs(&doc) else {
            panic!("an array field is refused");
        };
        let error = format!("{error:#}");
        assert!(error.contains("set_brand_logo"), "{error}");
        assert!(error.contains("the form field `main`"), "{error}");
    }
}
