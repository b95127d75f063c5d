//! `--wait` on a background job (an export): the command waits until the file is listed in the
//! export logs and prints that entry; a job that does not finish in time exits 6.

use std::time::Duration;

use store_admin_mock::{Limits, MockConfig, MockServer};

use crate::common::{json, run, store_admin};

async fn mock(job: Duration) -> MockServer {
    mock_with(job, 1000).await
}

async fn mock_with(job: Duration, products: usize) -> MockServer {
    MockServer::start(
        MockConfig::new()
            .token_all_scopes("T")
            .products(products)
            .limits(Limits {
                background_job: job,
                ..Limits::default()
            }),
    )
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
    // The hint names the command that lists the export logs, as the command table has it
    // (it named `exports logs`, which does not exist).
    let logs = store_admin_cli::cli::command_for("list_export_logs").expect("a command");
    assert_eq!(logs, store_admin_cli::commands::EXPORT_LOGS_COMMAND);
    assert!(err.contains(&format!("`store-admin {logs}`")), "{err}");
    let mut help = store_admin();
    help.args(logs.split(' ')).arg("--help");
    run(help, 0);
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

/// A products file of `rows` rows, SKUs `IMP-0` on.
fn products_file(dir: &std::path::Path, rows: usize) -> String {
    let file = dir.join("products.csv");
    let mut text = String::from("sku,name,price\n");
    for n in 0..rows {
        text.push_str(&format!("IMP-{n},Imported {n},{}\n", 10 + n % 90));
    }
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_on_a_large_import_reads_pages_of_the_list_and_follows_a_bounded_sample() {
    let server = mock_with(Duration::from_millis(300), 30).await;
    let dir = tempfile::tempdir().unwrap();
    let path = products_file(dir.path(), 3000);
    let with = command(
        &server,
        &[
            "products",
            "import",
            "--type",
            "products",
            "--file",
            &path,
            "--wait",
            "--wait-timeout",
            "120",
        ],
    );
    let (out, err) = tokio::task::spawn_blocking(move || run(with, 0))
        .await
        .unwrap();
    let records = json(&out);
    let records = records.as_array().expect("an array of products");
    assert_eq!(records.len(), 1000, "the rows followed");
    assert_eq!(records.first().unwrap()["sku"], "IMP-0");
    assert_eq!(
        records.last().unwrap()["sku"],
        "IMP-2999",
        "the last row is followed"
    );
    assert!(err.contains("checks 1000 of the file's 3000 rows"), "{err}");
    assert!(
        err.contains("checked 1000 of the file's 3000 rows"),
        "{err}"
    );
    // No call per row: the snapshot and each poll read the list's pages (3,030 products: 51
    // pages of 60), the snapshot's one page of 30 before the import.
    assert_eq!(server.requests_received("get_product_by_sku"), 0);
    let listed = server.requests_received("list_products");
    assert!(
        listed <= 1 + 51 * 3,
        "{listed} list calls: a page of the list per call, a few polls"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_on_an_import_that_does_not_finish_is_bounded_by_its_timeout_and_says_what_it_checked()
{
    // The job takes two minutes; --wait-timeout 2 ends the wait (exit 6), snapshot and polls
    // together, with a few reads of the list (the old waiter read each of the 3,000 rows before
    // the upload and again on every poll).
    let server = mock_with(Duration::from_secs(120), 30).await;
    let dir = tempfile::tempdir().unwrap();
    let path = products_file(dir.path(), 3000);
    let slow = command(
        &server,
        &[
            "products",
            "import",
            "--type",
            "products",
            "--file",
            &path,
            "--wait",
            "--wait-timeout",
            "2",
        ],
    );
    let (out, err) = tokio::task::spawn_blocking(move || run(slow, 6))
        .await
        .unwrap();
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("1000 of 1000 not imported yet"), "{err}");
    assert!(
        err.contains("checked 1000 of the file's 3000 rows"),
        "{err}"
    );
    assert_eq!(server.requests_received("get_product_by_sku"), 0);
    let listed = server.requests_received("list_products");
    // The snapshot and at most three polls (1, 2.5 s; the last at the deadline), a page each.
    assert!((2..=5).contains(&listed), "{listed} list calls");
}
