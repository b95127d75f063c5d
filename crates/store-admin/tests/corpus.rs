//! The delivery corpus (issue 42): the public example deliveries of the platform's partner kit
//! (`fixtures/deliveries/`, each file's source in its `SOURCES.md`), which nobody here wrote. Each
//! decodes as its typed event (not as JSON: the variant and its fields are checked), and the merged
//! drift report of all of them (the habits the lenient decoding needed and the fields the document
//! does not declare, per event) is a snapshot, so that a change of tolerance or of the document
//! shows in review. Beside it, a hostile delivery proves that the count keeps paths, types and
//! counts, never a value, and an inbox built to count does.

use std::path::PathBuf;

use http::HeaderMap;
use secrecy::SecretString;
use store_admin::drift::{DriftCount, JsonType, habits};
use store_admin::inbox::{Inbox, Outcome, Security};
use store_admin::webhooks::{
    EventData, EventName, WebhookEvent, parse_event, parse_event_counting, signed_headers,
    verify_and_parse_counting,
};
use store_admin_client::types::IntegerOrString;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/deliveries")
}

/// Every `.json` of the corpus, by file name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(corpus_dir())
        .expect("the corpus folder")
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("a corpus file reads"))
        })
        .collect();
    files.sort();
    files
}

fn parse(name: &str, body: &[u8]) -> (WebhookEvent, EventData) {
    let event = parse_event(body).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(event.event.is_known(), "{name}: {:?}", event.event);
    assert!(
        name.starts_with(&format!("{}.", event.event.as_str())),
        "{name} holds {}",
        event.event
    );
    let data = event.typed_data().unwrap_or_else(|e| panic!("{name}: {e}"));
    (event, data)
}

#[test]
fn every_delivery_of_the_corpus_decodes_as_its_typed_event() {
    let files = corpus();
    assert_eq!(
        files.len(),
        12,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let sources = std::fs::read_to_string(corpus_dir().join("SOURCES.md")).expect("SOURCES.md");
    for (name, body) in &files {
        assert!(
            sources.contains(&format!("| `{name}` |")),
            "{name} has no row in SOURCES.md"
        );
        let (event, data) = parse(name, body);
        assert_eq!(event.merchant, 1_234_509_876, "{name}");
        // Every form of `created_at` reads, but the documentation's placeholder `…`.
        if event.created_at != "…" {
            event
                .created_at_in("Asia/Riyadh")
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        match (&event.event, data) {
            (EventName::AppStoreAuthorize, EventData::AppStoreAuthorize(tokens)) => {
                assert_eq!(tokens.expires, 1_634_819_484);
                assert_eq!(tokens.scope, "settings.read branches.read offline_access");
                let tokens = tokens.into_token_set().expect("a valid expiry");
                assert!(tokens.refresh.is_some());
            }
            (
                EventName::AppInstalled | EventName::AppUpdated | EventName::AppUninstalled,
                EventData::App(data),
            ) => assert!(data.is_empty(), "{name}: {data:?}"),
            (EventName::AppSettingsUpdated, EventData::AppSettingsUpdated(data)) => {
                let names: Vec<&str> = data.settings.keys().map(String::as_str).collect();
                assert_eq!(names, ["apiKey", "webhookUrl"]);
            }
            (EventName::AppSubscriptionStarted, EventData::AppSubscription(data)) => {
                assert_eq!(data.subscription_id, Some(657_032_372));
                assert_eq!(data.item_type.as_deref(), Some("plan"));
                assert_eq!(data.item_slug, None);
                assert_eq!(data.quantity, Some(1));
                assert_eq!(data.features.len(), 1);
                assert_eq!(data.features[0].key.as_deref(), Some("messages"));
                assert_eq!(data.features[0].quantity, Some(1000));
                assert_eq!(data.total.map(|t| t.to_string()).as_deref(), Some("23"));
                assert_eq!(data.store_type.as_deref(), Some("live"));
                let period = data.plan_period.expect("a period").to_string();
                assert!(
                    ["yearly", "12"].contains(&period.as_str()),
                    "{name}: {period}"
                );
            }
            (
                EventName::CommunicationSmsSend | EventName::CommunicationWhatsappSend,
                EventData::Communication(data),
            ) => {
                assert_eq!(data.notifiable, ["+966500000001"]);
                assert_eq!(data.type_.as_deref(), Some("order.status.updated"));
                let entity = data.entity.expect("an entity");
                assert_eq!(entity.id, Some(IntegerOrString::Int64(12345)));
                assert_eq!(entity.type_.as_deref(), Some("order"));
                assert!(data.meta.contains_key("customer_id"));
            }
            (EventName::OrderShipmentCreating, EventData::OrderShipmentCreating(data)) => {
                assert_eq!(
                    data.shipment_id,
                    Some(IntegerOrString::String("SHP-001".into()))
                );
                assert_eq!(data.order_id, Some(12345));
                let receiver = data.receiver.expect("a receiver");
                let address = receiver.address.expect("an address");
                assert_eq!(address.zip.as_deref(), Some("21577"));
                let package = data.package.expect("a package");
                assert_eq!(package.weight, Some(1.5));
                assert_eq!(
                    package.dimensions.expect("dimensions").unit.as_deref(),
                    Some("cm")
                );
                assert_eq!(data.cod.expect("cod").currency.as_deref(), Some("SAR"));
            }
            (EventName::OrderShipmentCancelled, EventData::OrderShipmentCancelled(data)) => {
                assert_eq!(
                    data.shipment_id,
                    Some(IntegerOrString::String("SHP-001".into()))
                );
                assert_eq!(data.reason.as_deref(), Some("customer_request"));
            }
            (
                EventName::OrderShipmentReturnCreating,
                EventData::OrderShipmentReturnCreating(data),
            ) => {
                assert_eq!(
                    data.return_shipment_id,
                    Some(IntegerOrString::String("RTN-001".into()))
                );
                assert_eq!(data.return_reason.as_deref(), Some("wrong_item"));
                assert!(data.sender.is_some() && data.receiver.is_some());
            }
            (event, data) => panic!("{name}: {event} decoded as {data:?}"),
        }
    }
}

#[test]
fn every_event_the_document_types_decodes_as_its_variant() {
    // The document's `x-webhook-events` name the schema of each typed event; each has its variant.
    for event in EventName::KNOWN {
        let body = format!(
            r#"{{"event":"{event}","merchant":1,"created_at":"2022-12-31 12:31:25","data":{{}}}}"#
        );
        let parsed = parse_event(body.as_bytes()).expect("an envelope");
        match (event.data_schema(), parsed.typed_data()) {
            (None, Ok(EventData::Untyped(_))) => {}
            (None, _) if *event == EventName::AppStoreAuthorize => {}
            (Some(schema), Ok(data)) => {
                assert!(
                    !matches!(data, EventData::Untyped(_)),
                    "{event} ({schema}) untyped"
                );
            }
            (schema, other) => panic!("{event} ({schema:?}): {other:?}"),
        }
    }
    assert_eq!(
        EventName::AppTrialStarted.data_schema(),
        Some("AppSubscriptionEventData")
    );
    assert_eq!(EventName::OrderCreated.data_schema(), None);
}

#[test]
fn the_corpus_drift_report_is_the_snapshot() {
    let drift = DriftCount::new();
    for (name, body) in corpus() {
        parse_event_counting(&body, &drift).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut report = serde_json::to_value(drift.report()).expect("a report serialises");
    // The times differ from run to run: the snapshot keeps what was seen, not when.
    strip_times(&mut report);
    insta::assert_json_snapshot!("corpus_drift", report);
}

fn strip_times(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.remove("first_seen");
            map.remove("last_seen");
            map.values_mut().for_each(strip_times);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_times),
        _ => {}
    }
}

const HIDDEN: &str = "hunter2-never-in-a-report";

/// A subscription event with its id as a string and a field the document does not declare.
fn hostile_body() -> Vec<u8> {
    format!(
        r#"{{"event":"app.subscription.renewed","merchant":"1234509876","created_at":"2022-12-31 12:31:25",
        "data":{{"subscription_id":"657032372","plan_name":"{HIDDEN}-plan","loyalty_secret":"{HIDDEN}",
        "features":[{{"key":"{HIDDEN}-key","quantity":"5","extra":{{"{HIDDEN}":1}}}}]}}}}"#
    )
    .into_bytes()
}

#[test]
fn a_hostile_delivery_counts_paths_types_and_counts_never_a_value() {
    let secret = SecretString::from("corpus-webhook-secret");
    let body = hostile_body();
    let headers = signed_headers(&secret, &body);
    let drift = DriftCount::new();
    let event = verify_and_parse_counting(&headers, &body, &secret, &drift).expect("verifies");
    assert!(matches!(
        event.typed_data().expect("decodes"),
        EventData::AppSubscription(_)
    ));
    // Not verified: neither parsed nor counted.
    let forged = signed_headers(&SecretString::from("another secret"), &body);
    assert!(verify_and_parse_counting(&forged, &body, &secret, &drift).is_err());

    let report = drift.report();
    assert_eq!(report.operations.len(), 1, "{report:?}");
    let renewed = &report.operations["webhook:app.subscription.renewed"];
    assert_eq!((renewed.calls, renewed.decoded, renewed.failed), (1, 1, 0));
    let strings = &renewed.habits[habits::NUMBER_AS_STRING];
    assert_eq!(strings.answers, 1);
    for path in [
        "merchant",
        "data.subscription_id",
        "data.features[].quantity",
    ] {
        let seen = &strings.paths[path];
        assert_eq!(
            (seen.count, seen.types.as_slice()),
            (1, [JsonType::String].as_slice()),
            "{path}"
        );
    }
    let unknown = &renewed.unknown_fields["data.loyalty_secret"];
    assert_eq!(
        (unknown.count, unknown.types.as_slice()),
        (1, [JsonType::String].as_slice())
    );
    let extra = &renewed.unknown_fields["data.features[].extra"];
    assert_eq!(extra.types, [JsonType::Object]);
    let text = serde_json::to_string(&report).expect("a report serialises");
    assert!(!text.contains(HIDDEN), "a value reached the report: {text}");
    for value in ["657032372", "1234509876"] {
        assert!(!text.contains(value), "{value} reached the report: {text}");
    }
}

#[test]
fn an_unknown_event_is_keyed_by_its_name_only_when_it_reads_as_one() {
    let drift = DriftCount::new();
    for event in [
        "brand.teleported",
        "Secret Value 42!",
        "x.aK9fj3kLq8ZpX2mN7vB4",
    ] {
        let body = format!(
            r#"{{"event":"{event}","merchant":1,"created_at":"2022-12-31 12:31:25","data":{{"a":1}}}}"#
        );
        parse_event_counting(body.as_bytes(), &drift).expect("an envelope");
    }
    parse_event_counting(br#"{"event":"order.created"}"#, &drift).expect_err("no envelope");
    let report = drift.report();
    let names: Vec<&str> = report.operations.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "webhook:<other>",
            "webhook:brand.teleported",
            "webhook:order.created"
        ]
    );
    assert_eq!(report.operations["webhook:<other>"].calls, 2);
    assert_eq!(report.operations["webhook:order.created"].failed, 1);
}

#[tokio::test]
async fn an_inbox_built_to_count_adds_its_deliveries_to_the_clients_report() {
    let admin = store_admin::StoreAdmin::builder()
        .with_token("drift-token")
        .with_drift_counting()
        .build()
        .expect("a client");
    let drift = admin.drift_count().expect("counting is on");
    let secret = SecretString::from("inbox-webhook-secret");
    let inbox = Inbox::builder(
        Security::Signature(secret.clone()),
        |_event: WebhookEvent| async { Ok::<(), store_admin::inbox::HandlerError>(()) },
    )
    .count_drift(drift)
    .build();
    let body = hostile_body();
    let outcome = inbox.receive(&signed_headers(&secret, &body), &body).await;
    assert!(matches!(outcome, Outcome::Handled), "{outcome:?}");
    // A delivery that fails verification is not counted.
    let outcome = inbox.receive(&HeaderMap::new(), &body).await;
    assert!(matches!(outcome, Outcome::Rejected(_)), "{outcome:?}");
    let report = admin.drift();
    let renewed = &report.operations["webhook:app.subscription.renewed"];
    assert_eq!(renewed.calls, 1);
    assert!(renewed.unknown_fields.contains_key("data.loyalty_secret"));
    // Without `count_drift`, an inbox counts nothing, and a client without counting has no count.
    let plain = store_admin::StoreAdmin::builder()
        .with_token("drift-token")
        .build()
        .expect("a client");
    assert!(plain.drift_count().is_none());
}

/// `app.feedback.created` as the platform's App Events documentation shows it (its example, with
/// the comma the page leaves out after `description` put back, and the store's name replaced by a
/// fake): typed as `AppFeedbackEventData`, the rating sent as text read as a number and counted as
/// that habit, every field declared.
#[test]
fn an_app_feedback_delivery_decodes_as_its_typed_event() {
    let body = r#"{
  "event": "app.feedback.created",
  "merchant": 1234509876,
  "created_at": "2022-12-31 12:31:25",
  "data": {
    "id": 6789012345,
    "app_name": "Shipping app",
    "description": "App Description",
    "app_type": "app",
    "categories": [
      "Marketing"
    ],
    "rating": "5",
    "rated_by": "متجر التجربة",
    "comment": "No Comments"
  }
}"#;
    let drift = DriftCount::new();
    let event = parse_event_counting(body.as_bytes(), &drift).expect("an envelope");
    assert_eq!(event.event, EventName::AppFeedbackCreated);
    let EventData::AppFeedback(data) = event.typed_data().expect("decodes") else {
        panic!("not typed as app feedback: {:?}", event.typed_data());
    };
    assert_eq!(data.id, Some(6_789_012_345));
    assert_eq!(data.rating, Some(5));
    assert_eq!(data.rated_by.as_deref(), Some("متجر التجربة"));
    assert_eq!(data.comment.as_deref(), Some("No Comments"));
    assert_eq!(data.categories, ["Marketing"]);

    let report = drift.report();
    let feedback = &report.operations["webhook:app.feedback.created"];
    assert_eq!((feedback.calls, feedback.decoded), (1, 1));
    assert!(feedback.unknown_fields.is_empty(), "{feedback:?}");
    let rating = &feedback.habits[habits::NUMBER_AS_STRING].paths["data.rating"];
    assert_eq!(rating.types, [JsonType::String]);
}
