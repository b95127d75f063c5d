//! Metrics, with the `metrics` feature, through the [`metrics`](https://docs.rs/metrics) facade:
//! install any recorder (Prometheus, OpenTelemetry, StatsD...) and the client reports to it; with
//! none installed, nothing is recorded.
//!
//! | name | kind | labels |
//! |---|---|---|
//! | `http.client.request.duration` | histogram, seconds (a call, its retries included) | `operation`, `http.response.status_code` or `error.type`, `store` |
//! | `store_admin.retries` | counter | `operation`, `store` |
//! | `store_admin.rate_limited` | counter: 429s waited out | `operation`, `store` |
//! | `store_admin.rate_limiter.wait` | histogram, seconds: waits for the rate limiter | `store` |
//! | `store_admin.token.refreshes` | counter: refreshes after a rejected token | `store` |
//! | `store_admin.records.skipped` | counter: undecodable records a list skipped | `operation` |
//! | `store_admin.drift` | counter: habits applied and undeclared fields (with [`crate::StoreAdminBuilder::with_drift_counting`]) | `operation`, `habit` (or `undeclared field`), `path`, `store` |
//!
//! `store` is the label of [`crate::StoreAdminBuilder::with_store_label`] (each store's client
//! of [`crate::Merchants`] has its merchant's), absent otherwise.

use std::time::Duration;

use http::StatusCode;
use metrics::{Label, counter, histogram};

use crate::TransportKind;

fn labels(operation: Option<&'static str>, store: Option<&str>) -> Vec<Label> {
    let mut labels = Vec::with_capacity(3);
    if let Some(operation) = operation {
        labels.push(Label::new("operation", operation));
    }
    if let Some(store) = store {
        labels.push(Label::new("store", store.to_owned()));
    }
    labels
}

/// A call ended: with an answer of `status`, or a transport failure of `kind`.
pub(crate) fn call_finished(
    operation: &'static str,
    store: Option<&str>,
    elapsed: Duration,
    status: Option<StatusCode>,
    kind: Option<TransportKind>,
) {
    let mut labels = labels(Some(operation), store);
    if let Some(status) = status {
        labels.push(Label::new(
            "http.response.status_code",
            status.as_str().to_owned(),
        ));
    }
    if let Some(kind) = kind {
        labels.push(Label::new("error.type", kind.name()));
    }
    histogram!("http.client.request.duration", labels).record(elapsed.as_secs_f64());
}

/// A call is sent again after a failed attempt.
pub(crate) fn retried(operation: &'static str, store: Option<&str>) {
    counter!("store_admin.retries", labels(Some(operation), store)).increment(1);
}

/// A 429 is waited out.
pub(crate) fn rate_limited(operation: &'static str, store: Option<&str>) {
    counter!("store_admin.rate_limited", labels(Some(operation), store)).increment(1);
}

/// The rate limiter made an attempt wait.
pub(crate) fn limiter_waited(store: Option<&str>, waited: Duration) {
    histogram!("store_admin.rate_limiter.wait", labels(None, store)).record(waited.as_secs_f64());
}

/// The access token was refreshed after the service rejected it.
pub(crate) fn refreshed(store: Option<&str>) {
    counter!("store_admin.token.refreshes", labels(None, store)).increment(1);
}

/// A list skipped `count` undecodable records.
pub(crate) fn skipped(operation: &'static str, count: usize) {
    counter!("store_admin.records.skipped", labels(Some(operation), None)).increment(count as u64);
}

/// What the drift count found in one answer (see [`crate::drift`]).
pub(crate) fn drift(
    operation: &str,
    store: Option<&str>,
    findings: &store_admin_client::drift::Findings,
) {
    let count = |name: &str, path: &str, n: u64| {
        let mut labels = vec![
            Label::new("operation", operation.to_owned()),
            Label::new("habit", name.to_owned()),
            Label::new("path", path.to_owned()),
        ];
        if let Some(store) = store {
            labels.push(Label::new("store", store.to_owned()));
        }
        counter!("store_admin.drift", labels).increment(n);
    };
    for (habit, paths) in &findings.habits {
        for (path, (n, _)) in paths {
            count(habit, path, *n);
        }
    }
    for (path, (n, _)) in &findings.unknown_fields {
        count("undeclared field", path, *n);
    }
}
