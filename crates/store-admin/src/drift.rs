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
//! answer is decoded twice; the overhead benchmark reports what that costs.
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

use std::sync::{Arc, Mutex, PoisonError};

use serde::de::DeserializeOwned;
use store_admin_client::drift::Findings;

pub use store_admin_client::drift::{
    DriftReport, HabitSeen, JsonType, OperationDrift, PATHS_KEPT, Seen, habits, looks_like_data,
};

/// A client's drift count (shared by its clones and views).
#[derive(Debug, Default)]
pub(crate) struct DriftCounter {
    report: Mutex<DriftReport>,
}

impl DriftCounter {
    /// Decodes `body` (an answer of `operation` that the caller decodes as `T`) once more, noting
    /// what it needed and had.
    pub(crate) fn observe<T: DeserializeOwned>(
        &self,
        operation: &str,
        body: &[u8],
        store: Option<&str>,
    ) {
        let findings = store_admin_client::drift::observe::<T>(body).ok();
        self.record(operation, findings.as_ref(), store);
    }

    /// Adds what one body of `operation` had (`None`: it did not decode).
    pub(crate) fn record(&self, operation: &str, findings: Option<&Findings>, store: Option<&str>) {
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

    /// The report so far.
    pub(crate) fn report(&self) -> DriftReport {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
    pub(crate) fn observe<T: DeserializeOwned>(self, operation: &str) {
        self.counter
            .observe::<T>(operation, &self.body, self.store.as_deref());
    }
}
