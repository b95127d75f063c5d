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
//! caller hands it the body, shared, and goes on), and [`StoreAdmin::drift`](crate::StoreAdmin::drift)
//! waits for the answers handed so far. With the `metrics` feature, the metrics are therefore
//! recorded on that thread: through the global recorder, not a thread-local one.
//!
//! # What counting costs: a share of one core, then a sample
//!
//! The second decode keeps the JSON path, so it costs about what the call's own decoding costs.
//! A service that calls now and then has every answer counted. A tight loop of calls would spend
//! as much processor time on counting as on its calls, so the thread works within a budget: up
//! to half a second of its work at once, refilled at one fiftieth of one core's time (2 %). An
//! answer that comes while the budget is spent, or while 64 answers wait for the thread, is
//! passed by and counted as [`unexamined`](OperationDrift::unexamined) in its operation's
//! report: the habits and fields are those of the answers looked at (`calls`), a sample spread
//! over the traffic, and a habit the service has on every answer is still seen. The overhead
//! benchmark (`cargo bench -p store-admin --bench client -- drift`) measures the cost under
//! sustained load.
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

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde::de::DeserializeOwned;
use store_admin_client::drift::Findings;

pub use store_admin_client::drift::{
    DriftReport, HabitSeen, JsonType, OperationDrift, PATHS_KEPT, Seen, habits, looks_like_data,
};

/// The most answers waiting for the drift counts' thread. Past it, an answer is passed by
/// (counted as unexamined): the caller never decodes it a second time itself.
const QUEUED: usize = 64;

/// The share of one core that the drift counts' thread may use under sustained load: 1/50.
const BUDGET_SHARE: u64 = 50;

/// The most work the thread may do at once, its budget when idle: half a second.
const BUDGET_BURST_NANOS: i64 = 500_000_000;

/// The process's budget for the drift counts' thread (see the module's doc).
static BUDGET: Budget = Budget::new();

/// Processor time that the drift counts' thread may spend, in nanoseconds of its work: refilled
/// with the time that passes (a [`BUDGET_SHARE`]th of it), up to [`BUDGET_BURST_NANOS`]; each
/// answer counted spends what its count took. Approximate under races (two callers refilling at
/// once count the same interval once), never unbounded.
struct Budget {
    /// What may still be spent (negative: overspent, by the last answer counted).
    available: AtomicI64,
    /// When it was last refilled, in nanoseconds since [`Budget::epoch`] (0: never).
    refilled: AtomicU64,
}

impl Budget {
    const fn new() -> Self {
        Self {
            available: AtomicI64::new(BUDGET_BURST_NANOS),
            refilled: AtomicU64::new(0),
        }
    }

    /// The process's clock for the budget.
    fn epoch() -> std::time::Instant {
        static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();
        *EPOCH.get_or_init(std::time::Instant::now)
    }

    /// Refills with the time since the last refill and answers whether an answer may be counted.
    fn allows(&self) -> bool {
        let now = u64::try_from(Self::epoch().elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.allows_at(now.max(1))
    }

    /// [`allows`](Self::allows) at `now` nanoseconds of the budget's clock.
    fn allows_at(&self, now: u64) -> bool {
        let last = self.refilled.swap(now, Ordering::AcqRel);
        if last != 0 && now > last {
            let refill = i64::try_from((now - last) / BUDGET_SHARE).unwrap_or(i64::MAX);
            let before = self.available.fetch_add(refill, Ordering::AcqRel);
            if before.saturating_add(refill) > BUDGET_BURST_NANOS {
                self.available
                    .fetch_min(BUDGET_BURST_NANOS, Ordering::AcqRel);
            }
        }
        self.available.load(Ordering::Acquire) > 0
    }

    /// Spends what counting an answer took.
    fn spend(&self, took: std::time::Duration) {
        let nanos = i64::try_from(took.as_nanos()).unwrap_or(i64::MAX);
        self.available.fetch_sub(nanos, Ordering::AcqRel);
    }
}

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

    /// Adds an answer of `operation` passed by without being looked at.
    fn pass_by(&self, operation: &str) {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record_unexamined(operation);
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
    /// Counts `body`, an answer of `operation` that the caller decoded as `T`, on the drift
    /// counts' thread; passes it by (unexamined) when the thread's budget is spent or its queue
    /// is full. Here only when the thread could not be started.
    fn observe<T: DeserializeOwned + 'static>(
        &self,
        operation: &'static str,
        body: bytes::Bytes,
        store: Option<Arc<str>>,
    ) {
        let Some(queue) = queue() else {
            self.shared.count::<T>(operation, &body, store.as_deref());
            return;
        };
        if !BUDGET.allows() {
            self.shared.pass_by(operation);
            return;
        }
        let shared = self.shared.clone();
        let job = Job::Count(Box::new(move || {
            let started = std::time::Instant::now();
            shared.count::<T>(operation, &body, store.as_deref());
            BUDGET.spend(started.elapsed());
        }));
        self.handed.store(true, Ordering::Release);
        match queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.shared.pass_by(operation);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    #[test]
    fn the_budget_allows_a_burst_then_its_share_of_the_time() {
        let budget = Budget::new();
        // Idle, it holds half a second of work.
        assert!(budget.allows_at(1));
        budget.spend(std::time::Duration::from_millis(499));
        assert!(budget.allows_at(1), "a millisecond is left");
        budget.spend(std::time::Duration::from_millis(2));
        assert!(!budget.allows_at(1), "spent");
        // A second later it has a fiftieth of a second more: 20 ms, less the 1 ms overspent.
        assert!(budget.allows_at(1 + SECOND));
        budget.spend(std::time::Duration::from_millis(19));
        assert!(
            !budget.allows_at(1 + SECOND),
            "19 of the 20 ms and the 1 ms owed"
        );
        // However long it is idle, it holds half a second at most.
        assert!(budget.allows_at(1 + 1_000 * SECOND));
        budget.spend(std::time::Duration::from_millis(500));
        assert!(!budget.allows_at(1 + 1_000 * SECOND));
    }

    #[test]
    fn under_sustained_load_the_thread_works_a_fiftieth_of_the_time() {
        // Answers arrive every 100 us and each takes 50 us to count: alone, counting them all
        // would take half a core. Over 100 s, what is counted is the burst and 2 % of the time.
        let budget = Budget::new();
        let (mut counted, mut spent) = (0u64, 0u64);
        let mut now = 1;
        while now < 100 * SECOND {
            if budget.allows_at(now) {
                budget.spend(std::time::Duration::from_micros(50));
                counted += 1;
                spent += 50_000;
            }
            now += 100_000;
        }
        let allowed = BUDGET_BURST_NANOS as u64 + 100 * SECOND / BUDGET_SHARE;
        assert!(
            spent <= allowed + 50_000,
            "{spent} ns spent, {allowed} allowed"
        );
        assert!(
            spent >= allowed - 100_000,
            "{spent} ns spent, {allowed} allowed"
        );
        assert!(
            counted < 1_000_000 / 10,
            "{counted} of a million answers counted"
        );
    }
}
