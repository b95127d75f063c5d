//! Waiters against the mock store, whose exports run in the background: the file is listed in
//! the export logs only once the job has run, and the waiter returns that entry, or a typed
//! timeout when the job does not finish in time.

use std::time::Duration;

use store_admin::prelude::*;
use store_admin::types::{
    ExportProductsRequest, ExportProductsRequestFormat, ExportProductsRequestType,
};
use store_admin::waiters::{ExportLogs, ImportKind, ImportWatch, WaitError, WaitOptions};
use store_admin::{Error, StoreAdmin};
use store_admin_mock::{Limits, MockConfig, MockServer};

const TOKEN: &str = "waiter-token";

async fn setup(job: Duration) -> (MockServer, StoreAdmin) {
    let server = MockServer::start(MockConfig::new().token_all_scopes(TOKEN).limits(Limits {
        background_job: job,
        ..Limits::default()
    }))
    .await
    .expect("mock");
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .expect("client");
    (server, admin)
}

fn fast() -> WaitOptions {
    WaitOptions::default()
        .deadline(Duration::from_secs(10))
        .backoff(Duration::from_millis(50), 1.5, Duration::from_millis(400))
}

#[tokio::test]
async fn an_export_is_waited_for_until_its_file_is_listed() {
    let (_server, admin) = setup(Duration::from_millis(400)).await;
    let before = ExportLogs::snapshot(&admin).await.unwrap();
    let listed = |admin: &StoreAdmin| {
        let admin = admin.clone();
        async move { admin.list_export_logs().call().await.unwrap().data.len() }
    };
    let count = listed(&admin).await;
    let started = std::time::Instant::now();
    let job = admin
        .export_products()
        .body(
            ExportProductsRequest::builder()
                .type_(ExportProductsRequestType::Prices)
                .format(ExportProductsRequestFormat::Csv),
        )
        .call()
        .await
        .unwrap();
    assert!(job.data.message.is_some(), "the job is confirmed");
    assert_eq!(
        listed(&admin).await,
        count,
        "not listed before the job has run"
    );

    let file = before
        .wait_until_exported(&admin, Some("prices"), &fast())
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(file.type_.as_deref(), Some("product_prices"));
    assert!(file.url.as_deref().unwrap().ends_with(".csv"), "{file:?}");
    assert_eq!(listed(&admin).await, count + 1);

    // A waiter for another export does not take this one, and times out, typed.
    let other = before
        .wait_until_exported(
            &admin,
            Some("orders"),
            &fast().deadline(Duration::from_millis(300)),
        )
        .await;
    match other {
        Err(WaitError::TimedOut { what, polls, .. }) => {
            assert_eq!(what, "the orders export");
            assert!(polls >= 2, "{polls}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_failing_poll_ends_the_wait_with_the_calls_error() {
    let (server, admin) = setup(Duration::from_secs(60)).await;
    let before = ExportLogs::snapshot(&admin).await.unwrap();
    drop(server);
    let unreachable = StoreAdmin::builder()
        .with_base_url("http://127.0.0.1:9/admin/v2")
        .with_token(TOKEN)
        .with_retry_policy(store_admin::retry::RetryPolicy::default().with_max_attempts(1))
        .build()
        .unwrap();
    let waited = before
        .wait_until_exported(&unreachable, None, &fast())
        .await;
    match waited {
        Err(WaitError::Poll { what, source }) => {
            assert_eq!(what, "the export");
            assert!(matches!(source, Error::Transport { .. }), "{source}");
        }
        other => panic!("{other:?}"),
    }
}

/// A CSV file as the mock reads an import (the service takes the same columns in Excel).
fn csv_part(text: &str) -> store_admin::multipart::Part {
    store_admin::multipart::Part::bytes(text.as_bytes().to_vec())
        .file_name("rows.csv")
        .mime("text/csv")
}

#[tokio::test]
async fn an_import_of_customers_is_waited_for_until_every_row_is_a_customer() {
    let (_server, admin) = setup(Duration::from_millis(400)).await;
    let emails = ["ada@example.com", "grace@example.com"].map(str::to_owned);
    let watch = ImportWatch::snapshot(&admin, ImportKind::Customers, emails.clone())
        .await
        .expect("snapshot");
    admin
        .import_customers()
        .file(csv_part(
            "first_name,last_name,email,mobile\nAda,Lovelace,ada@example.com,555000111\n\
             Grace,Hopper,grace@example.com,555000222\n",
        ))
        .send()
        .await
        .expect("the upload is confirmed");
    let imported = watch
        .wait_until_imported(&admin, &fast())
        .await
        .expect("imported");
    let got: Vec<&str> = imported
        .iter()
        .map(|c| c["email"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["ada@example.com", "grace@example.com"]);
    assert_eq!(imported[0]["first_name"], "Ada", "{}", imported[0]);
}

#[tokio::test]
async fn an_import_that_updates_products_is_waited_for_until_they_change() {
    let (server, admin) = setup(Duration::from_millis(300)).await;
    // Two products the store has, by their SKUs.
    let body: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/products?per_page=2", server.base_url()))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let skus: Vec<String> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sku"].as_str().expect("a sku").to_owned())
        .collect();
    assert_eq!(skus.len(), 2);
    let watch = ImportWatch::snapshot(&admin, ImportKind::Products, skus.clone())
        .await
        .expect("snapshot");
    // The same products before the import: nothing to wait for yet.
    let early = watch
        .wait_until_imported(
            &admin,
            &WaitOptions::default()
                .deadline(Duration::from_millis(100))
                .backoff(Duration::from_millis(20), 1.0, Duration::from_millis(20)),
        )
        .await;
    match early {
        Err(WaitError::TimedOut { what, .. }) => {
            assert!(what.contains("2 of 2 not imported yet"), "{what}");
            assert!(what.contains(&skus[0]), "names the SKUs: {what}");
        }
        other => panic!("the products have not changed yet: {other:?}"),
    }
    // One second later than the snapshot's `updated_at` (to the second).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let file = format!("sku,quantity\n{},77\n{},78\n", skus[0], skus[1]);
    admin
        .import_products()
        .file(csv_part(&file))
        .type_(store_admin::types::ImportProductsRequestType::Quantities)
        .send()
        .await
        .expect("the upload is confirmed");
    let imported = watch
        .wait_until_imported(&admin, &fast())
        .await
        .expect("imported");
    assert_eq!(imported.len(), 2);
    assert_eq!(imported[0]["quantity"], 77, "{}", imported[0]);
    assert_eq!(imported[1]["quantity"], 78, "{}", imported[1]);
}
