//! `--wait` on a background job (an export): the command waits until the file is listed in the
//! export logs and prints that entry; a job that does not finish in time exits 6.

use std::time::Duration;

use store_admin_mock::{Limits, MockConfig, MockServer};

use crate::common::{json, run, store_admin};

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

#[tokio::test(flavor = "multi_thread")]
async fn wait_on_an_import_prints_the_records_of_the_files_rows() {
    let server = mock(Duration::from_millis(400)).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("customers.csv");
    std::fs::write(
        &file,
        "first_name,last_name,email,mobile\nAda,Lovelace,ada@example.com,555000111\n\
         Grace,Hopper,grace@example.com,555000222\n",
    )
    .unwrap();
    let path = file.to_str().unwrap().to_owned();
    let with = command(&server, &["customers", "import", "--file", &path, "--wait"]);
    let (out, _) = tokio::task::spawn_blocking(move || run(with, 0))
        .await
        .unwrap();
    let records = json(&out);
    let emails: Vec<&str> = records
        .as_array()
        .unwrap_or_else(|| panic!("the imported customers: {out}"))
        .iter()
        .map(|c| c["email"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["ada@example.com", "grace@example.com"]);

    // An Excel file cannot be read for its keys: said before anything is uploaded.
    let excel = dir.path().join("customers.xlsx");
    std::fs::write(&excel, b"PK\x03\x04\x14\x00\x06\x00binary").unwrap();
    let excel = excel.to_str().unwrap().to_owned();
    let refused = command(
        &server,
        &["customers", "import", "--file", &excel, "--wait"],
    );
    let (_, err) = tokio::task::spawn_blocking(move || run(refused, 2))
        .await
        .unwrap();
    assert!(err.contains("email column"), "{err}");
    assert_eq!(
        server.requests_received("import_customers"),
        1,
        "the refused one was not uploaded"
    );
}
