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
        #[cfg(feature = "metrics")]
        if let Some(findings) = &findings {
            crate::metrics::drift(operation, store, findings);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = store;
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record(operation, findings.as_ref(), chrono::Utc::now());
    }

    /// The report so far.
    pub(crate) fn report(&self) -> DriftReport {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
