//! Printing records as JSON, NDJSON, a table or CSV, one at a time or streamed page by page.
//!
//! Every record is turned into JSON first and secrets are redacted from it ([`redact`]), whatever
//! the format. Columns: a table shows each type's chosen columns ([`Record::COLUMNS`], most
//! important first) that fit the terminal's width (`COLUMNS`, else the terminal's size), cutting or
//! dropping the least important first and never the type's key column ([`Record::KEY_COLUMN`]);
//! `-o wide` shows them all, uncut. A cell shows money as `149.50 SAR`, a date without its
//! fraction of a second, an object by its name (never as JSON). CSV shows every top-level property
//! of the type's schema in the document ([`Record::CSV_COLUMNS`], which the generator reads from
//! the document: `id` first, then alphabetical), objects expanded into dotted columns but a date
//! in one cell, arrays as compact JSON, so that its header is known before the first record
//! arrives.

use std::io::{self, IsTerminal, Write};

use comfy_table::{CellAlignment, Table, presets};
use futures::{Stream, StreamExt};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use serde_json::Value;
use store_admin::Page;

use crate::error::CliError;
use crate::global::Format;
pub(crate) use crate::safe::csv_text;
pub use crate::safe::{REDACTED, SECRET_KEYS, redact, terminal_safe};

/// Widest table cell, in characters, before it is cut with `…`.
const CELL_WIDTH: usize = 48;

/// A type the service returns, with the columns a table shows of it.
pub trait Record: Serialize {
    /// Table columns: header and JSON pointer into the record, most important first.
    const COLUMNS: &'static [(&'static str, &'static str)];
    /// The pointer of the column a list of this type is for (an export's download link): a
    /// narrow table never drops nor cuts it.
    const KEY_COLUMN: Option<&'static str> = None;
    /// The top-level fields in the document's order (a record's view follows it, after `id`,
    /// the name and the status).
    const FIELDS: &'static [&'static str] = &[];
    /// The CSV columns: every property, `id` first then alphabetical, a property that is
    /// always an object expanded into dotted columns (`total.amount`, `total.currency`) up to
    /// three levels, but a date in one cell; arrays and values of several shapes are one column
    /// of compact JSON. Read from the document by the generator (`xtask/src/cli_gen/columns.rs`),
    /// so that the header is known before the first record arrives.
    const CSV_COLUMNS: &'static [&'static str];
}

/// Prints records in one format on standard output.
pub struct Printer {
    format: Format,
    progress: bool,
}

impl Printer {
    /// A printer of `format`; a progress bar is drawn on standard error when `progress`.
    pub fn new(format: Format, progress: bool) -> Self {
        Printer { format, progress }
    }

    /// The format in use.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Prints one record (a table shows it as field/value lines).
    pub fn one<T: Record>(&self, record: &T) -> Result<(), CliError> {
        let value = to_json(record)?;
        let mut out = io::stdout().lock();
        match self.format {
            Format::Json => writeln!(out, "{}", pretty(&value))?,
            Format::Ndjson => writeln!(out, "{}", compact(&value))?,
            Format::Csv => {
                let columns = T::CSV_COLUMNS;
                let mut writer = csv::Writer::from_writer(&mut out);
                write_csv_header(&mut writer, columns)?;
                write_csv_row(&mut writer, columns, &value)?;
                writer.flush()?;
            }
            Format::Table | Format::Wide => write!(
                out,
                "{}",
                render_fields(&value, T::FIELDS, self.format == Format::Wide)
            )?,
        }
        out.flush()?;
        Ok(())
    }

    /// Prints a whole list.
    pub fn list<T: Record>(&self, records: &[T]) -> Result<(), CliError> {
        let values = records.iter().map(to_json).collect::<Result<Vec<_>, _>>()?;
        self.values::<T>(&values)
    }

    fn values<T: Record>(&self, values: &[Value]) -> Result<(), CliError> {
        let mut out = io::stdout().lock();
        match self.format {
            Format::Json => writeln!(out, "{}", pretty(&Value::Array(values.to_vec())))?,
            Format::Ndjson => {
                for value in values {
                    writeln!(out, "{}", compact(value))?;
                }
            }
            Format::Csv => {
                let columns = T::CSV_COLUMNS;
                let mut writer = csv::Writer::from_writer(&mut out);
                write_csv_header(&mut writer, columns)?;
                for value in values {
                    write_csv_row(&mut writer, columns, value)?;
                }
                writer.flush()?;
            }
            Format::Table | Format::Wide => {
                if values.is_empty() {
                    crate::note!("(no records)");
                } else {
                    let layout = self.layout();
                    write!(
                        out,
                        "{}",
                        render_table(T::COLUMNS, T::KEY_COLUMN, values, layout)
                    )?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    /// Prints every item of a page stream. NDJSON and CSV are written as pages arrive; JSON and
    /// tables once the last page is in (so that JSON is a whole document or nothing). A progress
    /// bar counts items on standard error when it is a terminal. On an error, what arrived before
    /// it stays printed and the error is returned.
    ///
    /// `header`: whether a CSV export writes its header line (not when it continues an output
    /// that has it). `written` is called after each page is on standard output (flushed, for
    /// NDJSON and CSV), with the page.
    pub async fn stream<T, S, W>(
        &self,
        pages: S,
        header: bool,
        mut written: W,
    ) -> Result<u64, CliError>
    where
        T: Record,
        S: Stream<Item = Result<Page<T>, store_admin::Error>>,
        W: FnMut(&Page<T>) -> Result<(), CliError>,
    {
        let bar = self.progress_bar();
        let mut pages = std::pin::pin!(pages);
        let mut collected: Vec<Value> = Vec::new();
        let mut count = 0u64;
        let columns = T::CSV_COLUMNS;
        let mut csv_writer =
            (self.format == Format::Csv).then(|| csv::Writer::from_writer(io::stdout()));
        if let Some(writer) = csv_writer.as_mut()
            && header
        {
            write_csv_header(writer, columns)?;
            writer.flush()?;
        }
        let result: Result<(), CliError> = async {
            while let Some(page) = pages.next().await {
                let page = page?;
                if let Some(p) = &page.pagination
                    && bar.length().is_none()
                {
                    bar.set_length(p.total.max(0) as u64);
                }
                let values = page
                    .items
                    .iter()
                    .map(to_json)
                    .collect::<Result<Vec<_>, _>>()?;
                count += values.len() as u64;
                bar.inc(values.len() as u64);
                match self.format {
                    Format::Ndjson => {
                        let mut out = io::stdout().lock();
                        for value in &values {
                            writeln!(out, "{}", compact(value))?;
                        }
                        out.flush()?;
                    }
                    Format::Csv => {
                        if let Some(writer) = csv_writer.as_mut() {
                            for value in &values {
                                write_csv_row(writer, columns, value)?;
                            }
                            writer.flush()?;
                        }
                    }
                    Format::Json | Format::Table | Format::Wide => collected.extend(values),
                }
                written(&page)?;
            }
            Ok(())
        }
        .await;
        bar.finish_and_clear();
        result?;
        if matches!(self.format, Format::Json | Format::Table | Format::Wide) {
            self.values::<T>(&collected)?;
        }
        Ok(count)
    }

    /// How a table of this printer is laid out: `-o wide` uncut at any width, else within the
    /// terminal's width when there is one.
    fn layout(&self) -> Layout {
        if self.format == Format::Wide {
            Layout::Wide
        } else {
            Layout::Fit(table_width())
        }
    }

    fn progress_bar(&self) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} {bar:30} {pos}/{len} items  {elapsed}  eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    }

    /// Prints a JSON document as it is (after redaction) in JSON and NDJSON (`api`'s responses,
    /// pretty or on one line); a table or CSV shows its records (see [`Printer::data`]).
    pub fn document(&self, value: &Value) -> Result<(), CliError> {
        let mut value = value.clone();
        redact(&mut value);
        match self.format {
            Format::Json => write_stdout(format!("{}\n", pretty(&value)).as_bytes()),
            Format::Ndjson => write_stdout(format!("{}\n", compact(&value)).as_bytes()),
            Format::Table | Format::Wide | Format::Csv => self.data(&value),
        }
    }

    /// Prints the records of a response body whose type is not a [`Record`]: the `data` of the
    /// service's envelope (`{"status", "success", "data"}`) when it has one, else the body; a
    /// list as a list, an object as one record, in the chosen format. Columns come from the
    /// records themselves: CSV shows every top-level key (`id` first, then alphabetical; nested
    /// values as compact JSON), a table `id` and the first scalar keys.
    pub fn data(&self, body: &Value) -> Result<(), CliError> {
        let mut value = unwrap_envelope(body).clone();
        redact(&mut value);
        let text = match (&value, self.format) {
            (_, Format::Json) => format!("{}\n", pretty(&value)),
            (Value::Array(items), Format::Ndjson) => {
                items.iter().map(|v| format!("{}\n", compact(v))).collect()
            }
            (_, Format::Ndjson) => format!("{}\n", compact(&value)),
            (Value::Array(items), Format::Csv) => dynamic_csv(items)?,
            (Value::Object(_), Format::Csv) => dynamic_csv(std::slice::from_ref(&value))?,
            (Value::Array(items), Format::Table | Format::Wide) if items.is_empty() => {
                crate::note!("(no records)");
                return Ok(());
            }
            (Value::Array(items), Format::Table | Format::Wide) => {
                let columns = dynamic_table_columns(items);
                let columns: Vec<(&str, &str)> = columns
                    .iter()
                    .map(|(h, p)| (h.as_str(), p.as_str()))
                    .collect();
                render_table(&columns, None, items, self.layout())
            }
            (Value::Object(_), Format::Table | Format::Wide) => {
                render_fields(&value, &[], self.format == Format::Wide)
            }
            (Value::Null, Format::Table | Format::Wide | Format::Csv) => return Ok(()),
            (scalar, Format::Table | Format::Wide | Format::Csv) => {
                let text = match scalar {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                if self.format == Format::Csv {
                    format!("{}\n", csv_text(&text))
                } else {
                    format!("{}\n", terminal_safe(&text, true))
                }
            }
        };
        write_stdout(text.as_bytes())
    }
}

/// The `data` of the service's envelope (an object with `data` and at least one of `status`,
/// `success`, `pagination`), else the value itself.
pub fn unwrap_envelope(body: &Value) -> &Value {
    match body {
        Value::Object(map)
            if map.contains_key("data")
                && ["status", "success", "pagination"]
                    .iter()
                    .any(|k| map.contains_key(*k)) =>
        {
            &map["data"]
        }
        other => other,
    }
}

/// CSV of records whose type is not known: every top-level key of any record, `id` first then
/// alphabetical; keys (they come from the service) are escaped like cells.
fn dynamic_csv(items: &[Value]) -> Result<String, CliError> {
    let mut keys: Vec<String> = Vec::new();
    let mut scalars = false;
    for item in items {
        match item {
            Value::Object(map) => {
                for key in map.keys() {
                    if !keys.contains(key) {
                        keys.push(key.clone());
                    }
                }
            }
            _ => scalars = true,
        }
    }
    keys.sort();
    if let Some(at) = keys.iter().position(|c| c == "id") {
        let id = keys.remove(at);
        keys.insert(0, id);
    }
    if scalars && keys.is_empty() {
        keys.push("value".to_string());
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(keys.iter().map(|k| csv_text(k)))
        .map_err(csv_error)?;
    for item in items {
        let row = keys.iter().map(|key| match item {
            Value::Object(map) => csv_cell(map.get(key)),
            scalar => csv_cell(Some(scalar)),
        });
        writer.write_record(row).map_err(csv_error)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| CliError::other(format!("writing CSV failed: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Table columns of records whose type is not known: `id`, then the keys of the first record
/// whose values are shown compactly (scalars, money, dates), six at most.
fn dynamic_table_columns(items: &[Value]) -> Vec<(String, String)> {
    let Some(Value::Object(first)) = items.iter().find(|v| v.is_object()) else {
        return vec![("value".to_string(), String::new())];
    };
    let pointer = |key: &str| format!("/{}", key.replace('~', "~0").replace('/', "~1"));
    let mut columns: Vec<(String, String)> = Vec::new();
    if first.contains_key("id") {
        columns.push(("id".to_string(), "/id".to_string()));
    }
    for (key, value) in first {
        if columns.len() >= 6 {
            break;
        }
        let compact = match value {
            Value::Array(_) => false,
            Value::Object(map) => !object_text(map).is_empty(),
            _ => true,
        };
        if key != "id" && compact {
            columns.push((terminal_safe(key, false), pointer(key)));
        }
    }
    if columns.is_empty() {
        columns.push(("value".to_string(), String::new()));
    }
    columns
}

/// Whether standard error is a terminal (progress bars are drawn only then).
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// The default format: a table on a terminal, JSON otherwise.
pub fn default_format() -> Format {
    if io::stdout().is_terminal() {
        Format::Table
    } else {
        Format::Json
    }
}

/// Set when a line could not be written to standard error (a full disk, a closed stream): the
/// command then exits 1 even if it succeeded otherwise.
static STDERR_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes one line on standard error, never panicking (unlike `eprintln!`): a failure is
/// remembered ([`stderr_failed`]) and turns the exit code into 1.
pub fn stderr_line(args: std::fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    if writeln!(err, "{args}").and_then(|()| err.flush()).is_err() {
        STDERR_FAILED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Whether a line meant for standard error could not be written.
pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(std::sync::atomic::Ordering::SeqCst)
}

/// `eprintln!` that never panics: see [`stderr_line`].
#[macro_export]
macro_rules! note {
    () => {
        $crate::output::stderr_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr_line(format_args!($($arg)*))
    };
}

/// Which standard streams were closed before Rust's runtime started (bit 1: standard output, bit
/// 2: standard error), as [`note_closed_streams_at_start`] saw them.
static CLOSED_AT_START: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Whether the descriptor of `stream` is closed: duplicating it fails with `EBADF`.
#[cfg(unix)]
fn is_closed(stream: std::os::fd::BorrowedFd<'_>) -> bool {
    stream
        .try_clone_to_owned()
        .is_err_and(|e| e.raw_os_error() == Some(EBADF))
}

/// `EBADF`, the same on Linux, the BSDs and macOS.
#[cfg(unix)]
const EBADF: i32 = 9;

/// Notes which standard streams are closed. Meant to run before Rust's runtime starts (the
/// binary calls it from a constructor): the runtime reopens a closed standard stream on
/// `/dev/null` before `main`, after which `>&-` looks like `>/dev/null`.
#[cfg(unix)]
pub fn note_closed_streams_at_start() {
    use std::os::fd::AsFd;
    let mut closed = 0;
    if is_closed(io::stdout().as_fd()) {
        closed |= 1;
    }
    if is_closed(io::stderr().as_fd()) {
        closed |= 2;
    }
    CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::SeqCst);
}

/// The standard stream (`"standard output"`, `"standard error"`) that is closed when the process
/// starts (`>&-`), if any. Rust's standard library drops writes to a closed stream silently, and a
/// file the command opens could take its descriptor: such a command stops before it does anything.
/// Where the runtime reopened it on `/dev/null` first, what the binary noted before (see
/// [`note_closed_streams_at_start`]) tells.
#[cfg(unix)]
pub fn closed_standard_stream() -> Option<&'static str> {
    use std::os::fd::AsFd;
    let at_start = CLOSED_AT_START.load(std::sync::atomic::Ordering::SeqCst);
    if at_start & 1 != 0 || is_closed(io::stdout().as_fd()) {
        return Some("standard output");
    }
    if at_start & 2 != 0 || is_closed(io::stderr().as_fd()) {
        return Some("standard error");
    }
    None
}

/// See the Unix version: elsewhere nothing is checked.
#[cfg(not(unix))]
pub fn closed_standard_stream() -> Option<&'static str> {
    None
}

/// Writes `bytes` on standard output and flushes: a closed pipe is [`CliError::Closed`] (exit 0),
/// any other failure (a full disk) an error (exit 1).
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(())
}

/// A record as redacted JSON.
pub fn to_json<T: Serialize>(record: &T) -> Result<Value, CliError> {
    let mut value = serde_json::to_value(record)
        .map_err(|e| CliError::other(format!("cannot print the record: {e}")))?;
    redact(&mut value);
    Ok(value)
}

/// A money amount as a decimal with at least two places (`3388` -> `3388.00`, `361.28`,
/// `0.125`), from a JSON number or a decimal string; `None` when it is neither.
fn money_amount(value: &Value) -> Option<String> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    let mut decimal = rust_decimal::Decimal::from_str_exact(&text)
        .or_else(|_| rust_decimal::Decimal::from_scientific(&text))
        .ok()?;
    if decimal.scale() < 2 {
        decimal.rescale(2);
    }
    Some(decimal.to_string())
}

/// A JSON number as text: an integral float prints as an integer (`1`, not `1.0`).
fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

fn compact(value: &Value) -> String {
    value.to_string()
}

fn csv_value<'a>(value: &'a Value, column: &str) -> Option<&'a Value> {
    column.split('.').try_fold(value, |v, key| v.get(key))
}

/// Whether `column` is the `amount` of a money object (`total.amount` beside `total.currency`).
fn is_money_amount(value: &Value, column: &str) -> bool {
    match column.rsplit_once('.') {
        Some((parent, "amount")) => {
            csv_value(value, parent).is_some_and(|p| p.get("currency").is_some())
        }
        _ => false,
    }
}

fn write_csv_header<W: Write>(
    writer: &mut csv::Writer<W>,
    columns: &[&str],
) -> Result<(), CliError> {
    writer.write_record(columns).map_err(csv_error)
}

fn write_csv_row<W: Write>(
    writer: &mut csv::Writer<W>,
    columns: &[&str],
    value: &Value,
) -> Result<(), CliError> {
    let row = columns.iter().map(|c| {
        let cell = csv_value(value, c);
        match cell
            .filter(|_| is_money_amount(value, c))
            .and_then(money_amount)
        {
            Some(amount) => amount,
            None => csv_cell(cell),
        }
    });
    writer.write_record(row).map_err(csv_error)
}

fn csv_error(error: csv::Error) -> CliError {
    match error.into_kind() {
        csv::ErrorKind::Io(e) => CliError::from(e),
        other => CliError::other(format!("writing CSV failed: {other:?}")),
    }
}

fn csv_cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => csv_text(s),
        Some(Value::Number(n)) => number_text(n),
        Some(Value::Object(map)) if date_text(map).is_some() => {
            csv_text(&date_text(map).unwrap_or_default())
        }
        Some(other) => csv_text(&other.to_string()),
    }
}

/// A date as a person reads it: `2026-11-28 14:05:09` for `2026-11-28 14:05:09.000000` or
/// `2026-11-28T14:05:09.123Z` (the zone, when the text has one, is kept: `…09Z`, `…09+03:00`).
/// Text that is not a date and time is returned as it is.
fn date_cell(text: &str) -> String {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    let shaped = bytes.len() >= 19
        && digits(0..4)
        && bytes[4] == b'-'
        && digits(5..7)
        && bytes[7] == b'-'
        && digits(8..10)
        && matches!(bytes[10], b' ' | b'T')
        && digits(11..13)
        && bytes[13] == b':'
        && digits(14..16)
        && bytes[16] == b':'
        && digits(17..19);
    if !shaped {
        return text.to_string();
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        rest = &fraction[end..];
    }
    format!("{} {}{rest}", &text[..10], &text[11..19])
}

/// The date of the service's date object (`{date, timezone_type, timezone}`), without its
/// fraction of a second.
fn date_text(map: &serde_json::Map<String, Value>) -> Option<String> {
    match map.get("date") {
        Some(Value::String(date))
            if map.contains_key("timezone") || map.contains_key("timezone_type") =>
        {
            Some(date_cell(date))
        }
        _ => None,
    }
}

/// What a table cell shows of an object: money as `amount currency` (the amount alone without a
/// currency), a date as [`date_cell`], anything else by its slug, name, label or title (a person
/// by first and last name); empty when it has none of these (never JSON).
fn object_text(map: &serde_json::Map<String, Value>) -> String {
    let text_of = |key: &str| match map.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(number_text(n)),
        _ => None,
    };
    if let Some(amount) = map.get("amount").and_then(money_amount) {
        return match text_of("currency") {
            Some(currency) => format!("{amount} {currency}"),
            None => amount,
        };
    }
    if let Some(date) = date_text(map) {
        return date;
    }
    for key in ["slug", "name", "label", "title"] {
        if let Some(text) = text_of(key) {
            return text;
        }
    }
    let person: Vec<String> = ["first_name", "last_name"]
        .iter()
        .filter_map(|k| text_of(k))
        .collect();
    person.join(" ")
}

/// The keys of an object that only names something: a status `{id, name, slug}`, `{name}`.
const LABEL_KEYS: [&str; 5] = ["id", "name", "slug", "label", "title"];

/// Whether an object only names something (a status `{id, name, slug}`, a `{name}`): every
/// key is one of [`LABEL_KEYS`], holds nothing, or holds such an object in turn (a status's
/// `customized: {id, name}`), and [`object_text`] has a text for it. A table's cell and a
/// record's view both show such an object as that text, never as JSON nor as its parts.
fn names_only(map: &serde_json::Map<String, Value>) -> bool {
    map.iter().all(|(key, value)| {
        LABEL_KEYS.contains(&key.as_str())
            || value.is_null()
            || matches!(value, Value::Object(inner) if names_only(inner))
    }) && !object_text(map).is_empty()
}

/// A cell of a table, uncut: scalars as text (a date and time without its fraction of a second),
/// objects by [`object_text`], an array of scalars or named objects as a list, any other array
/// by its length.
fn cell_text(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => date_cell(s),
        Some(Value::Object(map)) => object_text(map),
        Some(Value::Array(items)) if items.is_empty() => String::new(),
        Some(Value::Array(items)) => {
            let texts: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Value::Array(_) => String::new(),
                    other => cell_text(Some(other)),
                })
                .collect();
            if texts.iter().all(|t| !t.is_empty()) {
                texts.join(", ")
            } else {
                format!(
                    "{} item{}",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                )
            }
        }
        Some(Value::Number(n)) => number_text(n),
        Some(other) => other.to_string(),
    };
    terminal_safe(&text.replace(['\n', '\r', '\t'], " "), false)
}

/// A cell of a table (see [`cell_text`]), cut to [`CELL_WIDTH`].
fn table_cell(value: Option<&Value>) -> String {
    cut(&cell_text(value), CELL_WIDTH)
}

/// How many terminal cells `text` takes (a wide character two, a combining mark none).
fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` within `max` terminal cells, its end replaced with `…` when it is cut.
fn cut(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

fn new_table() -> Table {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table
}

fn finish(table: &mut Table) -> String {
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    let mut text = String::new();
    for line in table.to_string().lines() {
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// How a table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Every column, no cell cut (`-o wide`).
    Wide,
    /// Cells cut to [`CELL_WIDTH`], and the whole within this many characters when there is a
    /// limit.
    Fit(Option<usize>),
}

/// Spaces between two columns.
const GAP: usize = 2;

/// Narrowest a column is cut to before it is dropped instead.
const MIN_CUT: usize = 8;

/// The width a table fits in: `COLUMNS` when it is a positive number, else the width of the
/// terminal that standard output is; `None` (no limit) when neither.
fn table_width() -> Option<usize> {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
    {
        return Some(columns);
    }
    if !io::stdout().is_terminal() {
        return None;
    }
    console::Term::stdout()
        .size_checked()
        .map(|(_, columns)| usize::from(columns))
        .filter(|c| *c > 0)
}

/// The width of each column in a table at most `limit` wide (`None`: the column is left out).
/// `natural`: each column's widest cell; `headers`: each header's width; columns are in order of
/// importance: the last that is not the key is cut (down to [`MIN_CUT`] or its header) or else
/// dropped, until the whole fits or only the key column is left.
fn fit_widths(
    natural: &[usize],
    headers: &[usize],
    key: Option<usize>,
    limit: usize,
) -> Vec<Option<usize>> {
    let mut widths: Vec<Option<usize>> = natural.iter().map(|w| Some(*w)).collect();
    loop {
        let shown: Vec<usize> = widths.iter().flatten().copied().collect();
        let total = shown.iter().sum::<usize>() + GAP * shown.len().saturating_sub(1);
        if total <= limit {
            break;
        }
        let Some(last) = (0..widths.len())
            .rev()
            .find(|i| widths[*i].is_some() && Some(*i) != key)
        else {
            break;
        };
        let width = widths[last].unwrap_or(0);
        let excess = total - limit;
        let floor = MIN_CUT.max(headers[last]);
        widths[last] = (width > excess && width - excess >= floor).then(|| width - excess);
    }
    widths
}

fn render_table(
    columns: &[(&str, &str)],
    key: Option<&str>,
    values: &[Value],
    layout: Layout,
) -> String {
    let key = key.and_then(|k| columns.iter().position(|(_, p)| *p == k));
    let mut rows: Vec<Vec<String>> = values
        .iter()
        .map(|value| {
            columns
                .iter()
                .enumerate()
                .map(|(index, (_, pointer))| {
                    let text = cell_text(value.pointer(pointer));
                    if layout == Layout::Wide || Some(index) == key {
                        text
                    } else {
                        cut(&text, CELL_WIDTH)
                    }
                })
                .collect()
        })
        .collect();
    let headers: Vec<String> = columns.iter().map(|(h, _)| h.to_string()).collect();
    let header_widths: Vec<usize> = headers.iter().map(|h| width(h)).collect();
    let natural: Vec<usize> = (0..columns.len())
        .map(|i| {
            rows.iter()
                .map(|r| width(&r[i]))
                .chain([header_widths[i]])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let widths = match layout {
        Layout::Fit(Some(limit)) => fit_widths(&natural, &header_widths, key, limit),
        _ => natural.iter().map(|w| Some(*w)).collect(),
    };
    let kept: Vec<usize> = (0..columns.len())
        .filter(|i| widths[*i].is_some())
        .collect();
    for row in &mut rows {
        let cells: Vec<String> = kept
            .iter()
            .map(|i| match widths[*i] {
                Some(w) if w < natural[*i] => cut(&row[*i], w),
                _ => row[*i].clone(),
            })
            .collect();
        *row = cells;
    }
    let mut table = new_table();
    table.set_header(kept.iter().map(|i| headers[*i].clone()));
    for row in &rows {
        table.add_row(row.clone());
    }
    for index in 0..kept.len() {
        let numeric = rows.iter().any(|r| !r[index].is_empty())
            && rows
                .iter()
                .all(|r| r[index].is_empty() || r[index].parse::<f64>().is_ok());
        if numeric && let Some(column) = table.column_mut(index) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    finish(&mut table)
}

/// One record as `field  value` lines: `id`, the name, the status, then the other fields in
/// `order` (the document's), then any others; money and dates on one line each, other objects
/// flattened to dotted paths. `wide`: values are not cut.
fn render_fields(value: &Value, order: &[&str], wide: bool) -> String {
    let mut fields = Vec::new();
    match value {
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = Vec::new();
            let first = [
                "id",
                "name",
                "title",
                "label",
                "first_name",
                "last_name",
                "status",
            ];
            for name in first.iter().chain(order) {
                if let Some((key, _)) = map.get_key_value(*name)
                    && !keys.contains(&key)
                {
                    keys.push(key);
                }
            }
            for key in map.keys() {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            for key in keys {
                flatten(key, &map[key], wide, &mut fields);
            }
        }
        other => flatten("", other, wide, &mut fields),
    }
    let mut table = new_table();
    for (field, text) in fields {
        table.add_row(vec![terminal_safe(&field, false), text]);
    }
    finish(&mut table)
}

fn flatten(prefix: &str, value: &Value, wide: bool, out: &mut Vec<(String, String)>) {
    let limit = if wide { usize::MAX } else { 2 * CELL_WIDTH };
    match value {
        // Money, a date and what only names something (a status) on one line, as a table's
        // cell shows them.
        Value::Object(map)
            if map.get("amount").and_then(money_amount).is_some()
                || date_text(map).is_some()
                || names_only(map) =>
        {
            out.push((prefix.to_string(), cut(&cell_text(Some(value)), limit)));
        }
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&path, inner, wide, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            // The items by name when they have one (never as JSON), else their count.
            let count = format!(
                "[{} item{}]",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            );
            let names = cell_text(Some(value));
            let text = if names.ends_with(" items") || names.ends_with(" item") {
                count
            } else {
                format!("{count} {names}")
            };
            out.push((prefix.to_string(), cut(&text, limit)));
        }
        Value::Number(_) => out.push((prefix.to_string(), table_cell(Some(value)))),
        Value::String(text) => out.push((
            prefix.to_string(),
            cut(&terminal_safe(&date_cell(text), false), limit),
        )),
        // An empty object or list holds nothing to show (never `{}` nor `[]`).
        Value::Object(_) | Value::Array(_) => out.push((prefix.to_string(), String::new())),
        other => out.push((
            prefix.to_string(),
            cut(&terminal_safe(&other.to_string(), false), limit),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_hides_secrets_at_any_depth() {
        let mut value = serde_json::json!({
            "id": 1,
            "security": {"strategy": "signature", "secret": "s3cr3t"},
            "list": [{"access_token": "a"}, {"secret": null}]
        });
        redact(&mut value);
        assert_eq!(value["security"]["secret"], REDACTED);
        assert_eq!(value["list"][0]["access_token"], REDACTED);
        assert_eq!(value["list"][1]["secret"], Value::Null);
        assert_eq!(value["security"]["strategy"], "signature");
    }

    #[test]
    fn custom_header_values_are_redacted_in_both_shapes() {
        let mut value = serde_json::json!({
            "headers": [{"key": "Authorization", "value": "Bearer abc"}],
            "nested": {"headers": {"X-Api-Key": "k-123"}}
        });
        redact(&mut value);
        assert_eq!(value["headers"][0]["key"], "Authorization");
        assert_eq!(value["headers"][0]["value"], REDACTED);
        assert_eq!(value["nested"]["headers"]["X-Api-Key"], REDACTED);
    }

    #[test]
    fn terminal_control_sequences_in_data_are_escaped() {
        let hostile = "Shoe\u{1b}]0;pwned\u{7}\u{1b}[31mRED\u{9b}2J\u{202e}txt";
        let safe = terminal_safe(hostile, false);
        assert!(!safe.chars().any(|c| c.is_control()), "{safe:?}");
        assert!(!safe.contains('\u{202e}'));
        assert!(safe.starts_with("Shoe\\u{1b}]0;pwned\\u{7}"), "{safe}");
        assert_eq!(terminal_safe("a\nb", true), "a\nb");
        assert_eq!(terminal_safe("a\nb", false), "a\\u{a}b");
        let cell = table_cell(Some(&Value::String(hostile.into())));
        assert!(!cell.chars().any(|c| c.is_control()), "{cell:?}");
        let fields = render_fields(&serde_json::json!({"na\u{1b}[2Jme": hostile}), &[], false);
        assert!(!fields.contains('\u{1b}'), "{fields:?}");
    }

    #[test]
    fn csv_cells_that_a_spreadsheet_would_run_are_neutralised() {
        for formula in ["=1+1", "+1", "-2+3", "@SUM(A1)"] {
            let cell = csv_cell(Some(&Value::String(formula.into())));
            assert_eq!(cell, format!("'{formula}"));
        }
        // A leading tab or carriage return is defused, and the control itself escaped.
        for formula in ["\tx", "\rx"] {
            let cell = csv_cell(Some(&Value::String(formula.into())));
            assert!(cell.starts_with('\''), "{cell:?}");
            assert!(!cell.chars().any(char::is_control), "{cell:?}");
        }
        assert_eq!(csv_cell(Some(&Value::String("plain".into()))), "plain");
        assert_eq!(
            csv_cell(Some(&serde_json::json!(-5))),
            "-5",
            "numbers are numbers"
        );
    }

    #[test]
    fn money_prints_with_two_places_everywhere_and_integral_floats_as_integers() {
        let whole = serde_json::json!({"amount": 3388, "currency": "SAR"});
        let cents = serde_json::json!({"amount": 361.28, "currency": "SAR"});
        let text = serde_json::json!({"amount": "10.7", "currency": "SAR"});
        assert_eq!(table_cell(Some(&whole)), "3388.00 SAR");
        assert_eq!(table_cell(Some(&cents)), "361.28 SAR");
        assert_eq!(table_cell(Some(&text)), "10.70 SAR");
        let order = serde_json::json!({"total": {"amount": 1.0, "currency": "SAR"}, "n": 1.0});
        assert!(is_money_amount(&order, "total.amount"));
        assert!(!is_money_amount(&order, "n"));
        assert_eq!(csv_cell(csv_value(&order, "n")), "1");
        let mut out = Vec::new();
        {
            let mut writer = csv::Writer::from_writer(&mut out);
            write_csv_row(&mut writer, &["total.amount", "n"], &order).unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "1.00,1\n");
    }

    #[test]
    fn table_cell_shows_money_dates_and_statuses_compactly() {
        let money = serde_json::json!({"amount": 12.5, "currency": "SAR"});
        assert_eq!(table_cell(Some(&money)), "12.50 SAR");
        let date =
            serde_json::json!({"date": "2024-01-02 10:00:00.000000", "timezone": "Asia/Riyadh"});
        assert_eq!(table_cell(Some(&date)), "2024-01-02 10:00:00");
        let status = serde_json::json!({"id": 1, "name": "Shipped", "slug": "shipped"});
        assert_eq!(table_cell(Some(&status)), "shipped");
        let long = Value::String("x".repeat(100));
        assert_eq!(table_cell(Some(&long)).chars().count(), CELL_WIDTH);
    }

    #[test]
    fn csv_columns_put_id_first_then_alphabetical() {
        let columns = <store_admin::types::ProductQuantity as Record>::CSV_COLUMNS;
        assert_eq!(columns.first(), Some(&"id"));
        let rest = &columns[1..];
        let mut sorted = rest.to_vec();
        sorted.sort();
        assert_eq!(rest, sorted.as_slice());
        assert!(columns.contains(&"quantity"));
    }

    #[test]
    fn csv_columns_expand_objects_but_not_arrays_or_mixed_values() {
        let columns = <store_admin::types::Order as Record>::CSV_COLUMNS;
        for expected in [
            "total.amount",
            "total.currency",
            "status.slug",
            "date",
            "items",
        ] {
            assert!(columns.contains(&expected), "{expected} not in {columns:?}");
        }
        assert!(!columns.contains(&"total"), "{columns:?}");
        assert!(
            !columns.iter().any(|c| c.starts_with("date.")),
            "a date is one cell: {columns:?}"
        );
        let order = serde_json::json!({"total": {"amount": 5, "currency": "SAR"}});
        assert_eq!(csv_cell(csv_value(&order, "total.currency")), "SAR");
        assert_eq!(csv_cell(csv_value(&order, "status.slug")), "");
    }

    #[test]
    fn cells_never_print_json_and_dates_lose_their_fraction() {
        let cell = |v: Value| table_cell(Some(&v));
        assert_eq!(cell(serde_json::json!({"amount": 10.0})), "10.00");
        assert_eq!(
            cell(serde_json::json!({"amount": "149.5", "currency": "SAR"})),
            "149.50 SAR"
        );
        assert_eq!(cell(serde_json::json!({})), "");
        assert_eq!(cell(serde_json::json!({"a": {"b": 1}})), "");
        assert_eq!(
            cell(serde_json::json!({"first_name": "Huda", "last_name": "Ali"})),
            "Huda Ali"
        );
        assert_eq!(cell(serde_json::json!({"id": 3, "label": "Gold"})), "Gold");
        assert_eq!(
            cell(serde_json::json!([{"name": "a"}, {"name": "b"}])),
            "a, b"
        );
        assert_eq!(cell(serde_json::json!([{"x": 1}, {"y": 2}])), "2 items");
        assert_eq!(
            cell(serde_json::json!("2026-11-28 14:05:09.000000")),
            "2026-11-28 14:05:09"
        );
        assert_eq!(
            cell(serde_json::json!("2026-11-28T14:05:09.123Z")),
            "2026-11-28 14:05:09Z"
        );
        assert_eq!(cell(serde_json::json!("2026-11-28")), "2026-11-28");
        assert_eq!(
            cell(serde_json::json!("not a date at all, 2026")),
            "not a date at all, 2026"
        );
        let date = serde_json::json!({"date": "2026-11-28 14:05:09.000000", "timezone_type": 3,
            "timezone": "Asia/Riyadh"});
        assert_eq!(csv_cell(Some(&date)), "2026-11-28 14:05:09");
    }

    #[test]
    fn a_table_drops_or_cuts_its_least_important_columns_but_never_the_key() {
        // id 10, name 30, status 10, url 60 (the key): 10+30+10+60 + 3 gaps = 116.
        let natural = [10, 30, 10, 60];
        let headers = [2, 4, 6, 3];
        assert_eq!(
            fit_widths(&natural, &headers, Some(3), 200),
            [Some(10), Some(30), Some(10), Some(60)]
        );
        // At 100 the status (the last but the key) goes, then the name is cut to fit.
        assert_eq!(
            fit_widths(&natural, &headers, Some(3), 100),
            [Some(10), Some(26), None, Some(60)]
        );
        // At 40 only the key is left, whole, even wider than the limit.
        assert_eq!(
            fit_widths(&natural, &headers, Some(3), 40),
            [None, None, None, Some(60)]
        );
        // Without a key the last columns go first.
        assert_eq!(
            fit_widths(&natural, &headers, None, 45),
            [Some(10), Some(30), None, None]
        );
    }

    #[test]
    fn a_records_view_shows_a_status_object_as_its_name_as_a_table_cell_does() {
        let record = serde_json::json!({"id": 7,
            "status": {"id": 3, "name": "Shipped", "slug": "shipped",
                       "customized": {"id": 4, "name": "On its way"}},
            "state": {"name": "open"},
            "tag": {"id": 5},
            "receiver": {"name": "Huda", "phone": "+966500000000"},
            "extra": {}, "notes": []});
        let view = render_fields(&record, &[], false);
        let lines: Vec<Vec<&str>> = view
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        // As a list's cell shows it (the slug, else the name).
        assert!(lines.contains(&vec!["status", "shipped"]), "{view}");
        assert_eq!(table_cell(Some(&record["status"])), "shipped");
        assert!(lines.contains(&vec!["state", "open"]), "{view}");
        // No text to name it by, or more than a name: its parts, as before.
        assert!(lines.contains(&vec!["tag.id", "5"]), "{view}");
        assert!(
            lines.contains(&vec!["receiver.phone", "+966500000000"]),
            "{view}"
        );
        assert!(
            !view.contains("status.") && !view.contains("state."),
            "{view}"
        );
        // Nothing is shown as JSON.
        assert!(
            lines.contains(&vec!["extra"]) && lines.contains(&vec!["notes"]),
            "{view}"
        );
        assert!(!view.contains('{') && !view.contains('['), "{view}");
    }

    #[test]
    fn a_records_view_puts_id_name_and_status_first_then_the_documents_order() {
        let record = serde_json::json!({"zeta": 1, "status": "ok", "amount": 2, "name": "N",
            "id": 7, "price": {"amount": 1.5, "currency": "SAR"}});
        let view = render_fields(&record, &["zeta", "price", "amount"], false);
        let fields: Vec<&str> = view
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(fields, ["id", "name", "status", "zeta", "price", "amount"]);
        assert!(view.contains("1.50 SAR"), "{view}");
    }
}
