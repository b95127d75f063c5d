//! One pagination stream for every list operation.
//!
//! The service pages by number. [`Paginate::pages`] and [`Paginate::items`] turn any generated list
//! builder (with its filters already set) into a stream: page 1 first; once `totalPages` is known,
//! the remaining pages are fetched up to `concurrency` at a time while items are yielded strictly in
//! order (`futures`' `buffered` keeps at most `concurrency` pages in memory, and as many requests
//! under way).
//!
//! Where a list ends: at `totalPages`, or at the first page that is empty or short (fewer records
//! than a page holds), whichever comes first, and never past the first page's `totalPages` nor
//! [`PageOptions::max_pages`]. So a pagination object that lies (a `totalPages` of 10^15) cannot
//! make it run on: it stops at the page where the records end, having asked for at most
//! `concurrency - 1` pages past it (those requests are dropped with the stream). A page that
//! reports another page number than the one asked for is an error, not a silently dropped or
//! repeated page.
//!
//! A record that does not decode fails the list there ([`Error::Record`]: the operation, the page,
//! the record's index and the JSON path), as it always did, or, with
//! [`PageOptions::skip_undecodable`], is left out and reported to a [`Skipped`] the caller keeps,
//! and the list goes on: one odd order does not stop an export of 50,000. The stream reads a page's
//! answer itself, its records kept as they decode: a clean page costs one decode, and a page with
//! a bad record is read on from that record only ([`undecodable`]).

use std::num::NonZeroU64;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use store_admin_client::{PageParts, PagedRequest, types};

use crate::error::Error;

pub mod consistent;
pub mod undecodable;

pub use consistent::{Checkpoint, Consistency, ConsistencyReport};
pub use undecodable::{Skipped, Undecodable, UndecodableRecord};

/// How a list is paged.
#[derive(Debug, Clone)]
pub struct PageOptions {
    /// Items per page (the service allows 1 to 60). Default 60: the fewest requests.
    pub per_page: NonZeroU64,
    /// Pages fetched at once after the first. Default 4; 1 pages strictly one after the other.
    pub concurrency: usize,
    /// Never fetch more pages than this, whatever the pagination object says. Default 100,000.
    pub max_pages: u64,
    /// What a record that does not decode does to the list: fail it (the default), or be
    /// skipped and reported ([`PageOptions::skip_undecodable`]).
    pub undecodable: Undecodable,
    /// Whether the list is read as a consistent export ([`PageOptions::consistent`]). Default
    /// none: pages as the service answers them.
    pub consistency: Option<Consistency>,
}

impl Default for PageOptions {
    fn default() -> Self {
        Self {
            per_page: NonZeroU64::new(60).expect("60 is not zero"),
            concurrency: 4,
            max_pages: 100_000,
            undecodable: Undecodable::Fail,
            consistency: None,
        }
    }
}

impl PageOptions {
    /// Sets the page size (clamped to 1..=60).
    pub fn per_page(mut self, per_page: u64) -> Self {
        self.per_page = NonZeroU64::new(per_page.clamp(1, 60)).unwrap_or(self.per_page);
        self
    }

    /// Sets how many pages are fetched at once (at least 1).
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// Sets the most pages ever fetched.
    pub fn max_pages(mut self, max_pages: u64) -> Self {
        self.max_pages = max_pages.max(1);
        self
    }

    /// Records that do not decode are left out of the list and reported to `skipped` (a handle
    /// the caller keeps: clones share one report), and the list goes on. Without it, the first
    /// such record fails the list with [`Error::Record`].
    ///
    /// ```no_run
    /// # async fn run(admin: store_admin::StoreAdmin) -> Result<(), store_admin::Error> {
    /// use futures::TryStreamExt;
    /// use store_admin::prelude::*;
    /// use store_admin::{PageOptions, Paginate, Skipped};
    ///
    /// let skipped = Skipped::new();
    /// let orders: Vec<_> = admin
    ///     .list_orders()
    ///     .items(PageOptions::default().skip_undecodable(&skipped))
    ///     .try_collect()
    ///     .await?;
    /// for record in skipped.records() {
    ///     eprintln!("skipped: {record}"); // operation, page, index, JSON path, the record
    /// }
    /// # Ok(()) }
    /// ```
    pub fn skip_undecodable(mut self, skipped: &Skipped) -> Self {
        self.undecodable = Undecodable::Skip(skipped.clone());
        self
    }

    /// Reads the list as an export that survives a store changing under it: a record already
    /// yielded is never yielded again, and when `pagination.total` changes while the list is
    /// read, the list is read again at the end for the records that moved past the pages
    /// already read, up to [`Consistency::max_passes`] readings. `consistency` (a handle the
    /// caller keeps) tells what was done ([`Consistency::report`]) and what an interrupted export
    /// resumes from ([`Consistency::checkpoint`], [`Consistency::resume`]). See [`consistent`].
    pub fn consistent(mut self, consistency: &Consistency) -> Self {
        self.consistency = Some(consistency.clone());
        self
    }
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct Page<T> {
    /// The page number, from 1.
    pub number: u64,
    /// The items, in order (without the records skipped as undecodable).
    pub items: Vec<T>,
    /// The pagination object of the page.
    pub pagination: Option<types::Pagination>,
}

impl<T> Page<T> {
    /// The page's records: the answer's `data`, as the service calls them (the same as
    /// [`items`](Self::items), the field's name since 0.2).
    pub fn data(&self) -> &[T] {
        &self.items
    }

    /// The page's records, owned (the answer's `data`).
    pub fn into_data(self) -> Vec<T> {
        self.items
    }
}

/// Pagination for every generated list builder (every operation implementing
/// [`PagedRequest`]): `client.list_orders().status(vec![1]).pages(options)`.
pub trait Paginate<'a>: PagedRequest<'a> {
    /// Every page, in order.
    fn pages(self, options: PageOptions) -> BoxStream<'a, Result<Page<Self::Item>, Error>> {
        paginate(self, options)
    }

    /// Every item of every page, in order.
    fn items(self, options: PageOptions) -> BoxStream<'a, Result<Self::Item, Error>> {
        paginate(self, options)
            .map_ok(|page| stream::iter(page.items.into_iter().map(Ok)))
            .try_flatten()
            .boxed()
    }

    /// Every item, collected (for small lists).
    fn collect_all(
        self,
        options: PageOptions,
    ) -> futures::future::BoxFuture<'a, Result<Vec<Self::Item>, Error>> {
        Box::pin(self.items(options).try_collect())
    }
}

impl<'a, R: PagedRequest<'a>> Paginate<'a> for R {}

/// A page as fetched: the page, and how many records its answer held (decoded or skipped), which
/// says whether the list ends there.
struct Fetched<T> {
    page: Page<T>,
    records: usize,
    skipped: Vec<UndecodableRecord>,
}

impl<T> Fetched<T> {
    /// Whether the list ends with this page: it is empty, or short, holding fewer records than a
    /// page of `per_page` (or of the smaller page size the service says it used).
    fn ends_list(&self, per_page: NonZeroU64) -> bool {
        let size = match &self.page.pagination {
            Some(p) if p.per_page > 0 && (p.per_page as u64) < per_page.get() => p.per_page as u64,
            _ => per_page.get(),
        };
        (self.records as u64) < size
    }

    /// The page, as the stream yields it: its skipped records are reported then, so that the
    /// report is in the list's order however many pages were fetched at once.
    fn into_page(self, undecodable: &Undecodable) -> Page<T> {
        if let Undecodable::Skip(report) = undecodable {
            #[cfg(feature = "metrics")]
            if let Some(first) = self.skipped.first() {
                crate::metrics::skipped(first.operation, self.skipped.len());
            }
            self.skipped
                .into_iter()
                .for_each(|record| report.push(record));
        }
        self.page
    }
}

async fn fetch<'a, R: PagedRequest<'a>>(
    request: R,
    number: u64,
    undecodable: &Undecodable,
) -> Result<Fetched<R::Item>, Error> {
    use progenitor_client::Error as P;
    let page = NonZeroU64::new(number).ok_or_else(|| Error::InvalidRequest("page 0".into()))?;
    // A 200 (every paged list's documented success) is read here, record by record as they
    // decode ([`undecodable::read_records`]); anything else goes through the generated code.
    let (sent, kept) = crate::runtime::handoff::keeping_answer(
        reqwest::StatusCode::OK,
        request.with_page(page).send_page(),
    )
    .await;
    if let Some(failure) = kept.failure {
        return Err(failure);
    }
    let body = match (kept.answer, sent) {
        (Some(body), _) | (None, Err(P::InvalidResponsePayload(body, _))) => body,
        (None, Ok(response)) => {
            let PageParts { items, pagination } = R::into_parts(response.into_inner());
            return Fetched::checked(
                R::OPERATION_ID,
                number,
                items.len(),
                items,
                pagination,
                Vec::new(),
            );
        }
        (None, Err(error)) => {
            return Err(Error::from_progenitor::<R::Response>(
                error,
                Some(R::OPERATION_ID),
            ));
        }
    };
    let page =
        match undecodable::read_records::<R::Item>(R::OPERATION_ID, number, &body, undecodable) {
            Ok(page) => page,
            Err(undecodable::PageFailure::Record(error)) => return Err(error),
            Err(undecodable::PageFailure::Page(error)) => {
                return Err(Error::from_progenitor::<R::Response>(
                    P::InvalidResponsePayload(body, error),
                    Some(R::OPERATION_ID),
                ));
            }
        };
    if let (Some(sample), true) = (kept.sample, page.skipped.is_empty()) {
        sample.observe::<R::Response>(R::OPERATION_ID);
    }
    Fetched::checked(
        R::OPERATION_ID,
        number,
        page.records,
        page.items,
        page.pagination,
        page.skipped,
    )
}

impl<T> Fetched<T> {
    /// Page `number` of `operation` as fetched (`records` records in its answer, `skipped` of
    /// them left out), once its pagination object is checked to be of that page.
    fn checked(
        operation: &'static str,
        number: u64,
        records: usize,
        items: Vec<T>,
        pagination: Option<types::Pagination>,
        skipped: Vec<UndecodableRecord>,
    ) -> Result<Self, Error> {
        if let Some(p) = &pagination {
            // Some documented examples report page 0 for an empty list; any other mismatch means
            // the service answered for another page than asked, which would drop or repeat items.
            if p.current_page != 0 && p.current_page as u64 != number {
                return Err(Error::Pagination {
                    operation: Some(operation),
                    detail: format!(
                        "asked for page {number}, the service answered page {}",
                        p.current_page
                    ),
                });
            }
        }
        Ok(Fetched {
            page: Page {
                number,
                items,
                pagination,
            },
            records,
            skipped,
        })
    }
}

fn paginate<'a, R: PagedRequest<'a>>(
    request: R,
    options: PageOptions,
) -> BoxStream<'a, Result<Page<R::Item>, Error>> {
    match options.consistency.clone() {
        Some(consistency) => consistent::paginate(request, options, consistency),
        None => paginate_from(request, &options, 1),
    }
}

/// The pages of a list from page `start` on (see the module documentation for where it ends).
fn paginate_from<'a, R: PagedRequest<'a>>(
    request: R,
    options: &PageOptions,
    start: u64,
) -> BoxStream<'a, Result<Page<R::Item>, Error>> {
    let options = options.clone();
    let per_page = options.per_page;
    let request = request.with_per_page(per_page);
    let first = {
        let request = request.clone();
        let undecodable = options.undecodable.clone();
        async move { fetch(request, start, &undecodable).await }
    };
    stream::once(first)
        .map(
            move |first| -> BoxStream<'a, Result<Page<R::Item>, Error>> {
                let first = match first {
                    Ok(first) => first,
                    Err(e) => return stream::once(async { Err(e) }).boxed(),
                };
                let total_pages = first
                    .page
                    .pagination
                    .as_ref()
                    .map(|p| p.total_pages.max(0) as u64)
                    .unwrap_or(1)
                    .min(options.max_pages);
                let ends = first.ends_list(per_page);
                let undecodable = options.undecodable.clone();
                let head = stream::once(async move { Ok(first.into_page(&undecodable)) });
                if ends || total_pages <= start {
                    return head.boxed();
                }
                let request = request.clone();
                let undecodable = options.undecodable.clone();
                let fetching = {
                    let undecodable = undecodable.clone();
                    stream::iter(start + 1..=total_pages)
                        .map(move |number| {
                            let request = request.clone();
                            let undecodable = undecodable.clone();
                            async move { fetch(request, number, &undecodable).await }
                        })
                        .buffered(options.concurrency.max(1))
                        .boxed()
                };
                // The first empty page ends the list unseen, the first short one after it is
                // yielded: the pages past either would be empty, whatever `totalPages` says. The
                // list ends without polling the fetches again, so none past those already under
                // way (at most `concurrency - 1`) is started; they are dropped with the stream.
                let rest = stream::unfold(Some(fetching), move |fetching| {
                    let undecodable = undecodable.clone();
                    async move {
                        let mut fetching = fetching?;
                        match fetching.next().await? {
                            Ok(fetched) if fetched.records == 0 => None,
                            Ok(fetched) => {
                                let more = (!fetched.ends_list(per_page)).then_some(fetching);
                                Some((Ok(fetched.into_page(&undecodable)), more))
                            }
                            Err(e) => Some((Err(e), None)),
                        }
                    }
                });
                head.chain(rest).boxed()
            },
        )
        .flatten()
        // The stream ends after its first error: a consumer that goes on reading must not see
        // later pages with a gap before them.
        .scan(false, |failed, page| {
            if *failed {
                return futures::future::ready(None);
            }
            *failed = page.is_err();
            futures::future::ready(Some(page))
        })
        .boxed()
}
