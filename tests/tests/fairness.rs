//! Many stores, fairly: 50 stores in the mock share one bound of 4 calls in flight; one store
//! queues a large export first, the 49 others make 3 calls each. With a [`FairShare`] the small
//! stores are served in turn beside the big one (done within a few rounds); with one FIFO
//! semaphore, what a team writes without it, they wait behind the whole export.

use std::time::Duration;

use store_admin::fair::FairShare;
use store_admin_tests::fairness::{Bound, mock, run};

const STORES: usize = 50;
const BIG: usize = 600;
const SMALL: usize = 3;
const CONCURRENCY: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_with_a_long_queue_does_not_delay_the_others() {
    let server = mock(STORES, Duration::from_millis(2)).await;
    let share = FairShare::new(CONCURRENCY);
    let fair = run(&server, STORES, BIG, SMALL, Bound::Fair(share.clone())).await;
    assert_eq!(fair.finished.len(), BIG + (STORES - 1) * SMALL);
    assert_eq!(share.in_flight(), 0, "every permit is given back");
    // One turn per round for the big store: the small ones are done after SMALL rounds (a few
    // more while their calls are still being queued), while the big store had as many turns and
    // the calls it had in flight. Measured: 7 to 10.
    let big_first = fair.big_before_small_done();
    eprintln!("fair: {big_first} of the big store's calls while the small stores were served");
    assert!(
        big_first <= 4 * SMALL + 2 * CONCURRENCY,
        "{big_first} of the big store's calls finished before the small stores were done"
    );

    // The same scenario behind one FIFO semaphore: the small stores wait for the export.
    let fifo = run(
        &server,
        STORES,
        BIG,
        SMALL,
        Bound::Fifo(std::sync::Arc::new(tokio::sync::Semaphore::new(
            CONCURRENCY,
        ))),
    )
    .await;
    eprintln!("FIFO: {}", fifo.big_before_small_done());
    assert!(
        fifo.big_before_small_done() > BIG / 2,
        "the scenario starves small stores without fairness: {}",
        fifo.big_before_small_done()
    );
}
