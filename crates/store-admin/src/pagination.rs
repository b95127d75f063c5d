//! One pagination stream for every list operation.
//!
//! The service pages by number. [`Paginate::pages`] and [`Paginate::items`] turn any generated list
//! builder (with its filters already set) into a stream: page 1 first; once `totalPages` is known,
//! the remaining pages are fetched up to `concurrency` at a time while items are yielded strictly in
//! order (`futures`' `buffered` keeps at most `concurrency` pages in memory). The stream ends at
//! `totalPages`, or at the first empty page, and never asks for more than the first page's
//! `totalPages` (nor more than [`PageOptions::max_pages`]), so a lying pagination object cannot make
//! it loop forever; a page that reports another page number than the one asked for is an error, not
//! a silently dropped or repeated page.

use std::num::NonZeroU64;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use store_admin_client::{PageParts, PagedRequest, types};

use crate::error::Error;

/// How a list is paged.
#[derive(Debug, Clone, Copy)]
pub struct PageOptions {
    /// Items per page (the service allows 1 to 60). Default 60: the fewest requests.
    pub per_page: NonZeroU64,
    /// Pages fetched at once after the first. Default 4; 1 pages strictly one after the other.
    pub concurrency: usize,
    /// Never fetch more pages than this, whatever the pagination object says. Default 100,000.
    pub max_pages: u64,
}

impl Default for PageOptions {
    fn default() -> Self {
        Self {
            per_page: NonZeroU64::new(60).expect("60 is not zero"),
            concurrency: 4,
            max_pages: 100_000,
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
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct Page<T> {
    /// The page number, from 1.
    pub number: u64,
    /// The items, in order.
    pub items: Vec<T>,
    /// The pagination object of the page.
    pub pagination: Option<types::Pagination>,
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

async fn fetch<'a, R: PagedRequest<'a>>(request: R, number: u64) -> Result<Page<R::Item>, Error>
where
    R::Response: serde::de::DeserializeOwned,
{
    let page = NonZeroU64::new(number).ok_or_else(|| Error::InvalidRequest("page 0".into()))?;
    let response = request
        .with_page(page)
        .send_page()
        .await
        .map_err(|e| Error::from_progenitor::<R::Response>(e, Some(R::OPERATION_ID)))?;
    let PageParts { items, pagination } = R::into_parts(response.into_inner());
    if let Some(p) = &pagination {
        // Some documented examples report page 0 for an empty list; any other mismatch means the
        // service answered for another page than asked, which would drop or repeat items.
        if p.current_page != 0 && p.current_page as u64 != number {
            return Err(Error::Pagination {
                operation: Some(R::OPERATION_ID),
                detail: format!(
                    "asked for page {number}, the service answered page {}",
                    p.current_page
                ),
            });
        }
    }
    Ok(Page {
        number,
        items,
        pagination,
    })
}

fn paginate<'a, R: PagedRequest<'a>>(
    request: R,
    options: PageOptions,
) -> BoxStream<'a, Result<Page<R::Item>, Error>>
where
    R::Response: serde::de::DeserializeOwned,
{
    let request = request.with_per_page(options.per_page);
    let first = {
        let request = request.clone();
        async move { fetch(request, 1).await }
    };
    stream::once(first)
        .map(
            move |first| -> BoxStream<'a, Result<Page<R::Item>, Error>> {
                let first = match first {
                    Ok(first) => first,
                    Err(e) => return stream::once(async { Err(e) }).boxed(),
                };
                let total_pages = first
                    .pagination
                    .as_ref()
                    .map(|p| p.total_pages.max(0) as u64)
                    .unwrap_or(1)
                    .min(options.max_pages);
                let rest_empty = first.items.is_empty();
                let head = stream::once(async move { Ok(first) });
                if rest_empty || total_pages <= 1 {
                    return head.boxed();
                }
                let request = request.clone();
                let rest = stream::iter(2..=total_pages)
                    .map(move |number| fetch(request.clone(), number))
                    .buffered(options.concurrency.max(1))
                    // The first empty page ends the list: pages past it would be empty too.
                    .take_while(|page| {
                        futures::future::ready(!matches!(page, Ok(p) if p.items.is_empty()))
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
