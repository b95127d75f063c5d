//! The generated commands of the operations progenitor cannot generate: the `multipart/form-data`
//! uploads (a flag per form field, files read from paths or standard input) and `get_user_info`
//! on the accounts host, all against the sandbox (nothing leaves 127.0.0.1).

use std::io::Write;

use crate::common;
use crate::common::{json, ok, run, sandbox};

fn png(dir: &tempfile::TempDir, name: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n']).expect("a file");
    path.to_str().expect("a UTF-8 path").to_owned()
}

#[test]
fn brands_create_sends_the_form_and_prints_the_brand_it_typed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let logo = png(&dir, "logo.png");
    let out = ok(&[
        "brands",
        "create",
        "--name",
        "Acme Tools",
        "--logo",
        &logo,
        "--metadata-title",
        "Acme",
        "--output",
        "json",
    ]);
    let brand = json(&out);
    assert_eq!(brand["name"], "Acme Tools", "{brand}");
    assert_eq!(brand["metadata"]["title"], "Acme", "{brand}");
    assert!(brand["id"].is_i64(), "{brand}");
}

#[test]
fn a_required_file_left_out_or_unreadable_is_a_usage_error() {
    let (_, err) = run(sandbox(&["brands", "create", "--name", "Acme"]), 2);
    assert!(err.contains("--logo"), "names the missing flag: {err}");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("no-such-logo.png");
    let missing = missing.to_str().expect("a UTF-8 path");
    let (out, err) = run(
        sandbox(&["brands", "create", "--name", "Acme", "--logo", missing]),
        2,
    );
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("cannot read") && err.contains("no-such-logo.png"),
        "names the file: {err}"
    );
}

#[test]
fn product_images_create_reads_the_photo_from_standard_input() {
    let (out, _) = run(sandbox(&["api", "GET", "/products", "-f", "per_page=1"]), 0);
    let product = json(&out)["data"][0]["id"].to_string();
    let mut child = common::store_admin_process()
        .args([
            "--sandbox",
            "product-images",
            "create",
            &product,
            "--photo",
            "-",
            "--alt",
            "The front",
            "--main",
            "true",
            "--output",
            "json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("store-admin runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&[0xff, 0xd8, 0xff, 0xe0])
        .expect("the photo is written");
    let output = child.wait_with_output().expect("store-admin ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // `--main true` went as `1`, which the service's form validation (and the mock's) reads
    // as a boolean; anything else would be 422.
    let image = json(&stdout);
    assert!(image["id"].is_i64(), "{image}");
}

#[test]
fn imports_send_their_file_and_print_the_services_message() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sheet = dir.path().join("customers.xlsx");
    std::fs::write(&sheet, b"PK\x03\x04").expect("a file");
    let out = ok(&[
        "customers",
        "import",
        "--file",
        sheet.to_str().expect("a UTF-8 path"),
        "--output",
        "json",
    ]);
    let message = json(&out);
    assert!(message["message"].is_string(), "{message}");

    let (_, err) = run(
        sandbox(&[
            "products",
            "import",
            "--file",
            "-",
            "--type",
            "no-such-kind",
        ]),
        2,
    );
    assert!(err.contains("no-such-kind"), "{err}");
}

#[test]
fn merchant_get_user_info_asks_the_sandboxs_accounts_host() {
    let out = ok(&["merchant", "get-user-info", "--output", "json"]);
    let info = json(&out);
    assert!(info["merchant"]["id"].is_i64(), "{info}");
}
