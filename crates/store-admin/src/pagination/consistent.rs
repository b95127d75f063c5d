//! Exports that survive a store changing under them, and resume after an interruption.
//!
//! The service pages by number, so a list read while the store changes shifts under the reader:
//! a record created while page 5 is read pushes every older record one place back (the last
//! record of page 5 is read again as the first of page 6), and a record deleted pulls them one
//! place forward (the first record of page 6 moves to page 5, already read, and is never seen).
//! Measured against the mock store: exporting products while 8 were deleted lost 4 that existed
//! throughout, and while 8 were created repeated 3.
//!
//! A consistent read ([`PageOptions::consistent`](super::PageOptions::consistent)) therefore:
//!
//! - keeps the key of every record it yielded (its `id`, or the fields the document's
//!   `x-record-key` names for the list's items, [`PagedRequest::RECORD_KEY`]; else its `uuid`,
//!   `slug` or `code`) and drops a record whose key it has yielded already (counted in
//!   [`ConsistencyReport::repeated`]);
//! - watches `pagination.total`: when it changes while the list is read, records may have moved
//!   past pages already read, so once the last page is in, the list is read again from page 1
//!   and what the first reading missed is yielded ([`ConsistencyReport::recovered`]), until a
//!   whole reading sees the total unchanged or [`Consistency::max_passes`] readings were made;
//! - says what it could not guarantee ([`ConsistencyReport::complete`] is false when the total
//!   was still changing during the last reading allowed, or when records without a key were
//!   read again).
//!
//! What is left out is records deleted before the reading reached them (they no longer exist)
//! and, when the store keeps changing through every reading, possibly some that moved; a record
//! created during the export may or may not be in it. The cost of a consistent read is the keys
//! (a few bytes per record) and, only when the list changed, a second reading.
//!
//! The handle also says where an interrupted export stands ([`Consistency::checkpoint`]): the
//! reading, the last page done and the keys yielded. A caller that stored them (after writing
//! each page) continues with [`Consistency::resume`]: the export goes on from the next page, and
//! the keys keep the records written before the interruption from being written again. The
//! CLI's `--all --resume FILE` does this with a journal of pages.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::stream::{self, BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use store_admin_client::PagedRequest;

use super::{Page, PageOptions, paginate_from};
use crate::error::Error;

/// The fields that identify a record without any of its list's key fields, in order of preference.
const FALLBACK_KEYS: [&str; 3] = ["uuid", "slug", "code"];

/// Readings of a list, at most, by default (the first and two more).
const DEFAULT_MAX_PASSES: u32 = 3;

/// Where a consistent export stands: what [`Consistency::resume`] needs, but the keys (which
/// [`Consistency::seen`] gives, and a journal stores page by page).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Checkpoint {
    /// The reading of the list under way: 1 the first, 2 and on a reading again after the list
    /// changed.
    pub pass: u32,
    /// The last page of this reading that was yielded whole (0: none yet).
    pub page: u64,
    /// `pagination.total` as last seen.
    pub total: Option<u64>,
    /// `pagination.total` on the export's first page.
    pub first_total: Option<u64>,
    /// Whether the total changed during this reading (the list is then read again at the end).
    pub changed: bool,
    /// Records the first reading dropped because they had been yielded already (a reading
    /// again drops every record yielded before: those are not counted).
    pub repeated: u64,
    /// Records yielded by a reading after the first: the first reading missed them.
    pub recovered: u64,
    /// Records without a key (they cannot be told apart): yielded by the first reading, left
    /// out by the others.
    pub unkeyed: u64,
    /// Records yielded in all.
    pub yielded: u64,
}

/// What a consistent export did, once its stream has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConsistencyReport {
    /// Readings of the list (1 when it did not change while it was read).
    pub passes: u32,
    /// Records yielded in all.
    pub yielded: u64,
    /// Records dropped as already yielded (the list moved back under the reader).
    pub repeated: u64,
    /// Records found by a reading again that the first missed (the list moved forward).
    pub recovered: u64,
    /// Records without a key, which could not be checked.
    pub unkeyed: u64,
    /// `pagination.total` on the export's first page.
    pub first_total: Option<u64>,
    /// `pagination.total` on its last page.
    pub last_total: Option<u64>,
    /// Whether every record that existed throughout the export is in it: false when the total
    /// still changed during the last reading allowed, or records without a key were read again.
    pub complete: bool,
}

impl fmt::Display for ConsistencyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} record(s) in {} reading(s)",
            self.yielded, self.passes
        )?;
        if let (Some(first), Some(last)) = (self.first_total, self.last_total)
            && first != last
        {
            write!(
                f,
                "; the list changed while it was read (total {first} -> {last})"
            )?;
        }
        if self.repeated > 0 {
            write!(f, "; {} repeated record(s) dropped", self.repeated)?;
        }
        if self.recovered > 0 {
            write!(
                f,
                "; {} record(s) the first reading missed were found by reading again",
                self.recovered
            )?;
        }
        if !self.complete {
            if self.unkeyed > 0 && self.passes > 1 {
                write!(
                    f,
                    "; {} record(s) have no id, so a reading again cannot tell which are missing",
                    self.unkeyed
                )?;
            } else {
                write!(
                    f,
                    "; the list was still changing during the last reading, so records that moved \
                     while it was read may be missing"
                )?;
            }
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct State {
    checkpoint: Checkpoint,
    seen: HashSet<String>,
    page_keys: Vec<String>,
    done: bool,
}

/// The key of `record` by the list's key `fields` (see [`PagedRequest::RECORD_KEY`]): their
/// values joined by `:` (text, or a number written as text; absent or null as nothing), else,
/// when the record has none of them, its `uuid`, `slug` or `code`; none for a record without any.
fn key_of<T: Serialize>(record: &T, fields: &[&str]) -> Option<String> {
    let value = serde_json::to_value(record).ok()?;
    let text = |field: &str| match value.get(field)? {
        serde_json::Value::String(text) if !text.is_empty() => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    let parts: Vec<Option<String>> = fields.iter().map(|f| text(f)).collect();
    if parts.iter().any(Option::is_some) {
        let parts: Vec<String> = parts.into_iter().map(Option::unwrap_or_default).collect();
        return Some(parts.join(":"));
    }
    FALLBACK_KEYS.iter().find_map(|f| text(f))
}

/// The handle of a consistent export (see the [module documentation](self)): the caller keeps a
/// clone to read the [`report`](Self::report) and the [`checkpoint`](Self::checkpoint); clones
/// share one state.
#[derive(Clone)]
pub struct Consistency {
    state: Arc<Mutex<State>>,
    max_passes: u32,
}

impl Default for Consistency {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Consistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Consistency")
            .field("checkpoint", &state.checkpoint)
            .field("seen", &state.seen.len())
            .field("max_passes", &self.max_passes)
            .finish()
    }
}

impl Consistency {
    /// A new export, from page 1.
    pub fn new() -> Self {
        Self {
            state: Arc::default(),
            max_passes: DEFAULT_MAX_PASSES,
        }
    }

    /// An export that continues after `checkpoint`, the records of keys `seen` already written.
    pub fn resume(checkpoint: Checkpoint, seen: impl IntoIterator<Item = String>) -> Self {
        let state = State {
            checkpoint,
            seen: seen.into_iter().collect(),
            page_keys: Vec::new(),
            done: false,
        };
        Self {
            state: Arc::new(Mutex::new(state)),
            max_passes: DEFAULT_MAX_PASSES,
        }
    }

    /// Sets the most readings of the list (at least 1; default 3).
    pub fn max_passes(mut self, passes: u32) -> Self {
        self.max_passes = passes.max(1);
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while the lock was held leaves numbers, never a broken invariant.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Where the export stands: after each page the stream yields, the state with that page done.
    pub fn checkpoint(&self) -> Checkpoint {
        self.lock().checkpoint.clone()
    }

    /// How many records' keys are held.
    pub fn seen(&self) -> usize {
        self.lock().seen.len()
    }

    /// The keys of the records of the page the stream yielded last, in order (without the
    /// records that have none): what a caller stores with the page's output, to
    /// [`resume`](Self::resume) with.
    pub fn page_keys(&self) -> Vec<String> {
        self.lock().page_keys.clone()
    }

    /// What the export did; `None` while its stream has not ended.
    pub fn report(&self) -> Option<ConsistencyReport> {
        let state = self.lock();
        state.done.then(|| {
            let c = &state.checkpoint;
            ConsistencyReport {
                passes: c.pass.max(1),
                yielded: c.yielded,
                repeated: c.repeated,
                recovered: c.recovered,
                unkeyed: c.unkeyed,
                first_total: c.first_total,
                last_total: c.total,
                complete: !(c.changed || (c.unkeyed > 0 && c.pass > 1)),
            }
        })
    }

    /// Takes a page in: drops what was yielded already (telling records apart by the key
    /// `fields`) and updates the state.
    fn take<T: Serialize>(&self, mut page: Page<T>, fields: &[&str]) -> Page<T> {
        let mut state = self.lock();
        let State {
            checkpoint,
            seen,
            page_keys,
            ..
        } = &mut *state;
        page_keys.clear();
        if let Some(total) = page.pagination.as_ref().map(|p| p.total.max(0) as u64) {
            if checkpoint.first_total.is_none() {
                checkpoint.first_total = Some(total);
            }
            if checkpoint.total.is_some_and(|known| known != total) {
                checkpoint.changed = true;
            }
            checkpoint.total = Some(total);
        }
        let later = checkpoint.pass > 1;
        page.items.retain(|item| match key_of(item, fields) {
            Some(key) => {
                let new = seen.insert(key.clone());
                if new {
                    page_keys.push(key);
                }
                match (new, later) {
                    (true, true) => checkpoint.recovered += 1,
                    (false, false) => checkpoint.repeated += 1,
                    _ => {}
                }
                new
            }
            None => {
                if !later {
                    checkpoint.unkeyed += 1;
                }
                !later
            }
        });
        checkpoint.page = page.number;
        checkpoint.yielded += page.items.len() as u64;
        page
    }

    /// At the end of a reading: whether to read the list again (and the state for it).
    fn next_pass(&self) -> bool {
        let mut state = self.lock();
        let checkpoint = &mut state.checkpoint;
        if checkpoint.changed && checkpoint.pass < self.max_passes {
            checkpoint.pass += 1;
            checkpoint.page = 0;
            checkpoint.changed = false;
            true
        } else {
            state.done = true;
            false
        }
    }
}

/// The pages of a consistent export of `request` (see the module documentation).
pub(super) fn paginate<'a, R: PagedRequest<'a>>(
    request: R,
    options: PageOptions,
    consistency: Consistency,
) -> BoxStream<'a, Result<Page<R::Item>, Error>> {
    {
        let mut state = consistency.lock();
        state.done = false;
        if state.checkpoint.pass == 0 {
            state.checkpoint.pass = 1;
        }
    }
    struct Reading<'a, T> {
        pages: Option<BoxStream<'a, Result<Page<T>, Error>>>,
        failed: bool,
    }
    let start = Reading {
        pages: None,
        failed: false,
    };
    stream::unfold(start, move |mut reading| {
        let request = request.clone();
        let options = options.clone();
        let consistency = consistency.clone();
        async move {
            if reading.failed {
                return None;
            }
            loop {
                let pages = match reading.pages.as_mut() {
                    Some(pages) => pages,
                    None => {
                        let next = consistency.checkpoint().page + 1;
                        reading
                            .pages
                            .insert(paginate_from(request.clone(), &options, next))
                    }
                };
                match pages.next().await {
                    Some(Ok(page)) => {
                        return Some((Ok(consistency.take(page, R::RECORD_KEY)), reading));
                    }
                    Some(Err(error)) => {
                        reading.failed = true;
                        return Some((Err(error), reading));
                    }
                    None if consistency.next_pass() => reading.pages = None,
                    None => return None,
                }
            }
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        id: Option<i64>,
        slug: Option<&'static str>,
    }

    fn page(number: u64, total: i64, ids: &[i64]) -> Page<Row> {
        Page {
            number,
            items: ids
                .iter()
                .map(|&id| Row {
                    id: Some(id),
                    slug: None,
                })
                .collect(),
            // `Pagination` is `#[non_exhaustive]`: read from its JSON, as the service sends it.
            pagination: Some(
                serde_json::from_value(serde_json::json!({
                    "count": ids.len(),
                    "currentPage": number,
                    "perPage": 2,
                    "total": total,
                    "totalPages": (total + 1) / 2,
                }))
                .expect("a pagination"),
            ),
        }
    }

    #[test]
    fn keys_are_the_key_fields_else_another_identifying_field() {
        let row = |id, slug| Row { id, slug };
        assert_eq!(key_of(&row(Some(7), Some("x")), &["id"]), Some("7".into()));
        assert_eq!(
            key_of(&row(Some(7), Some("x")), &["id", "slug"]),
            Some("7:x".into())
        );
        assert_eq!(
            key_of(&row(Some(7), None), &["id", "slug"]),
            Some("7:".into())
        );
        assert_eq!(key_of(&row(None, Some("x")), &["id"]), Some("x".into()));
        assert_eq!(key_of(&row(None, None), &["id"]), None);
    }

    impl Consistency {
        fn take_page(&self, page: Page<Row>) -> Page<Row> {
            self.take(page, &["id"])
        }
    }

    #[test]
    fn a_repeated_record_is_dropped_and_a_changed_total_reads_again() {
        let c = Consistency::new();
        c.lock().checkpoint.pass = 1;
        let first = c.take_page(page(1, 4, &[4, 3]));
        assert_eq!(first.items.len(), 2);
        assert_eq!(c.page_keys(), ["4", "3"]);
        // A record was created: 3 moved to page 2.
        let second = c.take_page(page(2, 5, &[3, 2]));
        assert_eq!(
            second.items.iter().map(|r| r.id).collect::<Vec<_>>(),
            [Some(2)]
        );
        assert!(c.report().is_none(), "no report before the end");
        assert!(c.next_pass(), "the total changed: read again");
        let again = c.take_page(page(1, 5, &[5, 4]));
        assert_eq!(
            again.items.iter().map(|r| r.id).collect::<Vec<_>>(),
            [Some(5)]
        );
        c.take_page(page(2, 5, &[3, 2]));
        c.take_page(page(3, 5, &[1]));
        assert!(!c.next_pass(), "unchanged during the second reading");
        let report = c.report().expect("ended");
        assert_eq!(
            (
                report.passes,
                report.yielded,
                report.repeated,
                report.recovered
            ),
            (2, 5, 1, 2)
        );
        assert!(report.complete, "{report}");
        assert_eq!((report.first_total, report.last_total), (Some(4), Some(5)));
    }

    #[test]
    fn a_list_still_changing_in_the_last_reading_is_reported_incomplete() {
        let c = Consistency::new().max_passes(2);
        c.lock().checkpoint.pass = 1;
        c.take_page(page(1, 4, &[4, 3]));
        c.take_page(page(2, 3, &[1]));
        assert!(c.next_pass());
        c.take_page(page(1, 3, &[4, 2]));
        c.take_page(page(2, 2, &[]));
        assert!(!c.next_pass(), "two readings at most");
        let report = c.report().expect("ended");
        assert!(!report.complete);
        assert!(report.to_string().contains("may be missing"), "{report}");
    }

    #[test]
    fn a_resumed_export_does_not_yield_what_was_written_before() {
        let before = Consistency::new();
        before.lock().checkpoint.pass = 1;
        before.take_page(page(1, 4, &[4, 3]));
        let checkpoint = before.checkpoint();
        assert_eq!((checkpoint.pass, checkpoint.page), (1, 1));
        let resumed = Consistency::resume(checkpoint, ["4".to_owned(), "3".to_owned()]);
        // Two records were created meanwhile: 4 and 3 are now on page 2.
        let page2 = resumed.take_page(page(2, 6, &[4, 3]));
        assert!(page2.items.is_empty());
        assert!(
            resumed.next_pass(),
            "the total changed since the checkpoint"
        );
    }
}
