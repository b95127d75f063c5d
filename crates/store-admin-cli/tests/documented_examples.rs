//! Every documented example of the service (`tests/fixtures/examples/`, with its MANIFEST.tsv and
//! SOURCES.md) decodes through the decoders of `store-admin decode`
//! (`store_admin_client::decoders::DECODERS`), as the team's `decode-all.sh` checks with the
//! binary: a request as its operation's request body, a response as the body of its documented
//! status, and an error envelope (`"success": false`) documented under a 2xx heading as an error.

use std::path::{Path, PathBuf};

use store_admin_cli::decode::find_operation;
use store_admin_client::decoders::DECODERS;
use store_admin_client::decoders::DecodeFn;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/examples")
}

/// One row of MANIFEST.tsv.
struct Example {
    file: String,
    method: String,
    path: String,
    /// The documented status, or `request`.
    status: String,
}

fn manifest() -> Vec<Example> {
    let text = std::fs::read_to_string(examples_dir().join("MANIFEST.tsv"))
        .expect("tests/fixtures/examples/MANIFEST.tsv");
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let mut columns = line.split('\t');
            let file = columns.next()?.to_owned();
            let method = columns.next()?.to_owned();
            let path = columns.next()?.to_owned();
            let status = columns.next()?.to_owned();
            file.ends_with(".json").then_some(Example {
                file,
                method,
                path,
                status,
            })
        })
        .collect()
}

/// The decoder `store-admin decode` would use for an example, or why there is none.
fn decoder_for(example: &Example, bytes: &[u8]) -> Result<DecodeFn, String> {
    let operation = format!("{} {}", example.method, example.path);
    let meta = find_operation(&operation).ok_or_else(|| format!("no operation {operation}"))?;
    let decoder = DECODERS
        .iter()
        .find(|d| d.operation_id == meta.operation_id)
        .ok_or_else(|| format!("no decoder for {}", meta.operation_id))?;
    if example.status == "request" {
        return decoder
            .request
            .ok_or_else(|| format!("{} takes no request body", meta.operation_id));
    }
    let documented_error = serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| v.get("success").and_then(serde_json::Value::as_bool))
        == Some(false);
    let success = example.status.starts_with('2') && !documented_error;
    Ok(if success {
        decoder.success
    } else {
        decoder.error
    })
}

#[test]
fn every_documented_example_of_the_service_decodes_through_the_cli_decoders() {
    let examples = manifest();
    // The shared folder's 361 files, of which 360 are JSON; a lost file would shrink the test.
    assert_eq!(
        examples.len(),
        360,
        "rows of MANIFEST.tsv naming a JSON file"
    );
    let mut failures = Vec::new();
    for example in &examples {
        let bytes = std::fs::read(examples_dir().join(&example.file))
            .unwrap_or_else(|e| panic!("{}: {e}", example.file));
        let outcome = decoder_for(example, &bytes).and_then(|decode| decode(&bytes));
        if let Err(why) = outcome {
            failures.push(format!("{}: {why}", example.file));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} documented examples do not decode:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

#[test]
fn a_body_that_does_not_fit_is_still_reported_with_its_json_path() {
    let example = Example {
        file: String::new(),
        method: "GET".into(),
        path: "/products/{id}".into(),
        status: "200".into(),
    };
    let body = br#"{"status":200,"success":true,"data":{"id":{"nested":true}}}"#;
    let decode = decoder_for(&example, body).expect("a decoder");
    let error = decode(body).expect_err("an object is no id");
    assert!(error.starts_with("data.id: "), "{error}");
}
