//! Catching up on missed deliveries: poll a resource by `updated_at` since the last change seen,
//! and hand what changed to the inbox's handler as `<thing>.updated` events, skipping what a
//! delivery already brought.

use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{DedupError, Inbox, Outcome};
use crate::webhooks::{EventName, WebhookEvent};

/// Where a reconciliation stopped: the latest `updated_at` it handed on (the service's text,
/// `2024-05-01 10:00:00`, which sorts as it reads). Keep it between runs (it serializes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The latest `updated_at` seen; `None` before the first run.
    pub since: Option<String>,
}

/// What a reconciliation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    /// Records read.
    pub read: usize,
    /// Records not changed since the cursor.
    pub unchanged: usize,
    /// Changes a delivery (or an earlier run) already brought.
    pub already_handled: usize,
    /// Changes handed to the handler now.
    pub handled: usize,
    /// Changes the handler failed on (`id`, why); the cursor stays before them.
    pub failed: Vec<(String, String)>,
}

/// Why a reconciliation stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReconcileError {
    /// The list could not be read.
    #[error("reconciliation: the list failed: {0}")]
    List(#[from] crate::Error),
    /// The deduplicator could not be asked.
    #[error("reconciliation: {0}")]
    Dedup(#[from] DedupError),
    /// A record could not be read as JSON with an `id`, or `thing` names no event.
    #[error("reconciliation: {0}")]
    Record(String),
}

/// A record's `updated_at` as text (`"2024-05-01 10:00:00"`, or the `date` of
/// `{"date": ..., "timezone": ...}`).
fn updated_at(record: &Value) -> Option<String> {
    match record.get("updated_at")? {
        Value::String(text) => Some(text.clone()),
        Value::Object(map) => map.get("date")?.as_str().map(str::to_owned),
        _ => None,
    }
}

fn id_text(record: &Value) -> Option<String> {
    match record.get("id")? {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The key that says one version of one record was handled: the event's thing (`order` of
/// `order.updated`), the merchant, the record's id and its `updated_at`. `None` when the event's
/// data has no id or no `updated_at`.
pub(super) fn record_key(prefix: &str, event: &WebhookEvent) -> Option<String> {
    let name = event.event.to_string();
    let thing = name.split('.').next()?;
    version_key(prefix, thing, event.merchant, &event.data)
}

fn version_key(prefix: &str, thing: &str, merchant: i64, record: &Value) -> Option<String> {
    Some(format!(
        "{prefix}record:{merchant}:{thing}:{}:{}",
        id_text(record)?,
        updated_at(record)?
    ))
}

/// Reads `records` (a list of `thing`s of store `merchant`, e.g.
/// `admin.list_orders().items(PageOptions::default())`) and hands each record changed since
/// `cursor` to `inbox`'s handler as a `<thing>.updated` event, once: a change a delivery already
/// brought (the same id and `updated_at`) is skipped, and what is handed on is remembered like a
/// delivery. The cursor moves to the latest change handled, or stays where it was when the
/// handler failed on any change, so the next run tries again (skipping what was handled).
pub async fn reconcile<T, S>(
    inbox: &Inbox,
    thing: &str,
    merchant: i64,
    records: S,
    cursor: &mut Cursor,
) -> Result<ReconcileReport, ReconcileError>
where
    T: Serialize,
    S: Stream<Item = Result<T, crate::Error>>,
{
    let mut report = ReconcileReport::default();
    let event: EventName = serde_json::from_value(Value::from(format!("{thing}.updated")))
        .map_err(|e| ReconcileError::Record(e.to_string()))?;
    let mut latest = cursor.since.clone();
    let mut records = std::pin::pin!(records);
    while let Some(record) = records.next().await {
        let record =
            serde_json::to_value(record?).map_err(|e| ReconcileError::Record(e.to_string()))?;
        report.read += 1;
        let id = id_text(&record).ok_or_else(|| {
            let text = crate::error::truncate(&record.to_string(), 200);
            ReconcileError::Record(format!("a record has no id: {text}"))
        })?;
        let Some(changed) = updated_at(&record) else {
            report.unchanged += 1;
            continue;
        };
        if cursor.since.as_ref().is_some_and(|since| changed <= *since) {
            report.unchanged += 1;
            continue;
        }
        let Some(key) = version_key(&inbox.inner.prefix, thing, merchant, &record) else {
            continue;
        };
        let event = WebhookEvent {
            event: event.clone(),
            merchant,
            created_at: changed.clone(),
            data: record,
        };
        match inbox.handle_once(key, None, event).await {
            Outcome::Handled => report.handled += 1,
            Outcome::Duplicate | Outcome::InProgress => report.already_handled += 1,
            Outcome::Unavailable(error) => return Err(error.into()),
            other => {
                report.failed.push((id, format!("{other:?}")));
                continue;
            }
        }
        if latest.as_ref().is_none_or(|l| changed > *l) {
            latest = Some(changed);
        }
    }
    // After a failure the cursor stays where it was: the next run reads the same changes again,
    // and skips those handled now as handled.
    if report.failed.is_empty() {
        cursor.since = latest;
    }
    Ok(report)
}
