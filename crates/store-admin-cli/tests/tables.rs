//! Tables and CSV for people: the columns a person looks for, cells without JSON, a table that
//! fits the terminal's width (`COLUMNS`), `-o wide`, and CSV columns that agree between a get and
//! a list. Each test runs the real binary against a fresh sandbox store.

use crate::common::{json, ok, run, sandbox};

/// `store-admin --sandbox ARGS...` with `COLUMNS=width`: its standard output.
fn at_width(width: usize, args: &[&str]) -> String {
    let mut command = sandbox(args);
    command.env("COLUMNS", width.to_string());
    let (stdout, stderr) = run(command, 0);
    assert!(stderr.is_empty(), "unexpected stderr: {stderr}");
    stdout
}

fn header(table: &str) -> Vec<String> {
    table
        .lines()
        .next()
        .unwrap_or_default()
        .split("  ")
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
        .collect()
}

fn csv_header(text: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .headers()
        .expect("a header line")
        .iter()
        .map(str::to_owned)
        .collect()
}

fn assert_fits(table: &str, width: usize) {
    assert!(table.lines().count() > 1, "rows: {table}");
    for line in table.lines() {
        // Terminal cells, as the terminal shows them (a wide character two, لا one).
        let cells = unicode_width::UnicodeWidthStr::width(line);
        assert!(
            cells <= width,
            "{cells} cells wide, over {width}: {line:?}\n{table}"
        );
    }
}

#[test]
fn products_list_shows_price_with_its_currency_stock_and_sku_and_never_json() {
    let table = ok(&["products", "list", "-o", "table"]);
    let columns = header(&table);
    for expected in ["ID", "NAME", "PRICE", "QUANTITY", "SKU", "STATUS"] {
        assert!(columns.iter().any(|c| c == expected), "{expected}: {table}");
    }
    assert!(!columns.iter().any(|c| c == "THUMBNAIL"), "{table}");
    assert!(table.contains(" SAR"), "a price with its currency: {table}");
    assert!(!table.contains('{'), "no JSON in a cell: {table}");
}

#[test]
fn orders_list_shows_reference_total_status_and_a_date_without_fractions() {
    let table = ok(&["orders", "list", "-o", "table"]);
    let columns = header(&table);
    for expected in ["ID", "REFERENCE ID", "CUSTOMER", "TOTAL", "STATUS", "DATE"] {
        assert!(columns.iter().any(|c| c == expected), "{expected}: {table}");
    }
    assert!(!columns.iter().any(|c| c == "DRAFT"), "{table}");
    assert!(!table.contains(".000000"), "{table}");
    assert!(!table.contains('{'), "{table}");
}

#[test]
fn webhooks_and_variants_show_what_people_look_for() {
    let webhooks = header(&ok(&["webhooks", "list", "-o", "table"]));
    for expected in ["EVENT", "URL"] {
        assert!(
            webhooks.iter().any(|c| c == expected),
            "{expected}: {webhooks:?}"
        );
    }
    // A product with variants: a quantity row with a variant's `sku_id`.
    let quantities = json(&ok(&["product-quantity", "list", "-o", "json"]));
    let id = quantities
        .as_array()
        .expect("an array of quantities")
        .iter()
        .find(|q| q["sku_id"].is_number())
        .map(|q| q["id"].to_string())
        .expect("a seeded product with variants");
    let variants = ok(&["product-variants", "list", &id, "-o", "table"]);
    let columns = header(&variants);
    for expected in ["PRICE", "SKU", "STOCK QUANTITY"] {
        assert!(
            columns.iter().any(|c| c == expected),
            "{expected}: {variants}"
        );
    }
    assert!(variants.contains(" SAR"), "{variants}");
}

#[test]
fn shipments_and_abandoned_carts_fit_in_80_columns() {
    for args in [
        &["shipments", "list", "-o", "table"][..],
        &["abandoned-carts", "list", "-o", "table"][..],
        &["orders", "list", "-o", "table"][..],
        &["products", "list", "-o", "table"][..],
    ] {
        assert_fits(&at_width(80, args), 80);
    }
}

#[test]
fn export_logs_keep_their_whole_download_link_however_narrow() {
    let logs = json(&ok(&["exports", "list-logs", "-o", "json"]));
    let urls: Vec<&str> = logs
        .as_array()
        .expect("an array of logs")
        .iter()
        .filter_map(|log| log["url"].as_str())
        .collect();
    assert!(!urls.is_empty(), "the sandbox has export logs: {logs}");
    for width in [80, 24] {
        let table = at_width(width, &["exports", "list-logs", "-o", "table"]);
        assert!(header(&table).iter().any(|h| h == "URL"), "{table}");
        for url in &urls {
            assert!(
                table.contains(url),
                "{url} whole at {width} columns in\n{table}"
            );
        }
    }
    // At 80 columns the table fits; narrower than the link, only the link is left.
    assert_fits(&at_width(80, &["exports", "list-logs", "-o", "table"]), 80);
    let narrow = at_width(24, &["exports", "list-logs", "-o", "table"]);
    assert_eq!(header(&narrow), ["URL"], "{narrow}");
}

#[test]
fn wide_shows_more_columns_than_a_narrow_table() {
    let narrow = at_width(80, &["products", "list", "-o", "table"]);
    let wide = at_width(80, &["products", "list", "-o", "wide"]);
    assert!(
        header(&wide).len() > header(&narrow).len(),
        "wide: {:?}, table: {:?}",
        header(&wide),
        header(&narrow)
    );
    assert!(!wide.contains('…'), "nothing cut: {wide}");
}

#[test]
fn a_get_and_a_list_of_one_schema_have_the_same_csv_columns() {
    let list = ok(&["customers", "list", "-o", "csv"]);
    let customers = json(&ok(&["customers", "list", "-o", "json"]));
    // A customer with a first name (an optional field: the seed leaves it out of some).
    let id = customers
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["first_name"].is_string())
        .expect("a seeded customer with a first name")["id"]
        .to_string();
    let get = ok(&["customers", "get", &id, "-o", "csv"]);
    assert_eq!(csv_header(&get), csv_header(&list));
    // A product's details add fields to the list's product: every column of the list is one of
    // the details', the price in both as amount and currency.
    let list = csv_header(&ok(&["products", "list", "-o", "csv"]));
    let products = json(&ok(&["products", "list", "-o", "json"]));
    let id = products[0]["id"].to_string();
    let get = csv_header(&ok(&["products", "get", &id, "-o", "csv"]));
    for column in &list {
        assert!(get.contains(column), "{column} of {list:?} not in {get:?}");
    }
    assert!(get.iter().any(|c| c == "price.amount"), "{get:?}");
    assert!(get.iter().any(|c| c == "price.currency"), "{get:?}");
    assert!(!get.iter().any(|c| c == "price"), "{get:?}");
}

#[test]
fn an_orders_date_is_one_csv_column() {
    let csv = ok(&["orders", "list", "-o", "csv"]);
    let columns = csv_header(&csv);
    assert!(columns.iter().any(|c| c == "date"), "{columns:?}");
    assert!(
        !columns.iter().any(|c| c.starts_with("date.")),
        "{columns:?}"
    );
    assert!(!csv.contains(".000000"), "{csv}");
}

#[test]
fn a_records_view_puts_id_name_and_status_first() {
    let customers = json(&ok(&["customers", "list", "-o", "json"]));
    // A customer with a first name (an optional field: the seed leaves it out of some).
    let id = customers
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["first_name"].is_string())
        .expect("a seeded customer with a first name")["id"]
        .to_string();
    let view = ok(&["customers", "get", &id, "-o", "table"]);
    let fields: Vec<&str> = view
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(fields.first(), Some(&"id"), "{view}");
    assert_eq!(fields.get(1), Some(&"first_name"), "{view}");
    // Then the document's order (first_name, last_name, mobile, ...), not the alphabet.
    let mobile = fields.iter().position(|f| *f == "mobile");
    let email = fields.iter().position(|f| *f == "email");
    assert!(mobile < email, "{view}");
}

#[test]
fn a_records_view_shows_a_status_object_by_its_name_as_a_list_does() {
    let orders = json(&ok(&["orders", "list", "-o", "json"]));
    let id = orders[0]["id"].to_string();
    let order = json(&ok(&["orders", "get", &id, "-o", "json"]));
    // `{id, name, slug, customized: {id, name}}`: it only names the status.
    let slug = order["status"]["slug"].as_str().expect("a status slug");
    let view = ok(&["orders", "get", &id, "-o", "table"]);
    let status: Vec<Vec<&str>> = view
        .lines()
        .filter(|l| l.starts_with("status"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(status, [["status", slug]], "one line, its name: {view}");
    // The list's STATUS cell says the same.
    let table = ok(&["orders", "list", "-o", "table"]);
    let row = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id.as_str()))
        .expect("the order's row");
    assert!(row.split("  ").any(|cell| cell.trim() == slug), "{row}");
    assert!(
        !view.contains('{') && !view.contains("[]"),
        "no JSON: {view}"
    );
}
