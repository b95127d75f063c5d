//! `--all`: every page through the ergonomics crate's concurrent pagination, streamed.

use store_admin::types;

use crate::common::{json, run, sandbox};

/// The pagination's `total` of product quantities, read through `api` from a sandbox of the same
/// seed.
fn quantities_total() -> usize {
    let (out, _) = run(
        sandbox(&["api", "GET", "/products/quantities", "-f", "per_page=1"]),
        0,
    );
    let total = json(&out)["pagination"]["total"]
        .as_u64()
        .expect("pagination.total");
    assert!(
        total > 60,
        "the sandbox has several pages of quantities ({total})"
    );
    total as usize
}

/// Runs `--all` as ndjson and checks that it printed `total` valid product quantities, each once.
fn assert_every_quantity_once(extra: &[&str]) {
    let total = quantities_total();
    let mut args = extra.to_vec();
    args.extend(["products", "quantities", "--all", "--output", "ndjson"]);
    let (out, err) = run(sandbox(&args), 0);
    assert!(
        err.is_empty(),
        "nothing on stderr when it is not a terminal: {err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        total,
        "one line per item of the pagination's total"
    );
    let mut keys = std::collections::BTreeSet::new();
    for line in lines {
        let row: types::ProductQuantity = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not a product quantity ({e}): {line}"));
        keys.insert((row.id, row.sku.clone(), row.variant.clone()));
    }
    assert_eq!(keys.len(), total, "no row repeated");
}

#[test]
fn all_quantities_as_ndjson_print_exactly_total_lines() {
    assert_every_quantity_once(&[]);
}

#[test]
fn all_quantities_under_injected_faults_still_print_exactly_total_lines() {
    // 10% server errors and 5% dropped connections on every request: the retries absorb them.
    // More retries than the default make a page failing every attempt vanishingly unlikely.
    assert_every_quantity_once(&[
        "--sandbox-faults",
        r#"{"errors":{"rate":0.1},"drop_connection":{"rate":0.05}}"#,
        "--retries",
        "10",
    ]);
}

#[test]
fn all_pages_come_in_order_whatever_the_concurrency() {
    let (one, _) = run(
        sandbox(&[
            "--concurrency",
            "1",
            "orders",
            "list",
            "--all",
            "-o",
            "ndjson",
        ]),
        0,
    );
    let (eight, _) = run(
        sandbox(&[
            "--concurrency",
            "8",
            "orders",
            "list",
            "--all",
            "-o",
            "ndjson",
        ]),
        0,
    );
    assert_eq!(one, eight);
    let (page1, _) = run(
        sandbox(&["orders", "list", "--per-page", "60", "-o", "ndjson"]),
        0,
    );
    assert!(one.starts_with(&page1), "the first page comes first");
}

#[test]
fn all_as_csv_has_one_header_and_a_row_per_item() {
    let total = quantities_total();
    let (out, _) = run(
        sandbox(&["products", "quantities", "--all", "-o", "csv"]),
        0,
    );
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(headers.get(0), Some("id"));
    assert_eq!(reader.records().count(), total);
}

#[test]
fn all_as_json_is_one_array() {
    let total = quantities_total();
    let (out, _) = run(
        sandbox(&["products", "quantities", "--all", "-o", "json"]),
        0,
    );
    let rows: Vec<types::ProductQuantity> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.len(), total);
}

#[test]
fn all_when_every_page_fails_prints_nothing_and_exits_4() {
    let faults = r#"{"errors":{"rate":1.0,"statuses":[500]}}"#;
    let (out, err) = run(
        sandbox(&[
            "--sandbox-faults",
            faults,
            "--retries",
            "0",
            "orders",
            "list",
            "--all",
            "-o",
            "ndjson",
        ]),
        4,
    );
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("HTTP 500"), "{err}");
}

#[test]
fn page_and_all_are_exclusive() {
    let (_, err) = run(sandbox(&["orders", "list", "--all", "--page", "2"]), 2);
    assert!(err.contains("--all") && err.contains("--page"), "{err}");
}

/// Whether the command at `path` (words of the CLI tree) has a required argument.
fn needs_an_argument(path: &str) -> bool {
    let mut command = store_admin_cli::cli::command();
    for word in path.split(' ') {
        command = command
            .find_subcommand(word)
            .unwrap_or_else(|| panic!("`{path}` is a command"))
            .clone();
    }
    command.get_arguments().any(|a| a.is_required_set())
}

/// For every paged list of the document whose command needs no argument: `--all -o ndjson`
/// prints exactly the `total` that the first page reports. The sandbox serves the whole
/// document, so every such list is covered; lists with a required argument (a path parameter,
/// a required query parameter) are counted apart.
#[test]
fn every_paged_list_prints_exactly_its_total_with_all() {
    use store_admin_cli::cli::command_for;
    use store_admin_cli::generated_cli::PAGED_OPERATIONS;
    let mut covered = Vec::new();
    let mut skipped = Vec::new();
    for operation_id in PAGED_OPERATIONS {
        let meta = store_admin::OperationMeta::find(operation_id).expect("in OPERATIONS");
        let path = command_for(operation_id).expect("a command");
        if meta.path.contains('{') || needs_an_argument(path) {
            skipped.push(format!("{operation_id} (`{path}` takes an argument)"));
            continue;
        }
        let output = sandbox(&["api", "GET", meta.path, "-f", "per_page=7"])
            .output()
            .expect("runs");
        if output.status.code() != Some(0) {
            let err = String::from_utf8_lossy(&output.stderr).into_owned();
            panic!("{operation_id}: the first page failed: {err}");
        }
        let first = json(&String::from_utf8_lossy(&output.stdout));
        let total = first["pagination"]["total"]
            .as_u64()
            .unwrap_or_else(|| panic!("{operation_id}: no pagination.total in {first}"));
        let mut args: Vec<&str> = path.split(' ').collect();
        args.extend(["--all", "--per-page", "7", "-o", "ndjson"]);
        let (out, err) = run(sandbox(&args), 0);
        assert!(err.is_empty(), "{operation_id}: {err}");
        assert_eq!(
            out.lines().count() as u64,
            total,
            "`{path} --all` prints the total of the first page"
        );
        covered.push(operation_id.to_string());
    }
    eprintln!("covered: {covered:?}\nskipped: {skipped:?}");
    assert_eq!(
        covered.len() + skipped.len(),
        PAGED_OPERATIONS.len(),
        "every paged list is covered or takes an argument"
    );
    assert!(
        covered.len() > skipped.len(),
        "most paged lists need no argument: covered {covered:?}, skipped {skipped:?}"
    );
}

#[test]
fn all_writes_every_good_record_lists_the_skipped_ones_on_stderr_and_exits_5() {
    let total = quantities_total();
    let faults = r#"{"corrupt_records":{"every":10,"operations":["list_product_quantities"]}}"#;
    let bad = total / 10;
    let (out, err) = run(
        sandbox(&[
            "--sandbox-faults",
            faults,
            "products",
            "quantities",
            "--all",
            "--output",
            "ndjson",
        ]),
        5,
    );
    let rows: Vec<types::ProductQuantity> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(rows.len(), total - bad, "every good record is written");
    assert!(
        err.starts_with(&format!(
            "skipped {bad} record(s) that do not match the API document ({} written):\n",
            total - bad
        )),
        "{err}"
    );
    assert_eq!(
        err.lines().count(),
        1 + bad,
        "one line per skipped record: {err}"
    );
    assert!(
        err.contains(
            "\n  list_product_quantities: record 9 of page 1 does not match the API document at `data[9].id`: "
        ),
        "{err}"
    );
    assert!(err.contains(r#"(record: {"#), "{err}");
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");

    // JSON is written whole at the end: every good record too.
    let (out, _) = run(
        sandbox(&[
            "--sandbox-faults",
            faults,
            "products",
            "quantities",
            "--all",
            "--output",
            "json",
        ]),
        5,
    );
    assert_eq!(json(&out).as_array().map(Vec::len), Some(total - bad));
}

#[test]
fn all_stops_at_the_short_page_whatever_total_pages_claims() {
    let total = quantities_total();
    let (out, _) = run(
        sandbox(&[
            "--sandbox-faults",
            r#"{"total_pages":{"claim":1000000000000000}}"#,
            "products",
            "quantities",
            "--all",
            "--output",
            "ndjson",
        ]),
        0,
    );
    assert_eq!(
        out.lines().count(),
        total,
        "every record once, then the end"
    );
}
