//! What a service does with the client across threads: every call's future, every pagination
//! stream and every hand-written operation is `Send + 'static`, so it can be handed to
//! `tokio::spawn` (which this test does, against the mock store: it would not compile otherwise),
//! and the clients, their builder, errors and options are `Send + Sync + 'static`, so they can live
//! in an `Arc`, a `static` or an axum state.

use futures::TryStreamExt;
use store_admin::credentials::InMemoryTokenStore;
use store_admin::prelude::*;
use store_admin::waiters::WaitOptions;
use store_admin::{
    Error, Merchants, OAuthApp, PageOptions, Paginate, RawResponse, StoreAdmin, StoreAdminBuilder,
};
use store_admin_mock::{MockConfig, MockServer};

const TOKEN: &str = "threads-token";

fn send_sync<T: Send + Sync + 'static>() {}

/// The mock store, and a client of it with every scope.
async fn mock_and_client() -> (MockServer, StoreAdmin) {
    let server = MockServer::start(MockConfig::new().token_all_scopes(TOKEN))
        .await
        .expect("mock");
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .expect("client");
    (server, admin)
}

#[test]
fn clients_errors_and_options_are_send_sync_and_static() {
    send_sync::<StoreAdmin>();
    send_sync::<StoreAdminBuilder>();
    send_sync::<Merchants>();
    send_sync::<OAuthApp>();
    send_sync::<Error>();
    send_sync::<RawResponse>();
    send_sync::<PageOptions>();
    send_sync::<WaitOptions>();
    send_sync::<InMemoryTokenStore>();
    send_sync::<store_admin::types::Order>();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_streams_and_uploads_run_on_spawned_tasks() {
    let (server, admin) = mock_and_client().await;

    // A generated operation.
    let call = tokio::spawn({
        let admin = admin.clone();
        async move { admin.list_order_statuses().call().await }
    });
    // A pagination stream, driven on another task.
    let items = tokio::spawn({
        let admin = admin.clone();
        async move {
            admin
                .list_products()
                .items(PageOptions::default().per_page(5).concurrency(2))
                .try_collect::<Vec<_>>()
                .await
        }
    });
    // A hand-written operation and a raw request.
    let me = tokio::spawn({
        let admin = admin.clone();
        async move { admin.get_user_info().send().await }
    });
    let raw = tokio::spawn({
        let admin = admin.clone();
        let url = format!("{}/products?per_page=1", server.base_url());
        async move {
            let request = reqwest::Request::new(reqwest::Method::GET, url.parse().expect("url"));
            admin.send_raw(request, "list_products").await
        }
    });

    let statuses = call.await.expect("joined").expect("order statuses");
    assert!(!statuses.data.is_empty(), "the mock has order statuses");
    let products = items.await.expect("joined").expect("every product");
    assert!(
        products.len() > 5,
        "more than one page of products was read: {}",
        products.len()
    );
    let raw = raw.await.expect("joined").expect("raw answer");
    assert_eq!(raw.status, 200);
    // The mock's accounts host is the API's origin only with OAuth credentials: without them the
    // call still runs on its task, and whatever it answers is a typed result.
    let _: Result<_, Error> = me.await.expect("joined");
}

/// A team's tower stack around the client: its layers see every request, and the client still
/// authenticates (the mock answers 200 only with the token), names the operation and hands every
/// status back as a response; another origin is refused before anything is sent.
#[tokio::test]
async fn tower_layers_wrap_the_client() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use store_admin::service::OperationName;
    use tower::{ServiceBuilder, ServiceExt};

    let (_server, admin) = mock_and_client().await;
    let seen = Arc::new(AtomicUsize::new(0));
    let service = ServiceBuilder::new()
        .map_request({
            let seen = seen.clone();
            move |mut request: http::Request<bytes::Bytes>| {
                seen.fetch_add(1, Ordering::SeqCst);
                request
                    .extensions_mut()
                    .insert(OperationName("list_order_statuses"));
                request
            }
        })
        .concurrency_limit(2)
        .service(admin);
    let get = |uri: &str| {
        http::Request::get(uri)
            .body(bytes::Bytes::new())
            .expect("request")
    };

    let statuses = service
        .clone()
        .oneshot(get("/orders/statuses"))
        .await
        .expect("an answer");
    assert_eq!(statuses.status(), 200);
    let body: serde_json::Value = serde_json::from_slice(statuses.body()).expect("JSON");
    assert!(
        body["data"].as_array().is_some_and(|d| !d.is_empty()),
        "{body}"
    );

    let missing = service
        .clone()
        .oneshot(get("/orders/987654321"))
        .await
        .expect("an answer");
    assert_eq!(missing.status(), 404, "an error status is a response");

    let elsewhere = service
        .clone()
        .oneshot(get("http://127.0.0.2:9/admin/v2/orders"))
        .await
        .expect_err("another origin is refused");
    assert!(
        matches!(elsewhere, Error::InvalidRequest(_)),
        "{elsewhere:?}"
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        3,
        "the layer saw every request"
    );
}
