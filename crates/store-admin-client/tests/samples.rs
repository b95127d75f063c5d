//! Every documented example of the service (`tests/fixtures/samples/`, copied from the service's
//! documentation with its SOURCES.md) decodes into the generated type of its operation, and nothing
//! in it is lost on the way: re-serializing gives back every field. Each decoded sample is pinned by
//! an insta snapshot of its re-serialized JSON.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use store_admin_client::types;

fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/samples")
}

/// Samples that are not API responses: they are decoded by the ergonomics crate's tests.
const NOT_OPERATIONS: &[&str] = &[
    "oauth_token.200.json",
    "webhook_app.store.authorize.payload.json",
];

/// Which generated type a sample decodes into, from its file name.
fn target(file: &str) -> Option<Decoder> {
    let (stem, kind) = split(file);
    if kind.starts_with('4') || kind.starts_with('5') {
        return Some(decode_as::<types::ErrorResponse>);
    }
    let decoder: Decoder = match (stem, kind) {
        ("delete_webhooks_unsubscribe", "202") => decode_as::<types::MessageResponse>,
        ("responses_2xx_generic", "200") => decode_as::<types::MessageResponse>,
        ("get_orders", "200") => decode_as::<types::OrderList>,
        ("get_orders_id", "200") => decode_as::<types::OrderDetailsResponse>,
        ("get_orders_statuses", "200") => decode_as::<types::OrderStatusList>,
        ("get_products_quantities", "200") => decode_as::<types::ProductQuantityList>,
        ("get_products_variants_id", "200") => decode_as::<types::ProductVariantResponse>,
        ("get_reservations", "200") => decode_as::<types::ReservationList>,
        ("get_shipments", "200") => decode_as::<types::ShipmentList>,
        ("get_shipments_id", "200") => decode_as::<types::ShipmentResponse>,
        ("get_shipments_id_tracking", "200") => decode_as::<types::ShipmentTrackingResponse>,
        ("get_shipping_companies", "200") => decode_as::<types::ShippingCompanyList>,
        ("get_shipping_company", "200") => decode_as::<types::ShippingCompanyResponse>,
        ("get_shipping_routes", "200") => decode_as::<types::ShippingRouteList>,
        ("get_shipping_routes_id", "200") => decode_as::<types::ShippingRouteResponse>,
        ("get_shipping_rules_id", "200") => decode_as::<types::ShippingRuleResponse>,
        ("get_webhooks", "200") => decode_as::<types::WebhookList>,
        ("get_webhooks_events", "200") => decode_as::<types::WebhookEventList>,
        ("post_categories", "201") => decode_as::<types::CategoryResponse>,
        ("post_categories", "request") => decode_as::<types::CreateCategoryRequest>,
        ("post_languages", "200") => decode_as::<types::LanguageList>,
        ("post_languages", "request") => decode_as::<types::AddLanguagesRequest>,
        ("post_products_id_options", "201") => decode_as::<types::ProductOptionResponse>,
        ("post_products_id_options", "request") => decode_as::<types::CreateProductOptionRequest>,
        ("post_shipments", "200") => decode_as::<types::ShipmentResponse>,
        ("post_shipments", "request") => decode_as::<types::CreateShipmentRequest>,
        ("post_shipments_id_cancel", "200") => decode_as::<types::ShipmentResponse>,
        ("post_shipments_id_return", "200") => decode_as::<types::ShipmentResponse>,
        ("post_webhooks_conditional", "request") => decode_as::<types::SubscribeWebhookRequest>,
        ("post_webhooks_subscribe", "200") => decode_as::<types::WebhookResponse>,
        ("post_webhooks_subscribe", "request") => decode_as::<types::SubscribeWebhookRequest>,
        ("put_shipments_id", "200") => decode_as::<types::ShipmentResponse>,
        ("put_shipments_id", "request") => decode_as::<types::UpdateShipmentRequest>,
        ("put_webhooks_id", "200") => decode_as::<types::WebhookResponse>,
        ("put_webhooks_id", "request") => decode_as::<types::UpdateWebhookRequest>,
        _ => return None,
    };
    Some(decoder)
}

/// `get_orders.200.json` -> (`get_orders`, `200`); `post_languages.422.1.json` -> (.., `422`);
/// `post_shipments.request.merchantapi-5394231.json` -> (`post_shipments`, `request`).
fn split(file: &str) -> (&str, &str) {
    let mut parts = file.trim_end_matches(".json").split('.');
    let stem = parts.next().unwrap_or_default();
    let kind = parts.next().unwrap_or_default();
    (stem, kind)
}

type Decoder = fn(&str) -> Result<Value, String>;

/// Decodes `text` as `T` (naming the JSON path that failed) and re-serializes it.
fn decode_as<T: DeserializeOwned + Serialize>(text: &str) -> Result<Value, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(de)
        .map_err(|e| format!("at `{}`: {}", e.path(), e.inner()))?;
    serde_json::to_value(&value).map_err(|e| e.to_string())
}

/// Null, `[]` and `{}`: what an optional field may drop without losing anything.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// The JSON paths of `original` that `decoded` lost: fields the schema does not declare. Nulls, `[]`
/// and `{}` may be dropped (optional fields are skipped when absent) and numbers may change form
/// (`127` may come back as `127.0`); nothing else.
fn lost(original: &Value, decoded: &Value, path: &str, out: &mut Vec<String>) {
    match (original, decoded) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let here = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) => lost(value, other, &here, out),
                    None if is_empty(value) => {}
                    None => out.push(here),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!(
                    "{path} (array length {} became {})",
                    a.len(),
                    b.len()
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                lost(x, y, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            if a.as_f64() != b.as_f64() {
                out.push(format!("{path} ({a} became {b})"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{path} ({a} became {b})")),
    }
}

fn sample_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(samples_dir())
        .expect("tests/fixtures/samples exists")
        .map(|entry| {
            entry
                .expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_sample_is_present() {
    // The 63 documented examples of the service, and the two documented shapes of order details
    // (built from the example values of its documentation page); a lost file would silently
    // shrink the tests.
    assert_eq!(sample_files().len(), 65);
    for name in NOT_OPERATIONS {
        assert!(sample_files().iter().any(|f| f == name), "{name} missing");
    }
}

#[test]
fn every_sample_decodes_into_its_operation_type_without_losing_fields() {
    let mut failures = Vec::new();
    for file in sample_files() {
        if NOT_OPERATIONS.contains(&file.as_str()) {
            continue;
        }
        let Some(decode) = target(&file) else {
            failures.push(format!(
                "{file}: no operation type is mapped to this sample"
            ));
            continue;
        };
        let text = std::fs::read_to_string(samples_dir().join(&file)).expect("readable sample");
        let original: Value = serde_json::from_str(&text).expect("samples are JSON");
        match decode(&text) {
            Err(e) => failures.push(format!("{file}: does not decode {e}")),
            Ok(decoded) => {
                let mut missing = Vec::new();
                lost(&original, &decoded, "$", &mut missing);
                if !missing.is_empty() {
                    failures.push(format!("{file}: lost {}", missing.join(", ")));
                }
                insta::assert_json_snapshot!(file.trim_end_matches(".json"), decoded);
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn error_samples_carry_status_code_and_message() {
    for file in sample_files() {
        let (_, kind) = split(&file);
        if !(kind.starts_with('4') || kind.starts_with('5')) {
            continue;
        }
        let text = std::fs::read_to_string(samples_dir().join(&file)).expect("readable sample");
        let error: types::ErrorResponse = serde_json::from_str(&text).expect("decodes");
        assert!(!error.success, "{file}");
        assert_eq!(error.status.to_string(), kind, "{file}: status in the body");
        assert!(!error.error.message.is_empty(), "{file}");
    }
}

#[test]
fn the_decoder_reports_the_json_path_of_a_bad_field() {
    let bad = r#"{"status":200,"success":true,"data":[{"id":"x"}],"pagination":{}}"#;
    let err = decode_as::<types::OrderList>(bad).unwrap_err();
    assert!(err.starts_with("at `data[0].id`"), "{err}");
}

#[test]
fn a_field_the_schema_does_not_declare_is_reported_as_lost() {
    let text = r#"{"status":200,"success":true,"data":{"id":1,"name":"DHL","surprise":[1]}}"#;
    let decoded = decode_as::<types::ShippingCompanyResponse>(text).expect("decodes");
    let mut missing = Vec::new();
    lost(
        &serde_json::from_str(text).unwrap(),
        &decoded,
        "$",
        &mut missing,
    );
    assert_eq!(missing, vec!["$.data.surprise".to_string()]);
}
