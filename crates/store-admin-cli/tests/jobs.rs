//! `--wait` on a background job (an export): the command waits until the file is listed in the
//! export logs and prints that entry; a job that does not finish in time exits 6.

mod common;

use std::time::Duration;

use common::{json, run, store_admin};
use store_admin_mock::{Limits, MockConfig, MockServer};

async fn mock(job: Duration) -> MockServer {
    MockServer::start(MockConfig::new().token_all_scopes("T").limits(Limits {
        background_job: job,
        ..Limits::default()
    }))
    .await
    .expect("the mock starts")
}

fn command(server: &MockServer, args: &[&str]) -> assert_cmd::Command {
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_TOKEN", "T")
        .args(["--base-url", server.base_url(), "-o", "json"])
        .args(args);
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_prints_the_exports_file_once_it_is_listed() {
    let server = mock(Duration::from_millis(500)).await;
    let args = [
        "exports", "products", "--type", "prices", "--format", "csv", "--wait",
    ];
    let without = command(&server, &args[..6]);
    let (out, _) = tokio::task::spawn_blocking(move || run(without, 0))
        .await
        .unwrap();
    assert!(
        json(&out)["message"].is_string(),
        "without --wait, the confirmation: {out}"
    );
    let with = command(&server, &args);
    let (out, _) = tokio::task::spawn_blocking(move || run(with, 0))
        .await
        .unwrap();
    let entry = json(&out);
    assert_eq!(entry["type"], "product_prices", "{out}");
    assert!(entry["url"].as_str().unwrap().ends_with(".csv"), "{out}");

    let orders = command(
        &server,
        &[
            "exports",
            "orders",
            "--filter-orders",
            "today",
            "--template-id",
            "-1",
            "--format",
            "xlsx",
            "--wait",
        ],
    );
    let (out, _) = tokio::task::spawn_blocking(move || run(orders, 0))
        .await
        .unwrap();
    let entry = json(&out);
    assert_eq!(
        entry["type"], "orders",
        "its own export, not the earlier one: {out}"
    );
    assert!(entry["url"].as_str().unwrap().ends_with(".xlsx"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_job_that_does_not_finish_in_time_exits_6() {
    let server = mock(Duration::from_secs(120)).await;
    let slow = command(
        &server,
        &[
            "exports",
            "customers",
            "--type",
            "customers",
            "--wait",
            "--wait-timeout",
            "1",
        ],
    );
    let (out, err) = tokio::task::spawn_blocking(move || run(slow, 6))
        .await
        .unwrap();
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("the customers export did not finish"), "{err}");
    assert!(err.contains("exports logs"), "{err}");
}
