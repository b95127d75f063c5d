//! Many stores, fairly: how long 49 stores' few calls take (3 each) beside one store's large
//! export (1,000 calls queued first), all sharing 8 calls in flight, against the mock at 5 ms a
//! call: alone (the baseline), with a `FairShare`, and behind one FIFO semaphore. Prints the
//! ratios to the baseline, measured in the same run.
//!
//! `cargo bench -p store-admin-tests --bench fairness`

use std::sync::Arc;
use std::time::Duration;

use store_admin::fair::FairShare;
use store_admin_tests::fairness::{Bound, mock, run};

const STORES: usize = 50;
const BIG: usize = 1_000;
const SMALL: usize = 3;
const CONCURRENCY: usize = 8;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let server = mock(STORES, Duration::from_millis(5)).await;
        let rounds = 3;
        let (mut alone, mut fair, mut fifo) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let share = FairShare::new(CONCURRENCY);
            alone.push(
                run(&server, STORES, 0, SMALL, Bound::Fair(share.clone()))
                    .await
                    .small_stores_took,
            );
            fair.push(
                run(&server, STORES, BIG, SMALL, Bound::Fair(share))
                    .await
                    .small_stores_took,
            );
            let semaphore = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
            fifo.push(
                run(&server, STORES, BIG, SMALL, Bound::Fifo(semaphore))
                    .await
                    .small_stores_took,
            );
        }
        let median = |times: &mut Vec<Duration>| {
            times.sort();
            times[times.len() / 2]
        };
        let (alone, fair, fifo) = (median(&mut alone), median(&mut fair), median(&mut fifo));
        println!(
            "{} small stores x {SMALL} calls, {CONCURRENCY} in flight, mock at 5 ms a call, medians of {rounds}:",
            STORES - 1
        );
        println!("  alone:                          {alone:>10.2?}");
        println!(
            "  beside {BIG} queued calls, fair:  {fair:>10.2?}  ({:.2}x alone)",
            fair.as_secs_f64() / alone.as_secs_f64()
        );
        println!(
            "  beside {BIG} queued calls, FIFO:  {fifo:>10.2?}  ({:.2}x alone)",
            fifo.as_secs_f64() / alone.as_secs_f64()
        );
    });
}
