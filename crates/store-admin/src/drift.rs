//! Drift counted where the traffic is: with
//! [`StoreAdminBuilder::with_drift_counting`](crate::StoreAdminBuilder::with_drift_counting), every
//! answer that [`Call::call`](crate::Call::call) or a pagination stream decodes is decoded once more
//! through a deserializer that keeps the JSON path, and the client counts, per operation and path,
//! each habit of the service's serialisation the lenient decoding had to apply (a number as a
//! string, `0`/`1` for a boolean, `[]` for an object, ...: [`habits`]) and each field the document
//! does not declare, with the JSON types seen and the first and last time. Never a value: paths,
//! types and counts only, and a key that looks like data is folded into `<key>`.
//!
//! [`StoreAdmin::drift`](crate::StoreAdmin::drift) answers the report so far: it serialises to the
//! JSON of the mock store's `/__admin/drift` and reads back, and reports of several processes merge
//! ([`DriftReport::merge`]). With the `metrics` feature, each finding also counts as
//! `store_admin.drift` (labels `operation`, `habit` (or `undeclared field`), `path`, `store`).
//!
//! Off (the default), nothing of this runs: no body is kept, no second decode. On, each decoded
//! answer is decoded a second time on a thread of the drift counts' own (one for the process; the
//! caller hands it the body, shared, and goes on; while that thread is 64 answers behind, callers
//! count their answers themselves, so nothing is dropped), and [`StoreAdmin::drift`](crate::StoreAdmin::drift) waits
//! for the answers handed so far. With the `metrics` feature, the metrics are therefore recorded
//! on that thread: through the global recorder, not a thread-local one. The overhead benchmark
//! reports what counting costs.
//!
//! ```rust,no_run
//! use store_admin::prelude::*;
//! # async fn run() -> Result<(), store_admin::Error> {
//! let admin = store_admin::StoreAdmin::builder()
//!     .with_token("token")
//!     .with_drift_counting()
//!     .build()?;
//! admin.list_orders().call().await?;
//! println!("{}", serde_json::to_string_pretty(&admin.drift()).expect("a report serialises"));
//! # Ok(()) }
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde::de::DeserializeOwned;
use store_admin_client::drift::Findings;

pub use store_admin_client::drift::{
    DriftReport, HabitSeen, JsonType, OperationDrift, PATHS_KEPT, Seen, habits, looks_like_data,
};

/// The most answers waiting for the drift counts' thread. Past it, the caller counts the answer
/// itself (nothing is dropped: the count is exact, and a caller pays for it only while the
/// thread is behind).
const QUEUED: usize = 64;

/// The drift counts' thread's queue, once started (`None` inside: it could not be started, and
/// callers count themselves). One thread for the process, whatever the number of clients (an app
/// installed in many stores builds one client a store).
static QUEUE: OnceLock<Option<SyncSender<Job>>> = OnceLock::new();

/// A client's drift count (shared by its clones and views).
///
/// The answers are counted on a thread of the drift counts' own (one for the process, started
/// with the first answer), so that the second decode is not on the caller's path: a call hands
/// the thread its answer's body (shared, not copied) and returns. [`report`](Self::report) waits
/// for the answers handed so far.
#[derive(Debug, Default)]
pub(crate) struct DriftCounter {
    shared: Arc<Shared>,
    /// Whether an answer was handed to the thread (else a report need not wait for it).
    handed: AtomicBool,
}

#[derive(Debug, Default)]
struct Shared {
    report: Mutex<DriftReport>,
}

/// What the drift counts' thread is handed.
enum Job {
    /// Count an answer.
    Count(Box<dyn FnOnce() + Send>),
    /// Answer when every job handed before is done.
    Flush(SyncSender<()>),
}

impl Shared {
    /// Decodes `body` (an answer of `operation` that the caller decoded as `T`) once more,
    /// noting what it needed and had.
    fn count<T: DeserializeOwned>(&self, operation: &str, body: &[u8], store: Option<&str>) {
        let findings = store_admin_client::drift::observe_checked::<T>(body).ok();
        self.record(operation, findings.as_ref(), store);
    }

    /// Adds what one body of `operation` had (`None`: it did not decode).
    fn record(&self, operation: &str, findings: Option<&Findings>, store: Option<&str>) {
        #[cfg(feature = "metrics")]
        if let Some(findings) = findings {
            crate::metrics::drift(operation, store, findings);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = store;
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record(operation, findings, chrono::Utc::now());
    }
}

/// The drift counts' thread's queue, started on first use.
fn queue() -> Option<&'static SyncSender<Job>> {
    QUEUE
        .get_or_init(|| {
            let (sender, receiver) = mpsc::sync_channel(QUEUED);
            std::thread::Builder::new()
                .name("store-admin-drift".into())
                .spawn(move || work(&receiver))
                .ok()
                .map(|_| sender)
        })
        .as_ref()
}

impl DriftCounter {
    /// Counts `body`, an answer of `operation` that the caller decoded as `T`: on the drift
    /// counts' thread, or here when its queue is full (or it could not be started).
    fn observe<T: DeserializeOwned + 'static>(
        &self,
        operation: &'static str,
        body: bytes::Bytes,
        store: Option<Arc<str>>,
    ) {
        let shared = self.shared.clone();
        let job = Job::Count(Box::new(move || {
            shared.count::<T>(operation, &body, store.as_deref());
        }));
        let job = match queue() {
            Some(queue) => {
                self.handed.store(true, Ordering::Release);
                match queue.try_send(job) {
                    Ok(()) => return,
                    Err(TrySendError::Full(job) | TrySendError::Disconnected(job)) => job,
                }
            }
            None => job,
        };
        if let Job::Count(count) = job {
            count();
        }
    }

    /// Adds what one body of `operation` had (`None`: it did not decode), here.
    pub(crate) fn record(&self, operation: &str, findings: Option<&Findings>, store: Option<&str>) {
        self.shared.record(operation, findings, store);
    }

    /// The report so far, with every answer handed to the count before this call counted.
    pub(crate) fn report(&self) -> DriftReport {
        if self.handed.load(Ordering::Acquire)
            && let Some(queue) = queue()
        {
            let (done, wait) = mpsc::sync_channel(1);
            if queue.send(Job::Flush(done)).is_ok() {
                // The thread answers once it has counted what was queued before the flush.
                let _ = wait.recv();
            }
        }
        self.shared
            .report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The drift counts' thread: for the life of the process (it waits on its queue).
fn work(jobs: &Receiver<Job>) {
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Count(count) => count(),
            Job::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// A drift count that code outside the client adds to: the webhook deliveries a service receives
/// ([`parse_event_counting`](crate::webhooks::parse_event_counting),
/// [`verify_and_parse_counting`](crate::webhooks::verify_and_parse_counting), an
/// [`Inbox`](crate::inbox::Inbox) built with
/// [`count_drift`](crate::inbox::InboxBuilder::count_drift)), each under the operation
/// `webhook:<event name>` (`webhook:order.created`).
///
/// Take the client's own count ([`StoreAdmin::drift_count`](crate::StoreAdmin::drift_count), when
/// it was built [`with_drift_counting`](crate::StoreAdminBuilder::with_drift_counting)) and the
/// service's answers and deliveries make one report; or make one with [`DriftCount::new`] and give
/// it to the client with
/// [`with_drift_count`](crate::StoreAdminBuilder::with_drift_count). Cheap to clone: clones
/// share the count. Nothing counts a delivery unless it is given one of these.
///
/// ```
/// use store_admin::drift::DriftCount;
/// use store_admin::webhooks::parse_event_counting;
///
/// let drift = DriftCount::new();
/// let body = br#"{"event":"app.installed","merchant":"1234509876","created_at":"2022-12-31 12:31:25","data":{}}"#;
/// parse_event_counting(body, &drift).unwrap();
/// let report = drift.report();
/// let installed = &report.operations["webhook:app.installed"];
/// assert_eq!(installed.habits["a number sent as a string"].first_path, "merchant");
/// ```
#[derive(Clone, Default)]
pub struct DriftCount(pub(crate) Arc<DriftCounter>);

impl DriftCount {
    /// A new, empty count.
    pub fn new() -> Self {
        Self::default()
    }

    /// The report so far.
    pub fn report(&self) -> DriftReport {
        self.0.report()
    }

    /// Adds what one body of `operation` had (`None`: it did not decode).
    pub(crate) fn record(&self, operation: &str, findings: Option<&Findings>) {
        self.0.record(operation, findings, None);
    }
}

impl std::fmt::Debug for DriftCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DriftCount").finish_non_exhaustive()
    }
}

/// An answer kept for the drift count: its body, and the count it goes to.
pub(crate) struct Sample {
    pub(crate) body: bytes::Bytes,
    pub(crate) counter: Arc<DriftCounter>,
    pub(crate) store: Option<Arc<str>>,
}

impl Sample {
    /// Counts the sample as an answer of `operation` decoded as `T`.
    pub(crate) fn observe<T: DeserializeOwned + 'static>(self, operation: &'static str) {
        self.counter.observe::<T>(operation, self.body, self.store);
    }
}
