//! What the generated operation commands (`generated_cli.rs`) share: the client and printer, the
//! paged list, the value parsers of flags, and the printing of bodies that hold no record.

use std::num::NonZeroU64;

use clap::builder::{PossibleValue, TypedValueParser};
use futures::StreamExt;
use serde::Serialize;
use store_admin::{PageOptions, Paginate, StoreAdmin};

use crate::cli::PageArgs;
use crate::error::CliError;
use crate::output::{Printer, Record, stderr_is_terminal};

/// What every command needs: the client, the printer and the paging settings.
pub struct Ctx {
    /// The client (to the service or the sandbox).
    pub admin: StoreAdmin,
    /// Where records go.
    pub printer: Printer,
    /// Pages fetched at once by `--all`.
    pub concurrency: usize,
}

/// A paged list: one page (as asked), or with `--all` every page through the ergonomics crate's
/// concurrent pagination, streamed to the printer.
pub async fn paged<'a, R>(ctx: &'a Ctx, request: R, pages: PageArgs) -> Result<(), CliError>
where
    R: Paginate<'a>,
    R::Item: Record,
{
    if pages.all {
        let options = PageOptions::default()
            .per_page(pages.per_page.unwrap_or(60))
            .concurrency(ctx.concurrency);
        ctx.printer.stream(request.pages(options)).await?;
        return Ok(());
    }
    let mut request = request;
    if let Some(page) = pages.page {
        request = request.with_page(page);
    }
    if let Some(per_page) = pages.per_page.and_then(NonZeroU64::new) {
        request = request.with_per_page(per_page);
    }
    let response = request.send_page().await?;
    let parts = R::into_parts(response.into_inner());
    ctx.printer.list(&parts.items)?;
    if let Some(p) = parts.pagination
        && stderr_is_terminal()
        && p.total_pages > 1
    {
        eprintln!(
            "page {} of {} ({} records in all); --page N for another page, --all for every page",
            p.current_page, p.total_pages, p.total
        );
    }
    Ok(())
}

/// A response body that holds no record type: printed as the JSON it is (secrets redacted).
pub fn print_document<T: Serialize>(ctx: &Ctx, body: &T) -> Result<(), CliError> {
    let value = serde_json::to_value(body)
        .map_err(|e| CliError::other(format!("cannot print the response: {e}")))?;
    ctx.printer.document(&value)
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

/// An operation progenitor cannot generate (a multipart upload, another host): not yet a
/// command; `store-admin api` reaches any path.
pub async fn hand_written(_ctx: &Ctx, operation_id: &str) -> Result<(), CliError> {
    Err(CliError::usage(format!(
        "{operation_id} has no generated client method (see HAND_WRITTEN); send it with \
         `store-admin api METHOD PATH`"
    )))
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
