//! Input checks before sending (issue 41, item 3): a number flag refuses what is not a number,
//! the document's bounds and closed sets are checked, and every missing required field, nested
//! ones included, is named at once with its path. Each refusal is exit 2, names the flag, and
//! reaches no store: the commands run as real processes against a mock store whose request
//! counts stay at zero.

use store_admin_mock::{MockConfig, MockServer};

use crate::common::{json, ok, run, store_admin};

const TOKEN: &str = "input-checks-token";

async fn mock() -> MockServer {
    MockServer::start(MockConfig::new().products(3).token_all_scopes(TOKEN))
        .await
        .expect("the mock starts")
}

/// Runs `store-admin --base-url MOCK ARGS` (a process of its own) and expects exit 2: returns
/// standard error.
async fn refused(server: &MockServer, args: &[&str]) -> String {
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_TOKEN", TOKEN)
        .args(["--base-url", server.base_url()])
        .args(args);
    let (_, stderr) = tokio::task::spawn_blocking(move || run(command, 2))
        .await
        .expect("joined");
    stderr
}

/// Every request the mock received, all operations together.
fn requests(server: &MockServer) -> u64 {
    server.request_counts().values().map(|c| c.total).sum()
}

#[tokio::test]
async fn a_number_flag_refuses_what_is_not_a_number_and_nothing_is_sent() {
    let server = mock().await;
    let err = refused(
        &server,
        &["products", "create", "--name", "Lamp", "--price", "abc"],
    )
    .await;
    assert!(
        err.contains("invalid value 'abc' for '--price <NUMBER>': not a number"),
        "{err}"
    );
    // A whole number refuses a fraction and a word.
    for bad in ["2.5", "many"] {
        let err = refused(
            &server,
            &["products", "create", "--name", "Lamp", "--quantity", bad],
        )
        .await;
        assert!(
            err.contains(&format!("invalid value '{bad}' for '--quantity <N>'")),
            "{err}"
        );
        assert!(err.contains("whole number"), "{err}");
    }
    // A number refuses what Rust would read as one but JSON cannot send.
    let err = refused(
        &server,
        &["products", "create", "--name", "Lamp", "--weight", "NaN"],
    )
    .await;
    assert!(err.contains("'--weight <NUMBER>': not a number"), "{err}");
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
}

#[test]
fn a_decimal_written_as_text_is_a_number() {
    // The service's own form of a price: "149.50" is sent as written, and stored as a price.
    let created = json(&ok(&[
        "-o", "json", "products", "create", "--name", "Lamp", "--price", "149.50",
    ]));
    let amount = &created["price"]["amount"];
    let value = amount
        .as_f64()
        .or_else(|| amount.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("a price in {created}"));
    assert!((value - 149.5).abs() < 1e-9, "{created}");
}

#[tokio::test]
async fn bounds_and_closed_sets_of_the_document_are_checked_before_sending() {
    let server = mock().await;
    // `parent_id`: `minimum: 0`.
    let err = refused(
        &server,
        &[
            "categories",
            "create",
            "--name",
            "Shoes",
            "--parent-id",
            "-1",
        ],
    )
    .await;
    assert!(
        err.contains("invalid value '-1' for '--parent-id <N>': must be 0 or more"),
        "{err}"
    );
    // An order line's `quantity`: `minimum: 1`.
    let err = refused(
        &server,
        &[
            "order-items",
            "create",
            "--order-id",
            "1",
            "--identifier-type",
            "id",
            "--identifier",
            "1",
            "--quantity",
            "0",
        ],
    )
    .await;
    assert!(
        err.contains("invalid value '0' for '--quantity <N>': must be 1 or more"),
        "{err}"
    );
    // A text's length: the product's name has `minLength: 1`.
    let err = refused(&server, &["products", "create", "--name", ""]).await;
    assert!(
        err.contains("invalid value '' for '--name <name>': must not be empty"),
        "{err}"
    );
    // A closed set.
    let err = refused(
        &server,
        &["products", "create", "--name", "Lamp", "--status", "sold"],
    )
    .await;
    assert!(err.contains("'--status <status>'"), "{err}");
    assert!(err.contains("possible values: sale, out, hidden"), "{err}");
    // A bound inside a value built by a hand-written flag: a locale's `iso_code` is 1 to 3
    // characters, named with its path and its flag.
    let err = refused(&server, &["languages", "add", "--locale", "abcd"]).await;
    assert!(
        err.contains("`locales[0].iso_code` is longer than 3 characters (in --locale)"),
        "{err}"
    );
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
}

#[tokio::test]
async fn a_product_s_stock_is_never_negative() {
    // The product quantity fields of the requests carry `minimum: 0`: a negative stock is
    // refused before sending, as a flag and inside a JSON body alike; 0 is a stock.
    let server = mock().await;
    for args in [
        &["products", "create", "--name", "Lamp", "--quantity", "-5"][..],
        &["products", "update", "1", "--quantity", "-5"],
        &[
            "product-variants",
            "update-quantity",
            "1",
            "--quantity",
            "-1",
        ],
    ] {
        let err = refused(&server, args).await;
        assert!(
            err.contains("for '--quantity <N>': must be 0 or more"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
    // Inside a JSON value: a variant's stock per branch (every field the update requires
    // given, so that it does not read the variant first).
    let mut args = vec!["product-variants", "update", "1"];
    for flag in [
        "--sku",
        "--barcode",
        "--price",
        "--sale-price",
        "--cost-price",
        "--stock-quantity",
        "--weight",
        "--mpn",
        "--gtin",
    ] {
        args.extend([flag, "1"]);
    }
    args.extend(["--quantities-json", r#"[{"branch": 1, "quantity": -2}]"#]);
    let err = refused(&server, &args).await;
    assert!(err.contains("quantities[0].quantity"), "{err}");
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_TOKEN", TOKEN)
        .args(["--base-url", server.base_url(), "-o", "json"])
        .args(["products", "create", "--name", "Lamp", "--price", "10"])
        .args(["--product-type", "product", "--quantity", "0"]);
    let (stdout, _) = tokio::task::spawn_blocking(move || run(command, 0))
        .await
        .expect("joined");
    assert_eq!(json(&stdout)["quantity"], 0, "{stdout}");
}

#[tokio::test]
async fn every_missing_nested_field_is_named_at_once_with_its_path() {
    let server = mock().await;
    // `details` requires five fields: one run names them all (it took six before).
    let err = refused(
        &server,
        &["product-option-templates", "create", "--details-json", "{}"],
    )
    .await;
    assert!(err.contains("lacks 5 required fields"), "{err}");
    for field in ["id", "name", "is_default", "display_value", "translation"] {
        assert!(
            err.contains(&format!("`details.{field}` (in --details-json)")),
            "{field} in {err}"
        );
    }
    // Deeper, and beside a missing top-level field given by a flag of its own: both at once.
    let mut args = vec!["product-option-templates", "create", "--details-json"];
    let details = r#"{"id": 1, "name": "Red", "is_default": true, "display_value": "red",
                      "translation": {"en": {"name": "Red"}}}"#;
    args.push(details);
    let err = refused(&server, &args).await;
    assert!(err.contains("`details.translation.ar`"), "{err}");
    assert!(err.contains("`details.translation.fr`"), "{err}");
    assert!(!err.contains("`details.translation.en`"), "{err}");
    // A --body file is checked the same way.
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("template.json");
    std::fs::write(&body, r#"{"name": "Colour", "details": {"id": 1}}"#).unwrap();
    let err = refused(
        &server,
        &[
            "product-option-templates",
            "create",
            "--body",
            body.to_str().unwrap(),
        ],
    )
    .await;
    assert!(err.contains("lacks 4 required fields"), "{err}");
    assert!(err.contains("`details.is_default`"), "{err}");
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
}

/// A value that does not match the document's `pattern` is refused before any request, naming
/// the flag and the form (`list_orders`' `sort_by`: `<attribute>-<asc|desc>`); a value of that
/// form goes.
#[tokio::test]
async fn a_value_out_of_its_pattern_is_refused_naming_the_flag() {
    let server = mock().await;
    let err = refused(&server, &["orders", "list", "--sort-by", "name-up"]).await;
    assert!(
        err.contains("invalid value 'name-up' for '--sort-by")
            && err.contains("^(id|total|updated_at|created_at)-(asc|desc)$"),
        "{err}"
    );
    assert_eq!(requests(&server), 0, "{:?}", server.request_counts());
    let mut command = store_admin();
    command
        .env("STORE_ADMIN_TOKEN", TOKEN)
        .args(["--base-url", server.base_url()])
        .args(["orders", "list", "--sort-by", "id-desc", "-o", "json"]);
    let (out, _) = tokio::task::spawn_blocking(move || run(command, 0))
        .await
        .expect("joined");
    assert!(json(&out).is_array(), "{out}");
}
