//! `store-admin decode OPERATION FILE|-`: does a body decode as the document's type of an
//! operation? For when the live service drifts from the document: prints `ok` (exit 0) or the
//! first mismatch with its JSON path (exit 1); an unknown operation exits 2.
//!
//! The table of decoders (operationId -> the generated types of its success body, error body and
//! request body) is the client's (`store_admin_client::decoders::DECODERS`), generated with the
//! command tree.

use std::path::PathBuf;

use clap::Args;
use store_admin::{OPERATIONS, OperationMeta};

use crate::error::CliError;
use store_admin_client::decoders::{DECODERS, DecodeFn};

/// `decode OPERATION FILE|-`
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    store-admin decode list_orders response.json\n  \
    store-admin decode 'GET /orders/{id}' - < order.json\n  \
    store-admin decode create_shipment --request body.json\n  \
    store-admin decode get_order --status 404 error.json\n  \
    store-admin decode list_orders --drift response.json > drift.json\n\n\
    Exit codes: 0 the body decodes, 1 it does not (the first mismatch is printed), 2 unknown \
    operation or unreadable file.")]
#[non_exhaustive]
pub struct DecodeArgs {
    /// An operationId (`list_orders`) or `"METHOD /path"` (`"GET /orders/{id}"`; parameter names
    /// need not match the document's).
    #[arg(value_name = "OPERATION")]
    pub operation: String,
    /// The JSON body (`-` for standard input).
    #[arg(value_name = "FILE|-")]
    pub file: PathBuf,
    /// The response's HTTP status [default: the success status]; an error status decodes the
    /// error schema.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(100..=599),
          conflicts_with = "request")]
    pub status: Option<u16>,
    /// Decode a request body instead of a response.
    #[arg(long)]
    pub request: bool,
    /// Print the body's drift instead of `ok`, as JSON (the client's drift report, see
    /// `store_admin::drift`): each habit of the service's serialisation it needed (a number as a
    /// string, `0`/`1` for a boolean, ...) and each field the document does not declare, by JSON
    /// path, with counts and JSON types, never a value. Success bodies only.
    #[arg(long, conflicts_with_all = ["request", "status"])]
    pub drift: bool,
}

/// Finds an operation by its `operationId`, or by `METHOD /path` where each `{...}` segment of
/// the document's path matches any segment (a literal segment is preferred to a parameter).
pub fn find_operation(text: &str) -> Option<&'static OperationMeta> {
    let text = text.trim();
    if let Some(meta) = OperationMeta::find(text) {
        return Some(meta);
    }
    let (method, path) = text.split_once(char::is_whitespace)?;
    let method = method.trim().to_ascii_uppercase();
    let path = path.trim();
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let wanted: Vec<&str> = path.trim_matches('/').split('/').collect();
    let mut best: Option<(usize, &'static OperationMeta)> = None;
    for meta in OPERATIONS.iter().filter(|m| m.method == method) {
        let segments: Vec<&str> = meta.path.trim_matches('/').split('/').collect();
        if segments.len() != wanted.len() {
            continue;
        }
        let mut literal = 0;
        let matches = segments.iter().zip(&wanted).all(|(doc, given)| {
            let doc_param = doc.starts_with('{') && doc.ends_with('}');
            let given_param = given.starts_with('{') && given.ends_with('}');
            if doc_param {
                true
            } else if doc == given && !given_param {
                literal += 1;
                true
            } else {
                false
            }
        });
        if matches && best.is_none_or(|(score, _)| literal > score) {
            best = Some((literal, meta));
        }
    }
    best.map(|(_, meta)| meta)
}

/// Runs `decode`: prints `ok` or the mismatch on standard output.
pub fn run(args: DecodeArgs) -> Result<(), CliError> {
    let meta = find_operation(&args.operation).ok_or_else(|| {
        CliError::usage(format!(
            "no operation {:?} in the document: give an operationId (e.g. list_orders) or \
             \"METHOD /path\" (e.g. \"GET /orders/{{id}}\")",
            args.operation
        ))
    })?;
    let decoder = DECODERS
        .iter()
        .find(|d| d.operation_id == meta.operation_id)
        .ok_or_else(|| {
            CliError::other(format!("internal: no decoder for {}", meta.operation_id))
        })?;
    let decode = if args.request {
        decoder.request.ok_or_else(|| {
            CliError::usage(format!(
                "{} ({} {}) takes no request body",
                meta.operation_id, meta.method, meta.path
            ))
        })?
    } else {
        match args.status {
            Some(status) if !(200..300).contains(&status) => decoder.error,
            _ => decoder.success,
        }
    };
    let bytes = crate::body::read_input_for(&args.file, "FILE")?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let checked = check(decode, bytes, !args.request);
    if args.drift
        && let Ok(shape) = &checked
    {
        return print_drift(meta.operation_id, bytes, shape);
    }
    let (verdict, mismatch) = match checked {
        Ok(Shape::AsIs) => ("ok".to_string(), None),
        Ok(Shape::Bare) => (
            "ok (the records alone, as store-admin prints them: decoded as the `data` of the \
             response's envelope)"
                .to_string(),
            None,
        ),
        Err(mismatch) => {
            let expected = if args.request {
                format!("the request body of {}", meta.operation_id)
            } else {
                format!(
                    "the response of {} (its envelope {{\"status\", \"success\", \"data\"}}, or \
                     the `data` alone as store-admin prints it)",
                    meta.operation_id
                )
            };
            let text = format!("{mismatch}\nexpected {expected}");
            (text.clone(), Some(text))
        }
    };
    crate::output::write_stdout(
        format!("{}\n", crate::output::terminal_safe(&verdict, true)).as_bytes(),
    )?;
    match mismatch {
        None => Ok(()),
        Some(text) => Err(CliError::Rejected(text)),
    }
}

/// Prints the drift report of one success body of `operation` (that decoded as `shape`).
fn print_drift(operation: &'static str, bytes: &[u8], shape: &Shape) -> Result<(), CliError> {
    let findings = match findings_of(operation, bytes, shape) {
        Ok(findings) => findings,
        Err(Refused::Usage(text)) => return Err(CliError::usage(text)),
        Err(Refused::Mismatch(mismatch)) => {
            let text = crate::output::terminal_safe(&mismatch, true);
            crate::output::write_stdout(format!("{text}\n").as_bytes())?;
            return Err(CliError::Rejected(text));
        }
    };
    let mut report = store_admin::drift::DriftReport::default();
    report.record(operation, Some(&findings), chrono::Utc::now());
    print_report(&report)
}

/// Prints a report as JSON on standard output.
pub(crate) fn print_report(report: &store_admin::drift::DriftReport) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(report)
        .map_err(|e| CliError::other(format!("the drift report: {e}")))?;
    crate::output::write_stdout(format!("{text}\n").as_bytes())
}

/// Why a body has no findings.
pub(crate) enum Refused {
    /// The operation answers no JSON body.
    Usage(String),
    /// The body does not decode: its first mismatch.
    Mismatch(String),
}

/// The drift findings of one success body of `operation` (that decoded as `shape`).
fn findings_of(
    operation: &'static str,
    bytes: &[u8],
    shape: &Shape,
) -> Result<store_admin_client::drift::Findings, Refused> {
    let envelope;
    let body = match shape {
        Shape::AsIs => bytes,
        Shape::Bare => {
            // The records alone: their paths are read below the envelope's `data`, as the client
            // reads them.
            let data: serde_json::Value = serde_json::from_slice(bytes)
                .or_else(|_| {
                    bytes
                        .split(|b| *b == b'\n')
                        .filter(|line| !line.trim_ascii().is_empty())
                        .map(serde_json::from_slice)
                        .collect::<Result<Vec<serde_json::Value>, _>>()
                        .map(serde_json::Value::Array)
                })
                .map_err(|e| Refused::Mismatch(format!("not JSON: {e}")))?;
            envelope =
                serde_json::json!({"status": 200, "success": true, "data": data}).to_string();
            envelope.as_bytes()
        }
    };
    let Some((findings, decoded)) = store_admin_client::decoders::drift(operation, body) else {
        return Err(Refused::Usage(format!(
            "{operation}'s answer is no JSON body: it has no drift"
        )));
    };
    match decoded {
        Ok(()) => Ok(findings),
        // The records alone lack the envelope's other fields (a list's `pagination`), which come
        // last: what was read before them is all there is.
        Err(e) if *shape == Shape::Bare && e.starts_with("missing field") => Ok(findings),
        Err(mismatch) => Err(Refused::Mismatch(mismatch)),
    }
}

/// The drift findings of a success body of `operation`, as `decode --drift` reads it (the
/// envelope, or the records alone as the CLI prints them).
pub(crate) fn drift_of(
    operation: &'static str,
    bytes: &[u8],
) -> Result<store_admin_client::drift::Findings, Refused> {
    let decoder = DECODERS
        .iter()
        .find(|d| d.operation_id == operation)
        .ok_or_else(|| Refused::Usage(format!("internal: no decoder for {operation}")))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let shape = check(decoder.success, bytes, true).map_err(Refused::Mismatch)?;
    findings_of(operation, bytes, &shape)
}

/// What decoded: the body as given, or the records alone (wrapped in the envelope).
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    AsIs,
    Bare,
}

/// Decodes `bytes`; a response that is not the envelope (a record or a list, as the CLI prints
/// them, or NDJSON lines) is tried again as the envelope's `data`. The mismatch reported is the
/// envelope's when the input looks like one, else the record's (its path below `data`).
fn check(decode: DecodeFn, bytes: &[u8], response: bool) -> Result<Shape, String> {
    // Nesting past the bound is refused before anything reads it (a deep body overflows a stack).
    store_admin_client::check_depth(bytes).map_err(|too_deep| too_deep.to_string())?;
    let direct = decode(bytes);
    if direct.is_ok() || !response {
        return direct.map(|()| Shape::AsIs);
    }
    let data = match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Object(map))
            if map.contains_key("data")
                && (map.contains_key("status") || map.contains_key("success")) =>
        {
            return direct.map(|()| Shape::AsIs);
        }
        Ok(value) => value,
        Err(_) => {
            // NDJSON: one record a line.
            let lines: Result<Vec<serde_json::Value>, _> = bytes
                .split(|b| *b == b'\n')
                .filter(|line| !line.trim_ascii().is_empty())
                .map(serde_json::from_slice)
                .collect();
            match lines {
                Ok(lines) if lines.len() > 1 => serde_json::Value::Array(lines),
                _ => return direct.map(|()| Shape::AsIs),
            }
        }
    };
    let wrap = |data: serde_json::Value| {
        serde_json::json!({"status": 200, "success": true, "data": data}).to_string()
    };
    let mut wrapped = decode(wrap(data.clone()).as_bytes());
    if wrapped.is_err() && !data.is_array() {
        // A list printed as a single record would not be an array: try it as a list of one.
        if decode(wrap(serde_json::Value::Array(vec![data.clone()])).as_bytes()).is_ok() {
            wrapped = Ok(());
        }
    }
    match wrapped {
        Ok(()) => Ok(Shape::Bare),
        // The envelope's other fields (a list's `pagination`) are not printed by the CLI.
        Err(e) if e.starts_with("missing field") => Ok(Shape::Bare),
        Err(e) => Err(match e.strip_prefix("data.") {
            Some(rest) => rest.to_string(),
            None => e
                .strip_prefix("data")
                .filter(|rest| rest.starts_with('['))
                .map_or_else(|| e.clone(), str::to_owned),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store_admin_client::decoders::{empty, json};

    #[test]
    fn operations_are_found_by_id_or_by_method_and_path_whatever_the_parameter_names() {
        assert_eq!(
            find_operation("list_orders").map(|m| m.operation_id),
            Some("list_orders")
        );
        assert_eq!(
            find_operation("GET /orders/{order_id}").map(|m| m.operation_id),
            Some("get_order")
        );
        assert_eq!(
            find_operation("get /orders/statuses").map(|m| m.operation_id),
            Some("list_order_statuses"),
            "a literal segment beats a parameter"
        );
        assert_eq!(
            find_operation("GET /orders/123?x=1").map(|m| m.operation_id),
            Some("get_order")
        );
        assert!(find_operation("GET /nowhere").is_none());
        assert!(find_operation("no_such_operation").is_none());
    }

    #[test]
    fn a_mismatch_names_its_json_path() {
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Item {
            price: f64,
        }
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct List {
            data: Vec<Item>,
        }
        let error = json::<List>(br#"{"data":[{"price":1},{"price":true}]}"#).unwrap_err();
        assert!(
            error.starts_with("data[1].price: invalid type: boolean"),
            "{error}"
        );
        assert!(json::<List>(br#"{"data":[]}"#).is_ok());
        assert!(empty(b" \n").is_ok() && empty(b"{}").is_err());
    }

    #[test]
    fn the_records_alone_decode_as_the_data_of_the_envelope() {
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Item {
            price: f64,
        }
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Envelope {
            status: i64,
            data: Item,
        }
        let decode: DecodeFn = json::<Envelope>;
        assert_eq!(
            check(decode, br#"{"status":200,"data":{"price":1}}"#, true),
            Ok(Shape::AsIs)
        );
        assert_eq!(check(decode, br#"{"price":1}"#, true), Ok(Shape::Bare));
        let error = check(decode, br#"{"price":true}"#, true).unwrap_err();
        assert!(error.starts_with("price: invalid type"), "{error}");
        let error = check(decode, br#"{"status":200,"data":{"price":true}}"#, true).unwrap_err();
        assert!(error.starts_with("data.price"), "{error}");
    }
}
