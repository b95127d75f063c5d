//! Many stores, fairly: one process serving many merchant stores shares one bound on the calls
//! in flight among them, and a store with 10,000 queued calls must not delay a store with 10.
//!
//! A [`FairShare`] holds `concurrency` permits. A call takes one to send an attempt (after its
//! store's rate limiter let it go, so a store waiting on its own rate holds none) and gives it
//! back once the answer is read. When every permit is taken, waiting calls queue **per store**,
//! and a permit given back goes to the next store in turn (round robin over the stores with
//! waiting calls, each store's calls in their order): a store with a long queue gets one turn in
//! each round like any other.
//!
//! Share one among the clients of every store ([`crate::StoreAdminBuilder::with_fair_share`]
//! on the template of [`crate::Merchants`], whose clients are labelled with their merchant):
//!
//! ```
//! use store_admin::fair::FairShare;
//! use store_admin::StoreAdmin;
//! let share = FairShare::new(32); // at most 32 calls in flight, for all stores together
//! let template = StoreAdmin::builder().with_fair_share(share.clone());
//! # let _ = template;
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

/// A bound on the calls in flight shared fairly among stores (see the [module](self)).
pub struct FairShare {
    concurrency: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    in_flight: usize,
    /// The stores with waiting calls, in turn order.
    turns: VecDeque<Arc<str>>,
    /// Each store's waiting calls, in order.
    waiting: HashMap<Arc<str>, VecDeque<oneshot::Sender<()>>>,
}

impl fmt::Debug for FairShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("FairShare")
            .field("concurrency", &self.concurrency)
            .field("in_flight", &state.in_flight)
            .field("stores_waiting", &state.turns.len())
            .finish()
    }
}

/// A permit of a [`FairShare`]: given back, to the next store in turn, when dropped.
#[must_use = "the permit is given back when dropped"]
pub struct FairPermit {
    share: Arc<FairShare>,
}

impl fmt::Debug for FairPermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FairPermit")
    }
}

impl Drop for FairPermit {
    fn drop(&mut self) {
        self.share.release();
    }
}

/// A call waiting for its turn; if it is dropped (the call cancelled) after its turn came, the
/// permit it was handed goes on to the next store.
struct Waiting {
    rx: Option<oneshot::Receiver<()>>,
    share: Arc<FairShare>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut rx) = self.rx.take() {
            rx.close();
            if rx.try_recv().is_ok() {
                self.share.release();
            }
        }
    }
}

impl FairShare {
    /// A share of `concurrency` permits (at least 1).
    pub fn new(concurrency: usize) -> Arc<Self> {
        Arc::new(Self {
            concurrency: concurrency.max(1),
            state: Mutex::new(State::default()),
        })
    }

    /// The number of permits.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// The calls in flight now.
    pub fn in_flight(&self) -> usize {
        self.lock().in_flight
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for `store`'s turn and a free permit.
    pub async fn acquire(self: &Arc<Self>, store: &str) -> FairPermit {
        let rx = {
            let mut state = self.lock();
            if state.in_flight < self.concurrency && state.turns.is_empty() {
                state.in_flight += 1;
                return FairPermit {
                    share: Arc::clone(self),
                };
            }
            let (tx, rx) = oneshot::channel();
            let key: Arc<str> = match state.waiting.get_key_value(store) {
                Some((key, _)) => Arc::clone(key),
                None => Arc::from(store),
            };
            let queue = state.waiting.entry(Arc::clone(&key)).or_default();
            let first = queue.is_empty();
            queue.push_back(tx);
            if first {
                state.turns.push_back(key);
            }
            rx
        };
        let mut waiting = Waiting {
            rx: Some(rx),
            share: Arc::clone(self),
        };
        let handed = match waiting.rx.as_mut() {
            Some(rx) => rx.await.is_ok(),
            None => false,
        };
        waiting.rx = None;
        debug_assert!(
            handed,
            "a waiting call's sender is only dropped once it is sent"
        );
        FairPermit {
            share: Arc::clone(self),
        }
    }

    /// A permit given back: to the next store in turn with a call waiting, else free.
    fn release(&self) {
        let mut state = self.lock();
        while let Some(store) = state.turns.pop_front() {
            let Some(queue) = state.waiting.get_mut(&store) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.waiting.remove(&store);
            } else {
                state.turns.push_back(store);
            }
            if let Some(tx) = next
                && tx.send(()).is_ok()
            {
                // Handed over: the calls in flight stay as they are.
                return;
            }
            // That call was cancelled while it waited: the next one.
        }
        state.in_flight = state.in_flight.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn permits_go_round_robin_among_the_stores_waiting() {
        let share = FairShare::new(1);
        let held = share.acquire("big").await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        let spawn = |store: &'static str, i: usize| {
            let share = share.clone();
            let order = order.clone();
            tokio::spawn(async move {
                let _permit = share.acquire(store).await;
                order.lock().unwrap().push(format!("{store}{i}"));
            })
        };
        for i in 0..5 {
            tasks.push(spawn("big", i));
            tokio::task::yield_now().await;
        }
        for store in ["a", "b"] {
            tasks.push(spawn(store, 0));
            tokio::task::yield_now().await;
        }
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            ["big0", "a0", "b0", "big1", "big2", "big3", "big4"]
        );
        assert_eq!(share.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_cancelled_waiter_does_not_keep_a_permit() {
        let share = FairShare::new(1);
        let held = share.acquire("a").await;
        let waiting = tokio::spawn({
            let share = share.clone();
            async move { share.acquire("b").await }
        });
        tokio::task::yield_now().await;
        waiting.abort();
        let _ = waiting.await;
        drop(held);
        assert_eq!(share.in_flight(), 0);
        let again = tokio::time::timeout(Duration::from_secs(1), share.acquire("c")).await;
        assert!(again.is_ok(), "the permit is free again");
    }
}
