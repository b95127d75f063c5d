//! `store-admin drift PATH...`: the drift of many captured answers, as one report. Each file is a
//! success body of one operation (the envelope, or the records alone as the CLI prints them); a
//! directory is read whole (its `.json` and `.ndjson` files, below it too). The report is the
//! client's (`store_admin::drift::DriftReport`, the JSON of `StoreAdmin::drift` and of the mock
//! store's `/__admin/drift`): per operation, each habit of the service's serialisation the answers
//! needed and each field the document does not declare, by JSON path, with counts, JSON types and
//! the first and last time seen (a file's time is when it was last written, when it was
//! captured). Never a value.
//!
//! With `--deliveries`, each file is a webhook delivery's body instead (as `webhooks listen --save
//! DIR` writes them; in an `.ndjson` file, one a line), counted per event as the library counts
//! what it verifies: the operation `webhook:<event>`.

use std::path::{Path, PathBuf};

use clap::Args;
use store_admin::drift::DriftReport;

use crate::decode::{Refused, drift_of, find_operation, print_report};
use crate::error::CliError;

/// The largest file read: the client's bound on an answer (64 MiB).
const FILE_BYTES: u64 = 64 << 20;

/// The most files one run reads (a directory of captures is bounded; give several runs' reports
/// to `cargo xtask drift apply`, which merges them).
const FILES: usize = 100_000;

/// `drift PATH...`
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    store-admin drift captures/ > drift.json\n  \
    store-admin drift --operation list_orders page1.json page2.json\n  \
    store-admin drift --deliveries deliveries/ > webhook-drift.json\n\n\
    A file's operation is --operation, else the operationId its name starts with \
    (list_orders.json, list_orders.2.json) or the name of its directory (list_orders/1.json).\n\n\
    Exit codes: 0 every file decodes (the report is on standard output), 1 some do not (each is \
    named on standard error; the report counts them as failed), 2 a file's operation is unknown \
    or a file cannot be read.")]
#[non_exhaustive]
pub struct DriftArgs {
    /// Files and directories of captured success bodies.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// The operation every file answers: an operationId (`list_orders`) or `"METHOD /path"`.
    #[arg(long, value_name = "OPERATION")]
    pub operation: Option<String>,
    /// The files are webhook deliveries' bodies (as `webhooks listen --save DIR` writes them; in
    /// an `.ndjson` file, one a line), counted per event (`webhook:order.created`).
    #[arg(long, conflicts_with = "operation")]
    pub deliveries: bool,
}

/// Runs `drift`: prints the merged report on standard output.
pub fn run(args: DriftArgs) -> Result<(), CliError> {
    let given = args
        .operation
        .as_deref()
        .map(|text| {
            find_operation(text).ok_or_else(|| {
                CliError::usage(format!(
                    "no operation {text:?} in the document: give an operationId (e.g. \
                     list_orders) or \"METHOD /path\""
                ))
            })
        })
        .transpose()?;
    let mut files = Vec::new();
    for path in &args.paths {
        collect(path, &mut files)?;
    }
    let mut report = DriftReport::default();
    let mut failed = 0usize;
    if args.deliveries {
        for file in &files {
            failed += count_deliveries(file, &mut report)?;
        }
        print_report(&report)?;
        return if failed > 0 {
            Err(CliError::Quiet(1))
        } else {
            Ok(())
        };
    }
    for file in &files {
        let operation = match given {
            Some(meta) => meta.operation_id,
            None => operation_of(file)?,
        };
        let (bytes, at) = read_capture(file)?;
        match drift_of(operation, &bytes) {
            Ok(findings) => report.record(operation, Some(&findings), at),
            Err(Refused::Usage(text)) => {
                return Err(CliError::usage(format!("{}: {text}", shown(file))));
            }
            Err(Refused::Mismatch(mismatch)) => {
                failed += 1;
                report.record(operation, None, at);
                crate::output::stderr_line(format_args!(
                    "{}: does not decode as {operation}: {}",
                    shown(file),
                    crate::output::terminal_safe(&mismatch, true)
                ));
            }
        }
    }
    print_report(&report)?;
    if failed > 0 {
        return Err(CliError::Quiet(1));
    }
    Ok(())
}

/// Counts the deliveries of one file (the whole file, or each line of an `.ndjson` file) in
/// `report`, at the file's time; answers how many did not decode as a delivery (each named on
/// standard error).
fn count_deliveries(file: &Path, report: &mut DriftReport) -> Result<usize, CliError> {
    let (bytes, at) = read_capture(file)?;
    let bodies: Vec<&[u8]> = if file.extension().is_some_and(|ext| ext == "ndjson") {
        bytes
            .split(|b| *b == b'\n')
            .filter(|line| !line.trim_ascii().is_empty())
            .collect()
    } else {
        vec![&bytes]
    };
    let mut failed = 0;
    for (n, body) in bodies.into_iter().enumerate() {
        let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        // `parse_event` refuses nesting past the client's bound before reading the body.
        let count = store_admin::drift::DriftCount::new();
        let parsed = store_admin::webhooks::parse_event_counting(body, &count)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let mut seen = count.report();
        at_time(&mut seen, at);
        report.merge(&seen);
        if let Err(reason) = parsed {
            failed += 1;
            let line = if file.extension().is_some_and(|ext| ext == "ndjson") {
                format!(" line {}", n + 1)
            } else {
                String::new()
            };
            crate::output::stderr_line(format_args!(
                "{}{line}: not a delivery: {}",
                shown(file),
                crate::output::terminal_safe(&reason, true)
            ));
        }
    }
    Ok(failed)
}

/// Sets every time of `report` to `at` (a capture's time, not when it was read).
fn at_time(report: &mut DriftReport, at: chrono::DateTime<chrono::Utc>) {
    for operation in report.operations.values_mut() {
        let habits = operation
            .habits
            .values_mut()
            .flat_map(|h| h.paths.values_mut());
        for seen in habits.chain(operation.unknown_fields.values_mut()) {
            seen.first_seen = Some(at);
            seen.last_seen = Some(at);
        }
    }
}

/// A capture's bytes and its time (when it was last written), within the bound on an answer.
fn read_capture(file: &Path) -> Result<(Vec<u8>, chrono::DateTime<chrono::Utc>), CliError> {
    let metadata = std::fs::metadata(file)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", shown(file))))?;
    if metadata.len() > FILE_BYTES {
        return Err(CliError::usage(format!(
            "{} is larger than {} MiB, the client's bound on an answer",
            shown(file),
            FILE_BYTES >> 20
        )));
    }
    let bytes = std::fs::read(file)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", shown(file))))?;
    let at = metadata
        .modified()
        .map(chrono::DateTime::<chrono::Utc>::from)
        .unwrap_or_else(|_| chrono::Utc::now());
    Ok((bytes, at))
}

/// A path as it may be printed.
fn shown(path: &Path) -> String {
    crate::output::terminal_safe(&path.display().to_string(), false)
}

/// Adds `path` (a file, or a directory's `.json` and `.ndjson` files, in name order) to `files`.
/// Links are not followed inside a directory (a capture directory is read, not what it points
/// to); a path given is read as given.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let metadata = std::fs::metadata(path)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", shown(path))))?;
    if !metadata.is_dir() {
        push(path.to_path_buf(), files)?;
        return Ok(());
    }
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", shown(&dir))))?
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        let mut below = Vec::new();
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                below.push(path);
            } else if kind.is_file()
                && path
                    .extension()
                    .is_some_and(|ext| ext == "json" || ext == "ndjson")
            {
                push(path, files)?;
            }
        }
        // Depth first, in name order.
        stack.extend(below.into_iter().rev());
    }
    Ok(())
}

fn push(path: PathBuf, files: &mut Vec<PathBuf>) -> Result<(), CliError> {
    if files.len() >= FILES {
        return Err(CliError::usage(format!(
            "more than {FILES} files: give fewer at a time and merge the reports (cargo xtask \
             drift apply reads several)"
        )));
    }
    files.push(path);
    Ok(())
}

/// The operation a file answers by its name: the operationId its name starts with (up to the
/// first `.`), else its directory's name.
fn operation_of(file: &Path) -> Result<&'static str, CliError> {
    let stem = file
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.split('.').next());
    let parent = file
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    [stem, parent]
        .into_iter()
        .flatten()
        .find_map(|name| store_admin::OperationMeta::find(name).map(|meta| meta.operation_id))
        .ok_or_else(|| {
            CliError::usage(format!(
                "cannot tell which operation {} answers: name it after the operationId \
                 (list_orders.json, list_orders/1.json) or give --operation",
                shown(file)
            ))
        })
}
