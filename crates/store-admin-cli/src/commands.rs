//! What the generated operation commands (`generated_cli.rs`) share: the client and printer, the
//! paged list, the value parsers of flags, and the printing of bodies that hold no record.

use std::io::Read;
use std::num::NonZeroU64;
use std::path::Path;

use clap::Args;
use clap::builder::{PossibleValue, TypedValueParser};
use futures::StreamExt;
use serde::Serialize;
use store_admin::multipart::{FieldValue, Part};
use store_admin::{Call, Consistency, PageOptions, Paginate, Skipped, StoreAdmin};

use crate::error::CliError;
use crate::output::{Printer, Record, stderr_is_terminal, terminal_safe};
use crate::resume::{Export, Journal};

/// What every command needs: the client, the printer and the paging settings.
pub struct Ctx {
    /// The client (to the service or the sandbox).
    pub admin: StoreAdmin,
    /// Where records go.
    pub printer: Printer,
    /// Pages fetched at once by `--all`.
    pub concurrency: usize,
    /// The `--store` whose tokens are used (an export's journal records it), when known.
    pub store: Option<String>,
}

/// A paged list: one page (as asked), or with `--all` every page through the ergonomics crate's
/// concurrent pagination, streamed to the printer.
pub async fn paged<'a, R>(ctx: &'a Ctx, request: R, pages: PageArgs) -> Result<(), CliError>
where
    R: Paginate<'a> + Call<'a, Output = R::Response> + std::fmt::Debug,
    R::Item: Record,
{
    if pages.all {
        return export(ctx, request, &pages).await;
    }
    let mut request = request;
    if let Some(page) = pages.page {
        request = request.with_page(page);
    }
    if let Some(per_page) = pages.per_page.and_then(NonZeroU64::new) {
        request = request.with_per_page(per_page);
    }
    let parts = R::into_parts(request.call().await?);
    ctx.printer.list(&parts.items)?;
    if let Some(p) = parts.pagination
        && stderr_is_terminal()
        && p.total_pages > 1
    {
        crate::note!(
            "page {} of {} ({} records in all); --page N for another page, --all for every page",
            p.current_page,
            p.total_pages,
            p.total
        );
    }
    Ok(())
}

/// `--all`: every page, read as a consistent export (a record once, what moved while the list
/// was read found by reading it again), with `--resume FILE` continuing an interrupted one.
async fn export<'a, R>(ctx: &'a Ctx, request: R, pages: &PageArgs) -> Result<(), CliError>
where
    R: Paginate<'a> + std::fmt::Debug,
    R::Item: Record,
{
    let skipped = Skipped::new();
    let per_page = pages.per_page.unwrap_or(60);
    let (mut journal, consistency) = match &pages.resume {
        Some(path) => {
            let export = Export {
                operation: R::OPERATION_ID,
                base_url: ctx.admin.base_url(),
                store: ctx.store.as_deref(),
                query: crate::resume::query_of(&format!("{request:?}")),
                format: ctx.printer.format(),
                per_page,
            };
            let (journal, consistency) = Journal::open(path, export)?;
            (Some(journal), consistency)
        }
        None => (None, Consistency::new()),
    };
    if let Some(journal) = &journal
        && journal.finished
    {
        crate::note!(
            "the export of {} has finished already ({} records); give --resume a new file name \
             to export again",
            journal.path().display(),
            journal.written_before
        );
        return Ok(());
    }
    let before = journal.as_ref().map_or(0, |j| j.written_before);
    let header = !journal.as_ref().is_some_and(|j| j.continues);
    let options = PageOptions::default()
        .per_page(per_page)
        .concurrency(ctx.concurrency)
        .skip_undecodable(&skipped)
        .consistent(&consistency);
    let mut written = 0u64;
    let ran_out = std::cell::Cell::new(false);
    let result = ctx
        .printer
        .stream(
            within_job(request.pages(options), pages.job_timeout, &ran_out),
            header,
            |page| {
                written += page.items.len() as u64;
                // The stream is not polled while this runs: the keys are this page's.
                match journal.as_mut() {
                    Some(journal) => journal.page_written(&consistency, consistency.page_keys()),
                    None => Ok(()),
                }
            },
        )
        .await;
    let result = match result {
        Ok(_) if ran_out.get() => Err(CliError::TimedOut(format!(
            "the export's time limit (--job-timeout {} s) ran out; every page written is whole",
            pages.job_timeout.unwrap_or_default()
        ))),
        other => other,
    };
    match result {
        Ok(_) => {}
        Err(CliError::Closed) => return Err(CliError::Closed),
        Err(error) => {
            let hint = match &journal {
                Some(journal) => format!(
                    "run the same command again to continue after page {} (with --resume {} and \
                     the output appended to with >>)",
                    consistency.checkpoint().page,
                    journal.path().display()
                ),
                None => "with --resume FILE (a journal of the pages written) an export continues \
                         where it stopped when it is run again"
                    .to_owned(),
            };
            return Err(CliError::Stopped {
                source: Box::new(error),
                written: before + written,
                hint,
            });
        }
    }
    let report = consistency.report();
    if let (Some(journal), Some(report)) = (journal.as_mut(), &report) {
        journal.finished(report)?;
    }
    if let Some(report) = &report
        && !report.complete
    {
        crate::note!("{}", terminal_safe(&report.to_string(), false));
        report_skipped(&skipped, before + written)?;
        return Err(CliError::Quiet(crate::error::exit::INCOMPLETE));
    }
    if let Some(report) = &report
        && (report.passes > 1 || report.repeated > 0)
        && stderr_is_terminal()
    {
        crate::note!("{}", terminal_safe(&report.to_string(), false));
    }
    report_skipped(&skipped, before + written)?;
    if let Some(report) = &report {
        short_of_total(report)?;
    }
    Ok(())
}

/// `pages` ended when the export's time limit (`--job-timeout`, in seconds) runs out, between two
/// pages (a page being fetched then is dropped, never half written), with `ran_out` set; as they
/// are without one.
fn within_job<'s, S: futures::Stream + 's>(
    pages: S,
    limit: Option<f64>,
    ran_out: &'s std::cell::Cell<bool>,
) -> impl futures::Stream<Item = S::Item> + 's {
    let deadline = limit
        .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
        .and_then(|limit| tokio::time::Instant::now().checked_add(limit));
    let ends = async move {
        match deadline {
            Some(deadline) => {
                tokio::time::sleep_until(deadline).await;
                ran_out.set(true);
            }
            None => std::future::pending().await,
        }
    };
    pages.take_until(ends)
}

/// After a finished `--all`: fewer records than the list's own `pagination.total` (as last
/// seen) is an export that missed some (a journal changed by hand, a list that ended early):
/// said on standard error, exit [`exit::INCOMPLETE`](crate::error::exit::INCOMPLETE).
fn short_of_total(report: &store_admin::ConsistencyReport) -> Result<(), CliError> {
    let Some(total) = report.last_total else {
        return Ok(());
    };
    if report.yielded >= total {
        return Ok(());
    }
    crate::note!(
        "the export wrote {} record(s), but the list's total is {total}: {} record(s) are \
         missing from the output",
        report.yielded,
        total - report.yielded
    );
    Err(CliError::Quiet(crate::error::exit::INCOMPLETE))
}

/// The command that lists the export logs, where a job that did not finish in time shows its
/// file later (`tests/jobs.rs` checks it is the command of `list_export_logs` in the generated
/// command table; the table is not read from here: the generated commands are built on this
/// module).
pub const EXPORT_LOGS_COMMAND: &str = "exports list-logs";

/// The rows of an import file `--wait` follows at most: their records are read through their
/// list, and kept (and printed) whole.
pub const MAX_FOLLOWED_ROWS: usize = 1000;

/// A background job's `--wait`: the export logs read before the job starts, and what the job
/// exports (the body's `type`, else the operation's kind), to find its file once it is listed.
pub struct Job {
    before: store_admin::waiters::ExportLogs,
    kind: String,
    /// When the wait ends, from its start (the snapshot before the job included).
    deadline: tokio::time::Instant,
}

/// The time left until `deadline`, as a waiter's deadline.
fn left(deadline: tokio::time::Instant) -> std::time::Duration {
    deadline.saturating_duration_since(tokio::time::Instant::now())
}

impl Job {
    /// With `--wait`, reads the export logs now (before the job starts); `body` is the request's
    /// body, whose `type` (`prices`, `customers`...) names what is exported better than `kind`.
    pub async fn before(
        ctx: &Ctx,
        wait: &WaitArgs,
        kind: &str,
        body: Option<serde_json::Value>,
    ) -> Result<Option<Job>, CliError> {
        if !wait.wait {
            return Ok(None);
        }
        let deadline = wait.deadline();
        let kind = body
            .as_ref()
            .and_then(|b| b.get("type"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or(kind)
            .to_owned();
        let snapshot = store_admin::waiters::ExportLogs::snapshot(&ctx.admin);
        let before = tokio::time::timeout_at(deadline, snapshot)
            .await
            .map_err(|_| {
                CliError::TimedOut(format!(
                    "--wait-timeout {}: the export logs could not be read before the {kind} \
                     export was started (nothing was started)",
                    wait.wait_timeout
                ))
            })??;
        Ok(Some(Job {
            before,
            kind,
            deadline,
        }))
    }

    /// Waits for the job's file and prints its export log entry.
    pub async fn finish(self, ctx: &Ctx) -> Result<(), CliError> {
        use store_admin::waiters::{WaitError, WaitOptions};
        if stderr_is_terminal() {
            crate::note!("waiting for the {} export to finish...", self.kind);
        }
        let options = WaitOptions::default().deadline(left(self.deadline));
        match self
            .before
            .wait_until_exported(&ctx.admin, Some(&self.kind), &options)
            .await
        {
            Ok(entry) => ctx.printer.one(&entry),
            Err(WaitError::Poll { source, .. }) => Err(CliError::Service(source)),
            Err(timed_out) => Err(CliError::TimedOut(format!(
                "{timed_out}; it may still finish: see `store-admin {EXPORT_LOGS_COMMAND}`"
            ))),
        }
    }
}

/// An import's `--wait`: the records of the file's rows as they were before the upload (found
/// by the file's `sku` or `email` column), to wait until each has appeared or changed.
pub struct ImportJob {
    watch: store_admin::waiters::ImportWatch,
    deadline: tokio::time::Instant,
    /// Rows of the file with a key, and how many are followed.
    rows: usize,
}

impl ImportJob {
    /// With `--wait`, reads the keys of the rows of `file` (CSV with a header line) and the
    /// records they name now, before the upload: at most [`MAX_FOLLOWED_ROWS`] rows, spread over
    /// the file (its last row included), read through their list.
    pub async fn before(
        ctx: &Ctx,
        wait: &WaitArgs,
        kind: &str,
        file: &Path,
    ) -> Result<Option<ImportJob>, CliError> {
        use store_admin::waiters::{ImportKind, ImportWatch};
        if !wait.wait {
            return Ok(None);
        }
        let deadline = wait.deadline();
        let kind = match kind {
            "customers" => ImportKind::Customers,
            "products" => ImportKind::Products,
            other => {
                return Err(CliError::usage(format!(
                    "--wait: the service shows nothing of a {other} import to wait for"
                )));
            }
        };
        let column = kind.key_field();
        if file == Path::new("-") {
            return Err(CliError::usage(format!(
                "--wait reads the {column} column of the file to know which {} to wait for: \
                 give the file's path, not standard input",
                kind.name()
            )));
        }
        let keys = import_keys(file, column)?;
        if keys.is_empty() {
            return Err(CliError::usage(format!(
                "--wait: {} has no row with a {column}, so there is nothing to wait for",
                file.display()
            )));
        }
        let rows = keys.len();
        let followed = spread(keys, MAX_FOLLOWED_ROWS);
        if followed.len() < rows {
            crate::note!(
                "--wait checks {} of the file's {rows} rows (spread over the file, its last row \
                 included); the others are not checked",
                followed.len()
            );
        }
        let snapshot = ImportWatch::snapshot(&ctx.admin, kind, followed);
        let watch = tokio::time::timeout_at(deadline, snapshot)
            .await
            .map_err(|_| {
                CliError::TimedOut(format!(
                    "--wait-timeout {}: the {} of the file could not be read before the upload \
                     (nothing was uploaded)",
                    wait.wait_timeout,
                    kind.name()
                ))
            })??;
        Ok(Some(ImportJob {
            watch,
            deadline,
            rows,
        }))
    }

    /// Waits until every followed row's record has appeared or changed, and prints them.
    pub async fn finish(self, ctx: &Ctx) -> Result<(), CliError> {
        use store_admin::waiters::{WaitError, WaitOptions};
        if stderr_is_terminal() {
            crate::note!("waiting for the import to finish...");
        }
        let options = WaitOptions::default().deadline(left(self.deadline));
        let checked = format!(
            "checked {} of the file's {} rows",
            self.watch.len(),
            self.rows
        );
        match self.watch.wait_until_imported(&ctx.admin, &options).await {
            Ok(records) => {
                if self.watch.len() < self.rows {
                    crate::note!("{checked}: all imported");
                }
                ctx.printer.data(&serde_json::Value::Array(records))
            }
            Err(WaitError::Poll { source, .. }) => Err(CliError::Service(source)),
            Err(timed_out) => Err(CliError::TimedOut(format!(
                "{timed_out}; {checked}; it may still finish"
            ))),
        }
    }
}

/// At most `most` of `keys`, spread evenly over them, the first and the last included.
fn spread(keys: Vec<String>, most: usize) -> Vec<String> {
    let count = keys.len();
    if count <= most {
        return keys;
    }
    if most < 2 {
        return keys.into_iter().skip(count - most).collect();
    }
    let mut picked = Vec::with_capacity(most);
    let mut next = 0usize;
    for (at, key) in keys.into_iter().enumerate() {
        // The `next`th of `most` picks sits at `next * (count - 1) / (most - 1)`.
        if next < most && at == next * (count - 1) / (most - 1) {
            picked.push(key);
            next += 1;
        }
    }
    picked
}

/// The values of `column` in the CSV file at `path` (its header line names the columns), in
/// order, without empty ones or repeats.
fn import_keys(path: &Path, column: &str) -> Result<Vec<String>, CliError> {
    let not_csv = |why: String| {
        CliError::usage(format!(
            "--wait reads the {column} column of a CSV file (a header line, then a row per \
             record) to know what to wait for, and {} {why}; an Excel file cannot be read: \
             export it as CSV, or upload it without --wait",
            path.display()
        ))
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
    let headers = reader
        .headers()
        .map_err(|e| not_csv(format!("is not CSV ({e})")))?
        .clone();
    let at = headers
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case(column))
        .ok_or_else(|| not_csv(format!("has no {column} column")))?;
    let mut keys = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for row in reader.records() {
        let row = row.map_err(|e| not_csv(format!("is not CSV ({e})")))?;
        if let Some(key) = row.get(at).map(str::trim).filter(|k| !k.is_empty())
            && seen.insert(key.to_owned())
        {
            keys.push(key.to_owned());
        }
    }
    Ok(keys)
}

/// After `--all`: the records it skipped as undecodable, on standard error, and exit
/// [`exit::INCOMPLETE`](crate::error::exit::INCOMPLETE) when there were any.
fn report_skipped(skipped: &Skipped, written: u64) -> Result<(), CliError> {
    if skipped.is_empty() {
        return Ok(());
    }
    let records = skipped.records();
    let mut text = format!(
        "skipped {} record(s) that do not match the API document ({written} written):",
        skipped.len()
    );
    for record in &records {
        // The runtime has escaped and shortened the record; escaped again all the same.
        text.push_str("\n  ");
        text.push_str(&terminal_safe(&record.to_string(), false));
    }
    if skipped.len() > records.len() {
        text.push_str(&format!(
            "\n  ... and {} more",
            skipped.len() - records.len()
        ));
    }
    crate::note!("{text}");
    Err(CliError::Quiet(crate::error::exit::INCOMPLETE))
}

/// A response body whose type is not a [`Record`]: its record (or list), the `data` of the
/// service's envelope, printed in the chosen format like every other command's (secrets redacted).
pub fn print_document<T: Serialize>(ctx: &Ctx, body: &T) -> Result<(), CliError> {
    let value = serde_json::to_value(body)
        .map_err(|e| CliError::other(format!("cannot print the response: {e}")))?;
    ctx.printer.data(&value)
}

/// A response that is a file (an invoice, an export): its bytes on standard output.
pub async fn print_bytes(body: progenitor_client::ByteStream) -> Result<(), CliError> {
    use std::io::Write;
    let mut stream = body.into_inner();
    let mut out = std::io::stdout().lock();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| CliError::other(format!("reading the response: {e}")))?;
        out.write_all(&chunk)?;
    }
    out.flush()?;
    Ok(())
}

/// A scalar flag's value as a form field's text (booleans as `1`/`0`, as the service's form
/// validation reads them and as the client's typed upload builders send them).
pub fn form_text(value: impl FormText) -> FieldValue {
    FieldValue::Text(value.form_text())
}

/// A value a generated upload command sends as text.
pub trait FormText {
    /// The text on the form.
    fn form_text(self) -> String;
}

impl FormText for String {
    fn form_text(self) -> String {
        self
    }
}

impl FormText for i64 {
    fn form_text(self) -> String {
        self.to_string()
    }
}

impl FormText for f64 {
    fn form_text(self) -> String {
        self.to_string()
    }
}

impl FormText for bool {
    fn form_text(self) -> String {
        if self { "1" } else { "0" }.to_owned()
    }
}

/// A file flag's value as a form's file part: the file at `path` (`-`: standard input), named
/// by its file name and typed by its extension. A file that cannot be read, or is empty, is a
/// usage error naming the path (nothing is sent).
pub fn form_file(path: &Path) -> Result<FieldValue, CliError> {
    let (bytes, name) = if path == Path::new("-") {
        crate::body::claim_stdin("a file to upload")?;
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| {
                CliError::usage(format!("cannot read the file from standard input: {e}"))
            })?;
        (bytes, "upload".to_owned())
    } else {
        let bytes = std::fs::read(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "upload".to_owned());
        (bytes, name)
    };
    if bytes.is_empty() {
        let shown = if path == Path::new("-") {
            "standard input".to_string()
        } else {
            crate::output::terminal_safe(&path.display().to_string(), false)
        };
        return Err(CliError::usage(format!(
            "{shown} is empty: there is nothing to upload"
        )));
    }
    let mime = mime_guess::from_path(&name).first_or_octet_stream();
    Ok(FieldValue::File(
        Part::bytes(bytes).file_name(name).mime(mime.essence_str()),
    ))
}

/// A flag whose value is one of `values` (a closed `enum` of the document), parsed into `T`.
pub fn choice<T>(values: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    clap::builder::PossibleValuesParser::new(values.iter().map(|v| PossibleValue::new(*v)))
        .try_map(|text: String| text.parse::<T>().map_err(|e| e.to_string()))
}

/// A flag whose known values (`x-known-values` of the document) are shown in help and completed
/// by shells, while any other value is accepted: the service adds values over time.
pub fn known<T>(values: &'static [&'static str]) -> KnownValues<T> {
    KnownValues {
        values,
        marker: std::marker::PhantomData,
    }
}

/// See [`known`].
#[derive(Clone)]
pub struct KnownValues<T> {
    values: &'static [&'static str],
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> TypedValueParser for KnownValues<T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let text = clap::builder::NonEmptyStringValueParser::new().parse_ref(cmd, arg, value)?;
        text.parse::<T>().map_err(|e| {
            let mut error = clap::Error::new(clap::error::ErrorKind::ValueValidation).with_cmd(cmd);
            error.insert(
                clap::error::ContextKind::InvalidValue,
                clap::error::ContextValue::String(format!("{text}: {e}")),
            );
            error
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values.iter().map(|v| PossibleValue::new(*v))))
    }
}

/// A positive integer flag (`minimum: 1` in the document).
pub fn positive(text: &str) -> Result<NonZeroU64, String> {
    match text.parse::<u64>() {
        Ok(n) => NonZeroU64::new(n).ok_or_else(|| "must be 1 or more".to_string()),
        Err(_) => Err(format!("{text:?} is not a positive whole number")),
    }
}

/// A number-or-string flag (`NumberOrString`, `IntegerOrString` of the document): a JSON number
/// when the text is one exactly as written (`10`, `-5`, `12.5`), else the text as a string
/// (`10.50`, `007`, `SKU-1`), so that nothing typed is rewritten.
pub fn number_or_string(text: &str) -> Result<serde_json::Value, String> {
    if text.is_empty() {
        return Err("a value is required".to_string());
    }
    if let Ok(number) = text.parse::<serde_json::Number>()
        && number.to_string() == text
    {
        return Ok(serde_json::Value::Number(number));
    }
    Ok(serde_json::Value::String(text.to_string()))
}

/// A `--FIELD-json` flag: JSON text (or `@FILE`, the file's JSON) that must be `expect`
/// (`object`, `array` or `any`); an error shows `shape`, an example of what the field takes.
pub fn json_flag(
    expect: &'static str,
    shape: &'static str,
) -> impl Fn(&str) -> Result<serde_json::Value, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let owned;
        let json = match text.strip_prefix('@') {
            Some(path) => {
                owned = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {path}: {e}"))?;
                owned.as_str()
            }
            None => text,
        };
        let value: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| format!("not JSON ({e}); expected e.g. {shape}"))?;
        let fits = match expect {
            "object" => value.is_object(),
            "array" => value.is_array(),
            _ => true,
        };
        if fits {
            Ok(value)
        } else {
            Err(format!("expected a JSON {expect}, e.g. {shape}"))
        }
    }
}

impl FormText for serde_json::Value {
    fn form_text(self) -> String {
        match self {
            serde_json::Value::String(text) => text,
            other => other.to_string(),
        }
    }
}

/// Levenshtein distance of two short texts (flag names), for [`relevant_suggestion`].
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            current.push(
                (previous[j] + cost)
                    .min(previous[j + 1] + 1)
                    .min(current[j] + 1),
            );
        }
        previous = current;
    }
    previous[b.len()]
}

/// clap's "a similar argument exists" for an unknown flag, kept only when it can be what was
/// meant: a flag of the command itself, or a global flag that the unknown one misspells (two
/// edits at most). `coupons create --amount` is not a misspelled `--timeout`.
pub fn relevant_suggestion(error: clap::Error, root: &clap::Command) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let given = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(text)) => text.split('=').next().unwrap_or(text).to_string(),
        _ => return error,
    };
    let suggested = match error.get(ContextKind::SuggestedArg) {
        Some(ContextValue::String(text)) => text.clone(),
        _ => return error,
    };
    let is_global = root.get_arguments().any(|arg| {
        arg.is_global_set()
            && arg
                .get_long()
                .is_some_and(|long| suggested == format!("--{long}"))
    });
    if !is_global || distance(&given, &suggested) <= 2 {
        return error;
    }
    let mut plain = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(root);
    for (kind, value) in error.context() {
        // The usage line clap drew with the suggested flag goes too.
        if !matches!(
            kind,
            ContextKind::SuggestedArg | ContextKind::Suggested | ContextKind::Usage
        ) {
            plain.insert(kind, value.clone());
        }
    }
    plain
}

/// Page selection of a paged list.
#[derive(Args, Debug, Clone)]
pub struct PageArgs {
    /// The page to return, from 1.
    #[arg(long, value_name = "N", conflicts_with = "all", value_parser = crate::global::parse_page)]
    pub page: Option<NonZeroU64>,
    /// Items per page, 1 to 60 [default: 15, or 60 with --all].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=60))]
    pub per_page: Option<u64>,
    /// Every page, fetched concurrently, printed in order as they arrive, each record once.
    ///
    /// A record is printed once even when the store changes while it is read (a record created
    /// or deleted moves the others between pages): the list is then read again for what moved
    /// past the pages read. Exit 5 when it was still changing after three readings.
    #[arg(long)]
    pub all: bool,
    /// With --all: a journal of the pages written, to continue an interrupted export.
    ///
    /// Run the same command again with the same FILE and the output appended to
    /// (`>> out.ndjson`; NDJSON or CSV): the export continues where it stopped, no record lost
    /// or repeated.
    #[arg(long, value_name = "FILE", requires = "all")]
    pub resume: Option<std::path::PathBuf>,
    /// With --all: the time limit of the whole export, in seconds, beside each call's own
    /// (--operation-timeout); retries, waits for the store's rate limit and token refreshes are
    /// spent from it.
    ///
    /// When it runs out the export stops after the last whole page written (exit 6), and says
    /// how to continue it (with --resume).
    #[arg(long, value_name = "SECONDS", requires = "all", value_parser = crate::global::positive_seconds)]
    pub job_timeout: Option<f64>,
}

/// Waiting for a background job (an export, an import) to finish.
#[derive(Args, Debug, Clone, Copy)]
pub struct WaitArgs {
    /// Wait until the job has finished and print its result instead of the confirmation.
    ///
    /// An export's result is its file's entry in the export logs; an import's, the records of
    /// the file's rows once each has appeared or changed (found by the CSV file's `sku` or
    /// `email` column, read through their list; 1000 rows at most, spread over the file, are
    /// checked).
    #[arg(long)]
    pub wait: bool,
    /// With --wait, give up after this many seconds (exit 6; the job may still finish).
    ///
    /// It bounds the whole wait: the reading before the job starts, and every poll.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, requires = "wait")]
    pub wait_timeout: u64,
}

impl WaitArgs {
    /// When the wait ends, counted from now (`--wait-timeout`).
    fn deadline(&self) -> tokio::time::Instant {
        let now = tokio::time::Instant::now();
        now.checked_add(std::time::Duration::from_secs(self.wait_timeout))
            .unwrap_or_else(|| now + std::time::Duration::from_secs(86_400 * 365 * 30))
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spread_keeps_at_most_so_many_keys_over_the_whole_list_the_ends_included() {
        let keys: Vec<String> = (0..10).map(|n| n.to_string()).collect();
        assert_eq!(spread(keys.clone(), 20), keys);
        assert_eq!(spread(keys.clone(), 4), ["0", "3", "6", "9"]);
        assert_eq!(spread(keys.clone(), 1), ["9"]);
        let many: Vec<String> = (0..8791).map(|n| n.to_string()).collect();
        let picked = spread(many, 1000);
        assert_eq!(picked.len(), 1000);
        assert_eq!(picked.first().map(String::as_str), Some("0"));
        assert_eq!(picked.last().map(String::as_str), Some("8790"));
    }
}
