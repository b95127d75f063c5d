//! The many-stores scenario of `tests/fairness.rs` and `benches/fairness.rs`: one store with a
//! large export queued first, many stores with a few calls each, every client sharing one bound
//! on the calls in flight.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use store_admin::StoreAdmin;
use store_admin::fair::FairShare;
use store_admin::prelude::*;
use store_admin_mock::{FaultConfig, LatencyFault, MockConfig, MockServer};

/// The token of store `i`.
pub fn token(i: usize) -> String {
    format!("store-{i}-token")
}

/// A mock store answering every one of `stores` tokens after `latency`.
pub async fn mock(stores: usize, latency: Duration) -> MockServer {
    let mut config = MockConfig::new().products(5).faults(FaultConfig {
        latency: Some(LatencyFault {
            millis: latency.as_millis() as u64,
            operations: vec![],
        }),
        ..FaultConfig::default()
    });
    for i in 0..stores {
        config = config.token_all_scopes(token(i));
    }
    MockServer::start(config).await.expect("mock")
}

/// How the calls in flight are bounded.
#[derive(Clone)]
pub enum Bound {
    /// The clients share a [`FairShare`].
    Fair(Arc<FairShare>),
    /// What a team writes without it: one FIFO semaphore around every call.
    Fifo(Arc<tokio::sync::Semaphore>),
}

/// What a run measured: the calls of each store in the order they finished, and the time the
/// small stores took.
pub struct Run {
    /// `(store, when it finished)`, in the order the calls finished.
    pub finished: Vec<(usize, Duration)>,
    /// When the small stores started, from the run's start.
    pub small_stores_started: Duration,
    /// From the small stores' start to their last call's end.
    pub small_stores_took: Duration,
}

impl Run {
    /// How many of the big store's calls finished while the small stores were being served
    /// (after they started, before their last call finished).
    pub fn big_before_small_done(&self) -> usize {
        let last_small = self
            .finished
            .iter()
            .rposition(|(store, _)| *store != 0)
            .unwrap_or(0);
        self.finished[..last_small]
            .iter()
            .filter(|(store, at)| *store == 0 && *at >= self.small_stores_started)
            .count()
    }
}

/// Store 0 queues `big` calls; once they are queued, stores 1 to `stores - 1` make `small`
/// calls each (all at once). `big == 0` measures the small stores alone.
pub async fn run(
    server: &MockServer,
    stores: usize,
    big: usize,
    small: usize,
    bound: Bound,
) -> Run {
    let http = reqwest::Client::new();
    let client = |i: usize| {
        let mut builder = StoreAdmin::builder()
            .with_base_url(server.base_url())
            .with_token(token(i))
            .with_store_label(format!("store-{i}"))
            .with_http_client(http.clone())
            .without_rate_limit();
        if let Bound::Fair(share) = &bound {
            builder = builder.with_fair_share(share.clone());
        }
        builder.build().expect("client")
    };
    let started = Instant::now();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let call = |store: usize, admin: StoreAdmin| {
        let finished = finished.clone();
        let bound = bound.clone();
        async move {
            let _permit = match &bound {
                Bound::Fifo(semaphore) => {
                    Some(semaphore.clone().acquire_owned().await.expect("open"))
                }
                Bound::Fair(_) => None,
            };
            admin.list_order_statuses().send().await.expect("answered");
            finished.lock().unwrap().push((store, started.elapsed()));
        }
    };
    let big_admin = client(0);
    let big_calls: Vec<_> = (0..big)
        .map(|_| tokio::spawn(call(0, big_admin.clone())))
        .collect();
    if big > 0 {
        // Queued first.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let small_stores_started = started.elapsed();
    let small_started = Instant::now();
    let small_calls: Vec<_> = (1..stores)
        .flat_map(|store| {
            let admin = client(store);
            (0..small)
                .map(|_| tokio::spawn(call(store, admin.clone())))
                .collect::<Vec<_>>()
        })
        .collect();
    for task in small_calls {
        task.await.expect("small call");
    }
    let small_stores_took = small_started.elapsed();
    for task in big_calls {
        task.await.expect("big call");
    }
    let finished = finished.lock().unwrap().clone();
    Run {
        finished,
        small_stores_started,
        small_stores_took,
    }
}
