//! Read-modify-write (`store_admin::modify`) against the embedded mock store over HTTP: one field
//! changed and every other kept, the read shape converted into the write shape (an
//! advertisement's `expire_date`), a read that fails writes nothing, and every generated pairing
//! accepted by the mock's validation of the update's body.

use serde_json::{Map, Value};
use store_admin::modify::{PAIRINGS, Pairing};
use store_admin::prelude::*;
use store_admin::{StoreAdmin, types};
use store_admin_mock::{MockConfig, MockServer};

type Failure = Box<dyn std::error::Error>;

async fn store() -> Result<(MockServer, StoreAdmin), Failure> {
    let server = MockServer::start(MockConfig::new()).await?;
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(store_admin_mock::DEFAULT_TOKEN)
        .build()?;
    Ok((server, admin))
}

/// The record of a brand as the read answers it, as JSON.
async fn brand_json(admin: &StoreAdmin, id: i64) -> Result<Value, Failure> {
    let read = admin
        .get_brand()
        .brand_id(id)
        .with(types::GetBrandWith::Translations)
        .call()
        .await?;
    Ok(serde_json::to_value(read.data)?)
}

#[tokio::test]
async fn one_field_of_a_brand_changes_and_every_other_is_kept() -> Result<(), Failure> {
    let (server, admin) = store().await?;
    let brands = admin.list_brands().call().await?;
    let id = brands.data.first().expect("the mock has brands").id;
    // The brand as a store has it: every field the update writes (the mock's seeded brands have
    // only some).
    let http = store_admin::reqwest::Client::new();
    let base = server.base_url().trim_end_matches('/');
    let full = server.sample_body("update_brand").expect("a JSON body");
    let (status, _) = send(&http, base, "PUT", &format!("/brands/{id}"), Some(&full)).await?;
    assert!(status.is_success());
    let before = brand_json(&admin, id).await?;

    let modified = admin.modify_brand(id, |b| b.name("Acme Works")).await?;
    assert_eq!(
        Some(&Value::from(modified.before.name.clone())),
        before.get("name")
    );
    assert_eq!(modified.after.data.name.as_deref(), Some("Acme Works"));

    assert_eq!(server.requests_received("get_brand"), 2, "one read more");
    let after = brand_json(&admin, id).await?;
    let (Value::Object(mut before), Value::Object(mut after)) = (before, after) else {
        panic!("a brand is an object");
    };
    assert_eq!(after.remove("name"), Some(Value::from("Acme Works")));
    before.remove("name");
    assert_eq!(after, before, "only the name changed");
    Ok(())
}

#[tokio::test]
async fn an_advertisement_read_with_a_timestamp_object_is_written_with_its_date()
-> Result<(), Failure> {
    let (_server, admin) = store().await?;
    let created = admin
        .create_advertisement()
        .body(
            types::CreateAdvertisementRequest::builder()
                .title("Sale")
                .description("Everything half price")
                .type_(types::AdvertisementTargetInput::builder().name("without_url"))
                .expire_date("2030-12-31")
                .pages(vec![types::CreateAdvertisementRequestPagesItem::Home]),
        )
        .call()
        .await?;
    let id = created.data.id;
    let read = admin
        .get_advertisement()
        .advertisement_id(id)
        .call()
        .await?;
    let read = serde_json::to_value(&read.data)?;
    assert!(
        read["expire_date"].is_object(),
        "read as a timestamp object: {read}"
    );

    let modified = admin
        .modify_advertisement(id, |b| b.title("Winter sale"))
        .await?;
    assert_eq!(modified.after.data.title.as_deref(), Some("Winter sale"));
    let again = admin
        .get_advertisement()
        .advertisement_id(id)
        .call()
        .await?;
    let again = serde_json::to_value(&again.data)?;
    assert_eq!(again["expire_date"]["date"], read["expire_date"]["date"]);
    assert!(
        again["expire_date"]["date"]
            .as_str()
            .is_some_and(|d| d.starts_with("2030-12-31")),
        "{again}"
    );
    assert_eq!(again["description"], read["description"]);
    assert_eq!(again["pages"], read["pages"]);
    Ok(())
}

#[tokio::test]
async fn a_record_that_is_not_there_is_not_found_and_nothing_is_written() -> Result<(), Failure> {
    let (server, admin) = store().await?;

    let error = admin
        .modify_brand(987_654_321, |b| b.name("Nobody"))
        .await
        .expect_err("no such brand");
    assert!(error.is_not_found(), "{error}");
    assert_eq!(server.requests_received("get_brand"), 1);
    assert_eq!(
        server.requests_received("update_brand"),
        0,
        "nothing written"
    );
    Ok(())
}

/// A record of `pairing`'s path, written in full with the update's sample body first (as a
/// store's record has every field the update writes): its path and the record as read.
async fn some_record(
    http: &store_admin::reqwest::Client,
    server: &MockServer,
    pairing: &Pairing,
) -> Result<(String, Map<String, Value>), Failure> {
    let base = server.base_url().trim_end_matches('/');
    let id = record_id(http, server, pairing).await?;
    let path = fill(pairing.path, &id);
    let full = server
        .sample_body(pairing.update)
        .expect("an update has a JSON body");
    let written = send(http, base, "PUT", &path, Some(&full)).await?;
    assert!(written.0.is_success(), "{}: {written:?}", pairing.update);
    let with: String = pairing.with.iter().map(|w| format!("?with={w}")).collect();
    let (status, read) = send(http, base, "GET", &format!("{path}{with}"), None).await?;
    assert!(status.is_success(), "{}: {status} {read}", pairing.get);
    match read.get("data") {
        Some(Value::Object(record)) => Ok((path, record.clone())),
        _ => panic!("{}: no record in {read}", pairing.get),
    }
}

/// The id of a record of `pairing`'s path: the first its collection lists, or one created with
/// the create's sample body, or the first of the seeded ids the read answers.
async fn record_id(
    http: &store_admin::reqwest::Client,
    server: &MockServer,
    pairing: &Pairing,
) -> Result<String, Failure> {
    let base = server.base_url().trim_end_matches('/');
    let parent = &pairing.path[..pairing.path.rfind("/{").unwrap_or(pairing.path.len())];
    let of = |method: &str| {
        store_admin::OPERATIONS
            .iter()
            .find(|o| o.method == method && o.path.trim_end_matches('/') == parent)
    };
    let id_text = |value: &Value| match value {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    };
    if let Some(list) = of("GET") {
        let (status, list) = send(http, base, "GET", list.path, None).await?;
        if let Some(id) = status
            .is_success()
            .then(|| list.pointer("/data/0/id").and_then(id_text))
            .flatten()
        {
            return Ok(id);
        }
    }
    if let Some(create) = of("POST") {
        let body = server.sample_body(create.operation_id);
        let (status, created) = send(http, base, "POST", create.path, body.as_ref()).await?;
        if let Some(id) = status
            .is_success()
            .then(|| created.pointer("/data/id").and_then(id_text))
            .flatten()
        {
            return Ok(id);
        }
    }
    // A record kept inside another (a product's options and their values, its variants): the
    // ids nested in a product's details, tried one by one.
    let (_, products) = send(http, base, "GET", "/products", None).await?;
    let mut candidates = Vec::new();
    for product in products["data"].as_array().into_iter().flatten() {
        let Some(id) = product.get("id").and_then(id_text) else {
            continue;
        };
        let (_, product) = send(http, base, "GET", &format!("/products/{id}"), None).await?;
        nested_ids(&product, &mut candidates);
    }
    for id in candidates {
        let (status, _) = send(http, base, "GET", &fill(pairing.path, &id), None).await?;
        if status.is_success() {
            return Ok(id);
        }
    }
    panic!("{}: no record the mock answers", pairing.get)
}

/// Every `id` in `value`, at any depth.
fn nested_ids(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner) {
                    ("id", Value::Number(n)) => out.push(n.to_string()),
                    ("id", Value::String(s)) => out.push(s.clone()),
                    _ => nested_ids(inner, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| nested_ids(item, out)),
        _ => {}
    }
}

/// Sends a request with the mock's token; the status and the JSON answer (`null` if none).
async fn send(
    http: &store_admin::reqwest::Client,
    base: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(store_admin::reqwest::StatusCode, Value), Failure> {
    let method: store_admin::reqwest::Method = method.parse()?;
    let mut request = http
        .request(method, format!("{base}{path}"))
        .bearer_auth(store_admin_mock::DEFAULT_TOKEN);
    if let Some(body) = body {
        request = request.json(body);
    }
    let answer = request.send().await?;
    let status = answer.status();
    let text = answer.text().await?;
    Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// `path` with its one parameter set to `id`.
fn fill(path: &str, id: &str) -> String {
    let start = path.find('{').unwrap_or(path.len());
    let end = path.find('}').map_or(path.len(), |e| e + 1);
    format!("{}{id}{}", &path[..start], &path[end..])
}

#[tokio::test]
async fn every_pairing_reads_converts_and_writes_a_body_the_store_accepts() -> Result<(), Failure> {
    let (server, _admin) = store().await?;
    let base = server.base_url().trim_end_matches('/').to_owned();
    let http = store_admin::reqwest::Client::new();
    assert!(PAIRINGS.len() >= 8, "the document's updates have pairings");
    let mut walked = Vec::new();
    for pairing in PAIRINGS {
        let (path, record) = some_record(&http, &server, pairing).await?;
        let body = pairing.body_from_record(&record);
        assert_eq!(
            pairing.missing(&body),
            Vec::<&str>::new(),
            "{}: {record:?}",
            pairing.update
        );
        let body = Value::Object(body);
        let (status, answer) = send(&http, &base, "PUT", &path, Some(&body)).await?;
        assert!(
            status.is_success(),
            "{} refused the body made from {}: {status} {answer}\nbody: {body}",
            pairing.update,
            pairing.get,
        );
        walked.push(pairing.update);
    }
    assert_eq!(walked.len(), PAIRINGS.len());
    Ok(())
}
