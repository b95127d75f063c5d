//! Jobs that finish: the service runs exports and imports in the background (the call only
//! confirms the job): it lists an export's file in the export logs when it is ready
//! ([`ExportLogs`]), and an import's records appear or change ([`ImportWatch`]). A waiter polls until the result
//! is there, with a deadline and a backoff without jitter (the interval grows by a factor up to
//! a bound, as the cloud SDKs' waiters do), and returns the finished result or
//! [`WaitError::TimedOut`].
//!
//! ```
//! # async fn run(admin: store_admin::StoreAdmin) -> Result<(), Box<dyn std::error::Error>> {
//! use store_admin::prelude::*;
//! use store_admin::waiters::{ExportLogs, WaitOptions};
//!
//! let before = ExportLogs::snapshot(&admin).await?; // the logs before the export starts
//! use store_admin::types::{ExportProductsRequest as Export, ExportProductsRequestFormat as Format,
//!     ExportProductsRequestType as Type};
//! let job = Export::builder().type_(Type::Prices).format(Format::Csv); // records are non-exhaustive
//! admin.export_products().body(job).call().await?;
//! let file = before.wait_until_exported(&admin, Some("prices"), &WaitOptions::default()).await?;
//! println!("{}", file.url.unwrap_or_default());
//! # Ok(()) }
//! ```

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use futures::StreamExt;

use crate::{Call, Error, PageOptions, Paginate, StoreAdmin, types};
use store_admin_client::prelude::*;

/// How a waiter polls: the first interval, the factor it grows by, its bound, and the deadline.
/// No jitter: a waiter polls its own job, it does not contend with others.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WaitOptions {
    /// How long to wait in all (default 10 minutes).
    pub deadline: Duration,
    /// The wait before the first poll (default 1 s).
    pub first: Duration,
    /// What each wait is multiplied by (default 1.5).
    pub factor: f64,
    /// The longest wait between two polls (default 30 s).
    pub max: Duration,
}

impl Default for WaitOptions {
    fn default() -> Self {
        Self {
            deadline: Duration::from_secs(600),
            first: Duration::from_secs(1),
            factor: 1.5,
            max: Duration::from_secs(30),
        }
    }
}

impl WaitOptions {
    /// Waits at most `deadline` in all.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Polls first after `first`, then `factor` times longer each time, up to `max`.
    pub fn backoff(mut self, first: Duration, factor: f64, max: Duration) -> Self {
        self.first = first;
        self.factor = if factor.is_finite() && factor >= 1.0 {
            factor
        } else {
            1.0
        };
        self.max = max.max(first);
        self
    }

    /// The waits between polls, in order (each at most `max`).
    pub fn intervals(&self) -> impl Iterator<Item = Duration> + '_ {
        std::iter::successors(Some(self.first.min(self.max)), move |wait| {
            Some(wait.mul_f64(self.factor).min(self.max))
        })
    }
}

/// Why a waiter returned without the result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// The job did not finish within the deadline (it may still finish: poll again later).
    #[error("{what} did not finish within {waited:.1?} ({polls} polls)")]
    TimedOut {
        /// What was waited for.
        what: String,
        /// How long the waiter waited.
        waited: Duration,
        /// How many times it polled.
        polls: u32,
    },
    /// A poll failed (after the client's own retries).
    #[error("waiting for {what}: {source}")]
    Poll {
        /// What was waited for.
        what: String,
        /// The failed call.
        #[source]
        source: Error,
    },
}

/// Polls `probe` after each of `options`' intervals until it gives a result or the deadline
/// passes (the last poll is made at the deadline). The deadline bounds the whole wait: a poll
/// still under way when it passes is abandoned.
pub async fn wait_until<T, F, Fut>(
    what: &str,
    options: &WaitOptions,
    mut probe: F,
) -> Result<T, WaitError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, Error>>,
{
    let started = Instant::now();
    let deadline = started + options.deadline;
    let mut polls = 0;
    for wait in options.intervals() {
        let now = Instant::now();
        let last = now + wait >= deadline;
        tokio::time::sleep(if last { deadline - now } else { wait }).await;
        polls += 1;
        // A poll is bounded by the deadline too: one still under way then is abandoned.
        match tokio::time::timeout_at(deadline, probe()).await {
            Ok(Ok(Some(done))) => return Ok(done),
            Ok(Ok(None)) => {}
            Ok(Err(source)) => {
                return Err(WaitError::Poll {
                    what: what.to_owned(),
                    source,
                });
            }
            Err(_) => break,
        }
        if last {
            break;
        }
    }
    Err(WaitError::TimedOut {
        what: what.to_owned(),
        waited: started.elapsed(),
        polls,
    })
}

/// The export logs as they were before an export started: the entry the export adds is the
/// one that is not among them.
#[derive(Debug, Clone)]
pub struct ExportLogs {
    seen: HashSet<String>,
}

/// An entry's identity: everything it shows.
fn identity(entry: &types::ExportLog) -> String {
    serde_json::to_string(entry).unwrap_or_default()
}

/// `text` lowercased with `-` read as `_` (`product-prices` is `product_prices`).
fn normal(text: &str) -> String {
    text.to_lowercase().replace('-', "_")
}

impl ExportLogs {
    /// Reads the export logs now, before the export is started.
    pub async fn snapshot(admin: &StoreAdmin) -> Result<Self, Error> {
        let logs = admin.list_export_logs().call().await?.data;
        Ok(Self {
            seen: logs.iter().map(identity).collect(),
        })
    }

    /// Waits until the logs list an entry that was not there at the snapshot, of `kind` when
    /// given (`orders`, `customers`, `products`, `prices`...: an entry whose type contains it,
    /// `-` and `_` alike), and returns it (its `url` is the file).
    pub async fn wait_until_exported(
        &self,
        admin: &StoreAdmin,
        kind: Option<&str>,
        options: &WaitOptions,
    ) -> Result<types::ExportLog, WaitError> {
        let what = match kind {
            Some(kind) => format!("the {kind} export"),
            None => "the export".to_owned(),
        };
        let kind = kind.map(normal);
        wait_until(&what, options, || async {
            let logs = admin.list_export_logs().call().await?.data;
            Ok(logs.into_iter().find(|entry| {
                !self.seen.contains(&identity(entry))
                    && kind.as_ref().is_none_or(|kind| {
                        entry
                            .type_
                            .as_deref()
                            .is_some_and(|t| normal(t).contains(kind.as_str()))
                    })
            }))
        })
        .await
    }
}

/// What an import's records are found by, each by its own key: products by `sku`, customers by
/// `email`. (The service shows no status of an import, and the custom URLs an import creates are
/// listed nowhere: their import has no waiter.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportKind {
    /// `POST /products/import`: a product per row, found in `list_products` by its `sku`.
    Products,
    /// `POST /customers/import`: a customer per row, found in `list_customers` by its `email`.
    Customers,
}

/// Records a page when an import's records are looked for in their list (the largest page).
const SCAN_PAGE: u64 = 60;

/// A record's key field as text (`sku` may be a number).
fn key_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The records of `wanted` keys (by `field`) in the list `request` reads, page by page, in
/// order, until every key is found or the list ends: as many calls as pages read, whatever the
/// number of keys.
async fn scan<'a, R: Paginate<'a>>(
    request: R,
    field: &str,
    wanted: &HashSet<&str>,
) -> Result<HashMap<String, serde_json::Value>, Error> {
    let mut found = HashMap::new();
    if wanted.is_empty() {
        return Ok(found);
    }
    let options = PageOptions::default().per_page(SCAN_PAGE).concurrency(1);
    let mut pages = std::pin::pin!(request.pages(options));
    while let Some(page) = pages.next().await {
        for item in page?.items {
            let Ok(record) = serde_json::to_value(item) else {
                continue;
            };
            if let Some(key) = record.get(field).and_then(key_text)
                && wanted.contains(key.as_str())
            {
                found.insert(key, record);
            }
        }
        if found.len() == wanted.len() {
            break;
        }
    }
    Ok(found)
}

impl ImportKind {
    /// The field a record is found by (`sku`, `email`): the import file's column of the keys.
    pub fn key_field(self) -> &'static str {
        match self {
            ImportKind::Products => "sku",
            ImportKind::Customers => "email",
        }
    }

    /// What is imported (`products`, `customers`).
    pub fn name(self) -> &'static str {
        match self {
            ImportKind::Products => "products",
            ImportKind::Customers => "customers",
        }
    }

    /// The records of `keys` now, as JSON, read from the kind's list (the keys the store has
    /// no record of are missing from the answer).
    async fn find(
        self,
        admin: &StoreAdmin,
        keys: &HashSet<&str>,
    ) -> Result<HashMap<String, serde_json::Value>, Error> {
        match self {
            ImportKind::Products => scan(admin.list_products(), self.key_field(), keys).await,
            ImportKind::Customers => scan(admin.list_customers(), self.key_field(), keys).await,
        }
    }
}

/// The records an import is about, as they were before it started: the import has finished for
/// a record once it exists and is not as it was (its `updated_at`, or the whole record, changed).
///
/// Records are read through their list, page by page (never one call per key): a snapshot or a
/// poll costs at most the list's pages, and stops as soon as every key it looks for is found.
#[derive(Debug, Clone)]
pub struct ImportWatch {
    kind: ImportKind,
    /// Each key with its record before the import (none: the record did not exist).
    before: Vec<(String, Option<serde_json::Value>)>,
}

/// What a record's change is judged by: its `updated_at`, else the whole record.
fn version(record: &serde_json::Value) -> serde_json::Value {
    record
        .get("updated_at")
        .filter(|v| !v.is_null())
        .cloned()
        .unwrap_or_else(|| record.clone())
}

impl ImportWatch {
    /// Reads the records of `keys` (the SKUs or emails of the file's rows) now, before the
    /// import is uploaded, from their list (see [`ImportWatch`]).
    pub async fn snapshot(
        admin: &StoreAdmin,
        kind: ImportKind,
        keys: impl IntoIterator<Item = String>,
    ) -> Result<Self, Error> {
        let mut seen = HashSet::new();
        let keys: Vec<String> = keys
            .into_iter()
            .filter(|key| seen.insert(key.clone()))
            .collect();
        let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
        let mut found = kind.find(admin, &wanted).await?;
        let before = keys
            .iter()
            .map(|key| (key.clone(), found.remove(key)))
            .collect();
        Ok(Self { kind, before })
    }

    /// How many records the watch follows.
    pub fn len(&self) -> usize {
        self.before.len()
    }

    /// Whether the watch follows no record.
    pub fn is_empty(&self) -> bool {
        self.before.is_empty()
    }

    /// Waits until every record of the snapshot's keys exists and has changed since the
    /// snapshot, and returns them (in the keys' order). Each poll reads the list for the records
    /// not yet imported only. On a timeout, [`WaitError::TimedOut`]'s `what` names how many are
    /// missing.
    pub async fn wait_until_imported(
        &self,
        admin: &StoreAdmin,
        options: &WaitOptions,
    ) -> Result<Vec<serde_json::Value>, WaitError> {
        let kind = self.kind;
        let total = self.before.len();
        let found = std::sync::Mutex::new(vec![None; total]);
        let what = format!("the import of {total} {}", kind.name());
        let result = wait_until(&what, options, || async {
            let missing: Vec<usize> = {
                let found = found.lock().map(|f| f.clone()).unwrap_or_default();
                (0..total).filter(|at| found[*at].is_none()).collect()
            };
            let wanted: HashSet<&str> = missing
                .iter()
                .map(|at| self.before[*at].0.as_str())
                .collect();
            let mut now = kind.find(admin, &wanted).await?;
            if let Ok(mut found) = found.lock() {
                for at in missing {
                    let (key, before) = &self.before[at];
                    if let Some(record) = now.remove(key)
                        && before
                            .as_ref()
                            .is_none_or(|b| version(b) != version(&record))
                    {
                        found[at] = Some(record);
                    }
                }
            }
            let found = found.lock().map(|f| f.clone()).unwrap_or_default();
            Ok(found
                .iter()
                .all(Option::is_some)
                .then(|| found.into_iter().flatten().collect()))
        })
        .await;
        match result {
            Err(WaitError::TimedOut { waited, polls, .. }) => {
                let missing: Vec<&str> = {
                    let found = found.lock().map(|f| f.clone()).unwrap_or_default();
                    self.before
                        .iter()
                        .zip(found.iter().chain(std::iter::repeat(&None)))
                        .filter(|(_, f)| f.is_none())
                        .map(|((key, _), _)| key.as_str())
                        .collect()
                };
                let shown: Vec<&str> = missing.iter().take(5).copied().collect();
                Err(WaitError::TimedOut {
                    what: format!(
                        "{what} ({} of {total} not imported yet, by {}: {}{})",
                        missing.len(),
                        kind.key_field(),
                        shown.join(", "),
                        if missing.len() > shown.len() {
                            ", ..."
                        } else {
                            ""
                        }
                    ),
                    waited,
                    polls,
                })
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intervals_grow_by_the_factor_up_to_the_bound_without_jitter() {
        let options = WaitOptions::default().backoff(
            Duration::from_millis(100),
            2.0,
            Duration::from_millis(500),
        );
        let waits: Vec<u128> = options.intervals().take(6).map(|d| d.as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 500, 500, 500]);
        let again: Vec<Duration> = options.intervals().take(6).collect();
        assert_eq!(
            again.iter().map(Duration::as_millis).collect::<Vec<_>>(),
            waits,
            "the same every time: no jitter"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_stops_at_its_deadline_with_a_typed_timeout() {
        let options = WaitOptions::default()
            .deadline(Duration::from_secs(10))
            .backoff(Duration::from_secs(1), 2.0, Duration::from_secs(4));
        let started = tokio::time::Instant::now();
        let result: Result<(), _> = wait_until("the job", &options, || async { Ok(None) }).await;
        match result {
            Err(WaitError::TimedOut { what, polls, .. }) => {
                assert_eq!(what, "the job");
                // Polls at 1, 3, 7 and 10 (the deadline) seconds.
                assert_eq!(polls, 4);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(started.elapsed(), Duration::from_secs(10));
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_returns_the_result_once_the_probe_has_it() {
        let mut polls = 0;
        let result = wait_until("the job", &WaitOptions::default(), || {
            polls += 1;
            let done = polls == 3;
            async move { Ok(done.then_some("file")) }
        })
        .await;
        assert_eq!(result.unwrap(), "file");
        assert_eq!(polls, 3);
    }
}
