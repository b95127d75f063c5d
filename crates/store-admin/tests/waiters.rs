//! Waiters against the mock store, whose exports run in the background: the file is listed in
//! the export logs only once the job has run, and the waiter returns that entry, or a typed
//! timeout when the job does not finish in time.

use std::time::Duration;

use store_admin::prelude::*;
use store_admin::types::{
    ExportProductsRequest, ExportProductsRequestFormat, ExportProductsRequestType,
};
use store_admin::waiters::{ExportLogs, WaitError, WaitOptions};
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
        async move {
            admin
                .list_export_logs()
                .send()
                .await
                .map_err(Error::from)
                .unwrap()
                .into_inner()
                .data
                .len()
        }
    };
    let count = listed(&admin).await;
    let started = std::time::Instant::now();
    let job = admin
        .export_products()
        .body(ExportProductsRequest {
            type_: ExportProductsRequestType::Prices,
            format: ExportProductsRequestFormat::Csv,
        })
        .send()
        .await
        .map_err(Error::from)
        .unwrap();
    assert!(
        job.into_inner().data.message.is_some(),
        "the job is confirmed"
    );
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
