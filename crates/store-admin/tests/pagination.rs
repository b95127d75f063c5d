//! The pagination stream against the mock store over real HTTP: a record that does not decode
//! (the mock's `corrupt_records` fault) fails the list or is skipped and reported, as the caller
//! chooses; a `totalPages` that lies (the mock's `total_pages` fault) does not make the list run
//! past its last records.

use futures::{StreamExt, TryStreamExt};
use store_admin::prelude::*;
use store_admin::{Error, PageOptions, Paginate, Skipped, StoreAdmin, types};
use store_admin_mock::{CorruptRecordsFault, FaultConfig, MockConfig, MockServer, TotalPagesFault};

const TOKEN: &str = "paging-token";
const OPERATION: &str = "list_product_quantities";

async fn mock(products: usize) -> MockServer {
    MockServer::start(
        MockConfig::new()
            .products(products)
            .seed(11)
            .token_all_scopes(TOKEN),
    )
    .await
    .expect("mock starts")
}

fn admin(server: &MockServer) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .expect("client builds")
}

fn corrupt_every(every: u64) -> FaultConfig {
    FaultConfig {
        corrupt_records: Some(CorruptRecordsFault {
            every,
            operations: vec![OPERATION.into()],
        }),
        ..FaultConfig::default()
    }
}

async fn quantities(
    admin: &StoreAdmin,
    options: PageOptions,
) -> Result<Vec<types::ProductQuantity>, Error> {
    admin
        .list_product_quantities()
        .items(options)
        .try_collect()
        .await
}

fn requests(server: &MockServer) -> u64 {
    server
        .request_counts()
        .get(OPERATION)
        .map_or(0, |counts| counts.total)
}

#[tokio::test]
async fn a_strict_list_fails_at_the_first_bad_record_naming_operation_page_index_and_path() {
    let server = mock(60).await;
    let admin = admin(&server);
    // Positions 25, 50, ...: the first is record 4 of page 3 at 10 a page.
    server.set_faults(corrupt_every(25)).expect("valid faults");
    let mut items = admin
        .list_product_quantities()
        .items(PageOptions::default().per_page(10).concurrency(3));
    let mut good = 0;
    let error = loop {
        match items.next().await.expect("the list fails before it ends") {
            Ok(_) => good += 1,
            Err(error) => break error,
        }
    };
    assert_eq!(
        good, 20,
        "every record of the pages before the bad one is yielded"
    );
    assert!(
        items.next().await.is_none(),
        "nothing after the error: no gap"
    );
    let Error::Record(record) = &error else {
        panic!("not a record error: {error:?}");
    };
    assert_eq!(
        (
            record.operation,
            record.page,
            record.index,
            record.path.as_str()
        ),
        (OPERATION, 3, 4, "data[4].id")
    );
    assert!(record.record.contains("corrupt"), "{}", record.record);
    let text = error.to_string();
    assert!(
        text.starts_with(
            "list_product_quantities: record 4 of page 3 does not match the API document at `data[4].id`: "
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_lenient_list_yields_every_good_record_in_order_and_reports_each_bad_one() {
    let server = mock(100).await;
    let admin = admin(&server);
    let clean = quantities(&admin, PageOptions::default().per_page(15))
        .await
        .expect("clean list");
    assert!(clean.len() > 150, "several pages ({})", clean.len());

    server.set_faults(corrupt_every(7)).expect("valid faults");
    let skipped = Skipped::new();
    let lenient = quantities(
        &admin,
        PageOptions::default()
            .per_page(15)
            .concurrency(4)
            .skip_undecodable(&skipped),
    )
    .await
    .expect("a lenient list does not fail on a record");

    // Positions 7, 14, ... (from 1) are the bad ones; every other record comes, in order.
    let expected: Vec<_> = clean
        .iter()
        .enumerate()
        .filter(|(i, _)| (i + 1) % 7 != 0)
        .map(|(_, q)| q.clone())
        .collect();
    assert_eq!(lenient, expected);
    assert_eq!(skipped.len(), clean.len() / 7);
    let reported: Vec<(u64, usize)> = skipped
        .records()
        .iter()
        .map(|r| (r.page, r.index))
        .collect();
    let positions: Vec<(u64, usize)> = (1..=clean.len() / 7)
        .map(|n| {
            let at = n * 7 - 1;
            ((at / 15) as u64 + 1, at % 15)
        })
        .collect();
    assert_eq!(
        reported, positions,
        "each bad record, by page and index, in order"
    );
    for record in skipped.records() {
        assert_eq!(record.operation, OPERATION);
        assert_eq!(record.path, format!("data[{}].id", record.index));
    }

    // The same list without the option still fails, as it always did.
    let strict = quantities(&admin, PageOptions::default().per_page(15)).await;
    assert!(matches!(strict, Err(Error::Record(_))), "{strict:?}");
}

#[tokio::test]
async fn a_lying_total_pages_stops_at_the_short_page_with_prefetch_bounded() {
    let server = mock(40).await;
    let admin = admin(&server);
    let clean = quantities(&admin, PageOptions::default().per_page(10))
        .await
        .expect("clean list");
    let total = clean.len();
    assert!(total % 10 != 0, "the last page is short ({total})");
    server
        .set_faults(FaultConfig {
            total_pages: Some(TotalPagesFault {
                claim: 1_000_000_000_000_000,
                operations: vec![],
            }),
            ..FaultConfig::default()
        })
        .expect("valid faults");
    for concurrency in [1, 4] {
        let before = requests(&server);
        let listed = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            quantities(
                &admin,
                PageOptions::default().per_page(10).concurrency(concurrency),
            ),
        )
        .await
        .expect("the list ends")
        .expect("lists");
        assert_eq!(
            listed, clean,
            "every record once, concurrency {concurrency}"
        );
        let pages = total.div_ceil(10) as u64;
        let asked = requests(&server) - before;
        assert!(
            asked >= pages && asked < pages + concurrency as u64,
            "{asked} requests for {pages} pages at concurrency {concurrency}"
        );
    }
}

#[tokio::test]
async fn a_lying_total_pages_stops_at_the_empty_page_after_full_ones() {
    // A store whose list has a page size that divides it: its last page is full, the next one
    // empty (a prime number of records has none: take the next store size).
    let mut found = None;
    for products in 40..60 {
        let server = mock(products).await;
        let clean = quantities(&admin(&server), PageOptions::default().per_page(60))
            .await
            .expect("clean list");
        let total = clean.len() as u64;
        if let Some(per_page) = (2..=30u64).find(|n| total.is_multiple_of(*n) && total / n >= 2) {
            found = Some((server, clean, per_page));
            break;
        }
    }
    let (server, clean, per_page) = found.expect("a store size with a divisible list");
    let admin = admin(&server);
    server
        .set_faults(FaultConfig {
            total_pages: Some(TotalPagesFault {
                claim: 1_000_000_000_000_000,
                operations: vec![],
            }),
            ..FaultConfig::default()
        })
        .expect("valid faults");
    let pages: Vec<_> = admin
        .list_product_quantities()
        .pages(PageOptions::default().per_page(per_page).concurrency(2))
        .try_collect()
        .await
        .expect("lists");
    assert_eq!(
        pages.len() as u64,
        clean.len() as u64 / per_page,
        "the empty page is not a page"
    );
    let listed: Vec<_> = pages.into_iter().flat_map(|p| p.items).collect();
    assert_eq!(listed, clean);
}
