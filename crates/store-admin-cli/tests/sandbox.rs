//! Every command group against the embedded sandbox (`--sandbox`): its seeded store makes the
//! output deterministic, so table, JSON and CSV output are pinned by snapshots. Each invocation
//! starts a fresh sandbox, so a write is always made on the seeded data.

use serde_json::Value;
use store_admin::types;

use crate::common::{json, ok, run, sandbox, store_admin};

/// The id of the first record a list command prints.
fn first_id(args: &[&str]) -> String {
    let mut full = args.to_vec();
    full.extend(["--output", "json"]);
    let list = json(&ok(&full));
    list[0]["id"].to_string()
}

/// Replaces timestamps the sandbox sets to the current time on writes.
fn without_now(mut value: Value) -> Value {
    if let Some(date) = value.pointer_mut("/created_at/date") {
        *date = Value::String("[now]".into());
    }
    value
}

// ---------------------------------------------------------------------------------------------
// products

#[test]
fn products_quantities_as_a_table() {
    insta::assert_snapshot!(ok(&[
        "products",
        "quantities",
        "--per-page",
        "5",
        "-o",
        "table"
    ]));
}

#[test]
fn products_quantities_as_csv() {
    insta::assert_snapshot!(ok(&[
        "products",
        "quantities",
        "--per-page",
        "5",
        "-o",
        "csv"
    ]));
}

#[test]
fn products_quantities_as_json_decode_as_the_documents_type() {
    let out = ok(&[
        "products",
        "quantities",
        "--per-page",
        "3",
        "--page",
        "2",
        "-o",
        "json",
    ]);
    let rows: Vec<types::ProductQuantity> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.len(), 3);
    insta::assert_snapshot!(out);
}

#[test]
fn products_quantities_filters_reach_the_service() {
    let out = ok(&[
        "products",
        "quantities",
        "--keyword",
        "SKU-00002",
        "-o",
        "json",
    ]);
    let rows: Vec<types::ProductQuantity> = serde_json::from_str(&out).unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(
            |r| r.sku.as_deref().unwrap_or_default().contains("SKU-00002")
                || r.name.contains("SKU-00002")
        ),
        "{out}"
    );
}

#[test]
fn products_variant_get_and_option_create() {
    let rows = json(&ok(&[
        "products",
        "quantities",
        "--per-page",
        "10",
        "-o",
        "json",
    ]));
    let variant = rows
        .as_array()
        .unwrap()
        .iter()
        .find_map(|r| r["sku_id"].as_i64())
        .expect("a row with a variant");
    let out = ok(&[
        "products",
        "variant",
        "get",
        &variant.to_string(),
        "-o",
        "json",
    ]);
    let got: types::ProductVariant = serde_json::from_str(&out).unwrap();
    assert_eq!(got.id, variant);

    let product = rows[0]["id"].to_string();
    let out = ok(&[
        "products", "option", "create", &product, "--name", "size", "--value", "S", "--value",
        "XL=10", "-o", "json",
    ]);
    let option: types::ProductOption = serde_json::from_str(&out).unwrap();
    assert_eq!(option.name, "size");
    let names: Vec<&str> = option.values.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["S", "XL"]);
}

// ---------------------------------------------------------------------------------------------
// orders

#[test]
fn orders_list_as_a_table() {
    insta::assert_snapshot!(ok(&["orders", "list", "--per-page", "5", "-o", "table"]));
}

#[test]
fn orders_list_as_csv() {
    insta::assert_snapshot!(ok(&["orders", "list", "--per-page", "3", "-o", "csv"]));
}

#[test]
fn orders_list_as_json() {
    insta::assert_snapshot!(ok(&["orders", "list", "--per-page", "2", "-o", "json"]));
}

#[test]
fn orders_list_is_json_when_standard_output_is_not_a_terminal() {
    let out = ok(&["orders", "list", "--per-page", "2"]);
    assert_eq!(json(&out).as_array().map(Vec::len), Some(2));
}

#[test]
fn orders_list_filters_by_status() {
    let statuses = json(&ok(&["orders", "statuses", "-o", "json"]));
    let shipped = statuses
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slug"] == "shipped")
        .expect("a shipped status");
    let id = shipped["id"].to_string();
    let orders = json(&ok(&[
        "orders", "list", "--status", &id, "--all", "-o", "json",
    ]));
    let orders = orders.as_array().unwrap();
    assert!(!orders.is_empty());
    assert!(orders.iter().all(|o| o["status"]["slug"] == "shipped"));
}

#[test]
fn orders_get_and_statuses() {
    let id = first_id(&["orders", "list"]);
    let order: types::OrderDetails =
        serde_json::from_str(&ok(&["orders", "get", &id, "-o", "json"])).unwrap();
    assert_eq!(order.id.to_string(), id);
    insta::assert_snapshot!(
        "orders_get_table",
        ok(&["orders", "get", &id, "-o", "table"])
    );
    insta::assert_snapshot!(
        "orders_statuses_table",
        ok(&["orders", "statuses", "-o", "table"])
    );
}

#[test]
fn deprecated_order_shipment_commands_warn_and_still_work() {
    let shipments = json(&ok(&["shipments", "list", "-o", "json"]));
    let order_id = shipments[0]["order_id"].to_string();
    let (out, err) = run(
        sandbox(&["orders", "shipments", &order_id, "-o", "json"]),
        0,
    );
    assert!(json(&out).as_array().is_some_and(|a| !a.is_empty()));
    assert!(
        err.contains("list_order_shipments is deprecated") && err.contains("shipments list"),
        "{err}"
    );
    let (out, err) = run(
        sandbox(&["orders", "cancel-shipment", &order_id, "-o", "json"]),
        0,
    );
    assert_eq!(json(&out)["order_id"].to_string(), order_id);
    assert!(err.contains("cancel_shipment"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// reservations

#[test]
fn reservations_list_between_two_days() {
    insta::assert_snapshot!(ok(&[
        "reservations",
        "list",
        "--start",
        "2024-01-01",
        "--end",
        "2024-12-31",
        "-o",
        "table"
    ]));
}

#[test]
fn reservations_list_rejects_an_end_before_the_start() {
    let (_, err) = run(
        sandbox(&[
            "reservations",
            "list",
            "--start",
            "2024-02-01",
            "--end",
            "2024-01-01",
        ]),
        2,
    );
    assert!(err.contains("before --start"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// shipments

#[test]
fn shipments_list_as_a_table() {
    insta::assert_snapshot!(ok(&["shipments", "list", "--per-page", "5", "-o", "table"]));
}

#[test]
fn shipments_get_tracking_cancel() {
    let id = first_id(&["shipments", "list"]);
    let shipment: types::Shipment =
        serde_json::from_str(&ok(&["shipments", "get", &id, "-o", "json"])).unwrap();
    assert_eq!(shipment.id.to_string(), id);
    let tracking = json(&ok(&["shipments", "tracking", &id, "-o", "json"]));
    assert_eq!(tracking["id"].to_string(), id);
    let cancelled = json(&ok(&["shipments", "cancel", &id, "-o", "json"]));
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
}

#[test]
fn shipments_create_from_flags_and_a_body_file() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("shipment.json");
    std::fs::write(
        &body,
        r#"{"packages":[{"name":"Shirt","quantity":2,"sku":"SKU-1",
            "price":{"amount":50,"currency":"SAR"},"weight":{"value":1,"unit":"kg"}}],
            "payment_method":"cod"}"#,
    )
    .unwrap();
    let courier = first_id(&["shipping", "companies", "list"]);
    let order = first_id(&["orders", "list"]);
    let out = ok(&[
        "shipments",
        "create",
        "--courier-id",
        &courier,
        "--shipment-type",
        "shipment",
        "--payment-method",
        "pre_paid",
        "--order-id",
        &order,
        "--body",
        body.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let created = without_now(json(&out));
    assert_eq!(
        created["payment_method"], "pre_paid",
        "the flag overrides the body file"
    );
    assert_eq!(created["packages"][0]["name"], "Shirt");
    insta::assert_json_snapshot!(created);
}

#[test]
fn shipments_create_reads_the_body_from_standard_input() {
    let courier = first_id(&["shipping", "companies", "list"]);
    let mut cmd = sandbox(&["shipments", "create", "--body", "-", "-o", "json"]);
    cmd.write_stdin(format!(
        r#"{{"courier_id":{courier},"shipment_type":"shipment","payment_method":"cod",
            "packages":[{{"name":"Box","quantity":1}}]}}"#
    ));
    let (out, _) = run(cmd, 0);
    assert_eq!(json(&out)["courier_id"].to_string(), courier);
}

#[test]
fn shipments_create_rejects_an_unknown_payment_method_before_sending() {
    let (_, err) = run(
        sandbox(&[
            "shipments",
            "create",
            "--courier-id",
            "1",
            "--payment-method",
            "cash",
        ]),
        2,
    );
    assert!(err.contains("[possible values: cod, pre_paid]"), "{err}");
}

#[test]
fn shipments_update_and_return() {
    let shipments = json(&ok(&["shipments", "list", "--all", "-o", "json"]));
    let delivered = shipments
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] == "delivered")
        .expect("a delivered shipment")["id"]
        .to_string();
    let updated = json(&ok(&[
        "shipments",
        "update",
        &delivered,
        "--shipment-number",
        "X-1",
        "--status",
        "in_transit",
        "--tracking-number",
        "TRK-9",
        "-o",
        "json",
    ]));
    assert_eq!(updated["tracking_number"], "TRK-9", "{updated}");
    let returned = without_now(json(&ok(&[
        "shipments",
        "return",
        &delivered,
        "-o",
        "json",
    ])));
    assert_eq!(returned["type"], "return");
    insta::assert_json_snapshot!(returned);
}

#[test]
fn shipments_return_of_an_undelivered_shipment_is_refused_with_exit_3() {
    let shipments = json(&ok(&["shipments", "list", "--all", "-o", "json"]));
    let created = shipments
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] == "created" || s["status"] == "shipped")
        .expect("an undelivered shipment")["id"]
        .to_string();
    let (out, err) = run(sandbox(&["shipments", "return", &created]), 3);
    assert!(out.is_empty());
    assert!(
        err.contains("return_shipment: the service answered HTTP 422"),
        "{err}"
    );
    assert!(err.contains("hint: fix the fields named above"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// shipping

#[test]
fn shipping_companies_routes_and_rules() {
    insta::assert_snapshot!(
        "shipping_companies_table",
        ok(&["shipping", "companies", "list", "-o", "table"])
    );
    insta::assert_snapshot!(
        "shipping_routes_csv",
        ok(&["shipping", "routes", "list", "-o", "csv"])
    );
    let company = first_id(&["shipping", "companies", "list"]);
    let got = json(&ok(&[
        "shipping",
        "companies",
        "get",
        &company,
        "-o",
        "json",
    ]));
    assert_eq!(got["id"].to_string(), company);
    let route = first_id(&["shipping", "routes", "list"]);
    let got = json(&ok(&["shipping", "routes", "get", &route, "-o", "json"]));
    assert_eq!(got["id"].to_string(), route);
}

#[tokio::test]
async fn shipping_rule_get_reads_a_seeded_rule() {
    // The document has no list operation for rules: read the seeded ids from a mock store of the
    // same (default) seed as the sandbox.
    let mock = store_admin_mock::MockServer::start(store_admin_mock::MockConfig::new())
        .await
        .unwrap();
    let rule = mock.shipping_rule_ids()[0].to_string();
    let out =
        tokio::task::spawn_blocking(move || ok(&["shipping", "rule", "get", &rule, "-o", "json"]))
            .await
            .unwrap();
    let got: types::ShippingRule = serde_json::from_str(&out).unwrap();
    assert_eq!(got.id, Some(mock.shipping_rule_ids()[0]));
}

// ---------------------------------------------------------------------------------------------
// languages, categories

#[test]
fn languages_add() {
    let out = ok(&["languages", "add", "--locale", "fr", "-o", "json"]);
    let added: Vec<types::Language> = serde_json::from_str(&out).unwrap();
    assert!(added.iter().any(|l| l.iso_code == "fr"), "{out}");
    insta::assert_snapshot!(out);
}

/// A code longer than the document allows is refused before any request, naming the field.
#[test]
fn languages_add_a_too_long_code_is_refused_before_sending_with_exit_2() {
    let (_, err) = run(
        sandbox(&["languages", "add", "--locale", "not-a-language"]),
        2,
    );
    assert!(
        err.contains("locales[0].iso_code") && err.contains("longer than 3"),
        "{err}"
    );
}

#[test]
fn languages_add_a_bad_code_shows_the_field_errors_and_exits_3() {
    let (_, err) = run(sandbox(&["languages", "add", "--locale", "zzz"]), 3);
    insta::assert_snapshot!(err);
}

#[test]
fn categories_create() {
    let out = ok(&[
        "categories",
        "create",
        "--name",
        "Shoes",
        "--status",
        "active",
        "--show-in-app",
        "true",
        "-o",
        "json",
    ]);
    let category: types::Category = serde_json::from_str(&out).unwrap();
    assert_eq!(category.name, "Shoes");
    insta::assert_snapshot!(out);
}

#[test]
fn categories_create_without_a_name_names_the_flag() {
    let (_, err) = run(sandbox(&["categories", "create", "--status", "active"]), 2);
    assert!(err.contains("required field: `name` (--name)"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// webhooks (management)

#[test]
fn webhooks_list_and_events() {
    insta::assert_snapshot!(
        "webhooks_list_table",
        ok(&["webhooks", "list", "-o", "table"])
    );
    let events = json(&ok(&["webhooks", "events", "-o", "json"]));
    assert!(
        events
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "order.created")
    );
}

#[test]
fn webhooks_subscribe_never_prints_the_secret() {
    let subscribe = |format: &str, header: bool| {
        let mut command = sandbox(&[
            "webhooks",
            "subscribe",
            "--name",
            "Orders",
            "--event",
            "order.created",
            "--url",
            "https://hooks.example/new",
            "--security-strategy",
            "signature",
            "-o",
            format,
        ]);
        if header {
            command.args(["--header", "X-Team: ops"]);
        }
        command.env("STORE_ADMIN_WEBHOOK_SECRET", "whsec-do-not-print");
        command
    };
    let (out, err) = run(subscribe("json", true), 0);
    assert!(!out.contains("whsec-do-not-print") && !err.contains("whsec-do-not-print"));
    let webhook = json(&out);
    assert_eq!(webhook["security"]["secret"], "[redacted]", "{webhook}");
    assert_eq!(webhook["url"], "https://hooks.example/new");
    for format in ["table", "csv", "ndjson"] {
        let (out, _) = run(subscribe(format, false), 0);
        assert!(!out.contains("whsec-do-not-print"), "{format}: {out}");
    }
}

#[test]
fn webhooks_update_and_unsubscribe() {
    let id = first_id(&["webhooks", "list"]);
    let updated = json(&ok(&[
        "webhooks",
        "update",
        &id,
        "--name",
        "Renamed",
        "--rule",
        "total > 100",
        "-o",
        "json",
    ]));
    assert_eq!(updated["name"], "Renamed", "{updated}");
    let out = ok(&["webhooks", "unsubscribe", "--id", &id, "-o", "json"]);
    assert!(json(&out)["message"].is_string(), "{out}");
    let (_, err) = run(sandbox(&["webhooks", "unsubscribe"]), 2);
    assert!(err.contains("--id") && err.contains("--url"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// api

#[test]
fn api_get_prints_the_whole_envelope() {
    let out = ok(&["api", "GET", "/orders", "-f", "per_page=2"]);
    let envelope: types::OrderList = serde_json::from_str(&out).unwrap();
    assert_eq!(envelope.data.len(), 2);
    // `pagination` is optional in a list envelope (issue 39: lists are documented without it).
    let pagination = envelope.pagination.expect("the mock pages its lists");
    assert_eq!(pagination.per_page, 2);
}

#[test]
fn api_post_sends_fields_as_a_json_body() {
    let out = ok(&[
        "api",
        "post",
        "/categories",
        "-F",
        "name=Bags",
        "-f",
        "status=\"hidden\"",
    ]);
    let envelope = json(&out);
    assert_eq!(envelope["data"]["name"], "Bags", "{out}");
    assert_eq!(envelope["data"]["status"], "hidden", "{out}");
}

#[test]
fn api_errors_exit_3_with_the_scope_hint_of_the_matching_operation() {
    let (_, err) = run(sandbox(&["api", "GET", "/shipments/1"]), 3);
    assert!(err.contains("HTTP 404"), "{err}");
    let (_, err) = run(
        sandbox(&[
            "--sandbox-scopes",
            "orders.read",
            "api",
            "GET",
            "/shipments/1",
        ]),
        3,
    );
    assert!(err.contains("shipping.read, shipping.read_write"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// errors and exit codes

#[test]
fn missing_scope_gives_exit_3_and_names_the_scope() {
    let (out, err) = run(
        sandbox(&["--sandbox-scopes", "products.read", "orders", "list"]),
        3,
    );
    assert!(out.is_empty());
    insta::assert_snapshot!(err);
}

#[test]
fn the_token_is_never_printed() {
    // Port 9 (discard) is closed: the call fails after the token was attached to the request.
    for verbosity in ["-v", "-vv"] {
        let mut cmd = store_admin();
        cmd.args([
            verbosity,
            "--base-url",
            "http://127.0.0.1:9/admin/v2",
            "--retries",
            "1",
            "orders",
            "list",
        ]);
        cmd.env("STORE_ADMIN_TOKEN", "tok-secret-4242");
        let (out, err) = run(cmd, 4);
        assert!(
            !out.contains("tok-secret-4242") && !err.contains("tok-secret-4242"),
            "{err}"
        );
    }
}

#[test]
fn no_token_outside_the_sandbox_is_a_usage_error() {
    let mut cmd = store_admin();
    cmd.args(["orders", "list"]);
    let (_, err) = run(cmd, 2);
    assert!(
        err.contains("STORE_ADMIN_TOKEN") && err.contains("--sandbox"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let (_, err) = run(sandbox(&["orders", "list", "--per-page", "61"]), 2);
    assert!(err.contains("61"), "{err}");
    run(sandbox(&["orders", "nope"]), 2);
    run(sandbox(&["orders", "get", "not-a-number"]), 2);
    let (_, err) = run(
        sandbox(&[
            "--sandbox-faults",
            "{\"errors\":{\"rate\":2}}",
            "orders",
            "list",
        ]),
        2,
    );
    assert!(err.contains("errors.rate"), "{err}");
    let (_, err) = run(
        sandbox(&["languages", "add", "--body", "/nonexistent/body.json"]),
        2,
    );
    assert!(err.contains("cannot read /nonexistent/body.json"), "{err}");
}

#[test]
fn an_unreachable_service_exits_4() {
    // Port 9 (discard) is closed on the test machine: the connection is refused at once.
    let mut cmd = store_admin();
    cmd.args([
        "--base-url",
        "http://127.0.0.1:9/admin/v2",
        "--token",
        "t",
        "--retries",
        "1",
        "orders",
        "list",
    ]);
    let (_, err) = run(cmd, 4);
    assert!(
        err.contains("could not connect") && err.contains("base URL"),
        "{err}"
    );
}

#[test]
fn server_errors_after_retries_exit_4() {
    let (_, err) = run(
        sandbox(&[
            "--sandbox-faults",
            r#"{"errors":{"rate":1.0,"statuses":[503]}}"#,
            "--retries",
            "1",
            "orders",
            "statuses",
        ]),
        4,
    );
    // --retries 1: two attempts, both said.
    assert!(
        err.contains("HTTP 503") && err.contains("failed 2 times (every attempt)"),
        "{err}"
    );
}

#[test]
fn a_live_base_url_from_the_environment_is_used() {
    // A mock store started by the test stands in for the service: the CLI reaches it through
    // STORE_ADMIN_BASE_URL and STORE_ADMIN_TOKEN, and sees the writes of earlier invocations.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = runtime
        .block_on(store_admin_mock::MockServer::start(
            store_admin_mock::MockConfig::new().token_all_scopes("env-token"),
        ))
        .unwrap();
    let with_env = |args: &[&str]| {
        let mut cmd = store_admin();
        cmd.env("STORE_ADMIN_BASE_URL", mock.base_url())
            .env("STORE_ADMIN_TOKEN", "env-token")
            .args(args);
        run(cmd, 0).0
    };
    with_env(&[
        "webhooks",
        "subscribe",
        "--name",
        "Mine",
        "--event",
        "order.updated",
        "--url",
        "https://hooks.example/mine",
    ]);
    let list = json(&with_env(&["webhooks", "list", "--all", "-o", "json"]));
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|w| w["url"] == "https://hooks.example/mine"),
        "{list}"
    );
    drop(mock);
}
