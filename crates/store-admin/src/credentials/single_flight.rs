//! Single-flight refresh: one refresh at a time, its result shared with everyone waiting.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A counter that goes up each time [`Refresher`] installs a new value. A caller remembers the
/// generation of the value it used, so that, when that value is refused, a newer one is
/// recognised as such and reused instead of refreshing again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Generation(pub u64);

impl Generation {
    /// Before any value exists.
    pub const NONE: Generation = Generation(0);
}

/// A value and the generation it was installed at.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    /// The generation.
    pub generation: Generation,
    /// The value.
    pub value: T,
}

/// The refresh task ended without a result: its function panicked, or the runtime is shutting
/// down. The previous value stays in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the refresh was aborted (it panicked or the runtime is shutting down)")]
pub struct RefreshAborted;

/// Counts a waiting caller until dropped (also when the caller is cancelled while waiting).
struct WaitingGuard<'a>(&'a AtomicU64);

impl<'a> WaitingGuard<'a> {
    fn enter(counter: &'a AtomicU64) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        WaitingGuard(counter)
    }
}

impl Drop for WaitingGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct Slot<T, E> {
    generation: u64,
    value: Option<T>,
    /// The sequence number and error of the last failed refresh.
    failure: Option<(u64, E)>,
}

/// Single-flight refresh of a shared value (a token set).
///
/// When many callers find the value stale at once, exactly one runs the refresh function and the
/// others wait and receive its result, success or failure. A caller says which generation it saw
/// (see [`Generation`]); if a newer one was installed meanwhile, it gets that without any
/// refresh. A failure is shared with every caller that was already waiting when it happened;
/// callers arriving after it try again.
///
/// The refresh function runs in a spawned task holding the lock, so it completes and its result
/// is installed even if every caller is cancelled: a single-use refresh token is never spent
/// without its replacement being kept. Requires a Tokio runtime.
pub struct Refresher<T, E> {
    slot: Arc<tokio::sync::Mutex<Slot<T, E>>>,
    attempts: Arc<AtomicU64>,
    failures: Arc<AtomicU64>,
    waiting: Arc<AtomicU64>,
    latest: Arc<Mutex<Option<Versioned<T>>>>,
}

impl<T, E> fmt::Debug for Refresher<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let generation = self
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|v| v.generation);
        f.debug_struct("Refresher")
            .field("generation", &generation)
            .field("attempts", &self.attempts.load(Ordering::Acquire))
            .finish_non_exhaustive()
    }
}

impl<T, E> Refresher<T, E>
where
    T: Clone + Send + 'static,
    E: Clone + Send + From<RefreshAborted> + 'static,
{
    /// A refresher holding `initial` (generation 1), or nothing (generation 0).
    pub fn new(initial: Option<T>) -> Self {
        let generation = u64::from(initial.is_some());
        let latest = initial.clone().map(|value| Versioned {
            generation: Generation(generation),
            value,
        });
        Refresher {
            slot: Arc::new(tokio::sync::Mutex::new(Slot {
                generation,
                value: initial,
                failure: None,
            })),
            attempts: Arc::new(AtomicU64::new(0)),
            failures: Arc::new(AtomicU64::new(0)),
            waiting: Arc::new(AtomicU64::new(0)),
            latest: Arc::new(Mutex::new(latest)),
        }
    }

    /// The current value, without waiting for a refresh in progress.
    pub fn current(&self) -> Option<Versioned<T>> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The generation of the current value ([`Generation::NONE`] before any), without cloning it.
    pub fn generation(&self) -> Generation {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(Generation::NONE, |v| v.generation)
    }

    /// How many times a refresh function has been started.
    pub fn refresh_count(&self) -> u64 {
        self.attempts.load(Ordering::Acquire)
    }

    /// How many callers are waiting for the lock (for diagnostics and tests).
    pub fn waiting(&self) -> u64 {
        self.waiting.load(Ordering::Acquire)
    }

    /// Replaces the value from outside (e.g. tokens received by webhook), as a new generation.
    pub async fn install(&self, value: T) -> Versioned<T> {
        let mut slot = self.slot.lock().await;
        Self::store(&mut slot, &self.latest, value)
    }

    fn store(
        slot: &mut Slot<T, E>,
        latest: &Mutex<Option<Versioned<T>>>,
        value: T,
    ) -> Versioned<T> {
        slot.generation += 1;
        slot.value = Some(value.clone());
        slot.failure = None;
        let versioned = Versioned {
            generation: Generation(slot.generation),
            value,
        };
        *latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(versioned.clone());
        versioned
    }

    /// Makes sure a value newer than `seen` exists: returns it if another caller already
    /// installed one, else runs `refresh` (given the current value) — in exactly one caller at a
    /// time — and installs its result.
    pub async fn refresh<F, Fut>(&self, seen: Generation, refresh: F) -> Result<Versioned<T>, E>
    where
        F: FnOnce(Option<T>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
    {
        let ticket = self.failures.load(Ordering::Acquire);
        let slot = {
            let _waiting = WaitingGuard::enter(&self.waiting);
            Arc::clone(&self.slot).lock_owned().await
        };
        if slot.generation > seen.0
            && let Some(value) = &slot.value
        {
            return Ok(Versioned {
                generation: Generation(slot.generation),
                value: value.clone(),
            });
        }
        if let Some((sequence, error)) = &slot.failure
            && *sequence > ticket
        {
            return Err(error.clone());
        }
        self.attempts.fetch_add(1, Ordering::AcqRel);
        let failures = Arc::clone(&self.failures);
        let latest = Arc::clone(&self.latest);
        let task = tokio::spawn(async move {
            let mut slot = slot;
            match refresh(slot.value.clone()).await {
                Ok(value) => Ok(Self::store(&mut slot, &latest, value)),
                Err(error) => {
                    let sequence = failures.fetch_add(1, Ordering::AcqRel) + 1;
                    slot.failure = Some((sequence, error.clone()));
                    Err(error)
                }
            }
        });
        match task.await {
            Ok(result) => result,
            Err(_) => Err(E::from(RefreshAborted)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn hundred_concurrent_callers_trigger_exactly_one_refresh() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let runs = Arc::new(AtomicUsize::new(0));
        let seen = refresher.current().unwrap().generation;
        let barrier = Arc::new(tokio::sync::Barrier::new(100));
        let tasks: Vec<_> = (0..100)
            .map(|_| {
                let refresher = Arc::clone(&refresher);
                let runs = Arc::clone(&runs);
                let barrier = Arc::clone(&barrier);
                tokio::spawn(async move {
                    barrier.wait().await;
                    refresher
                        .refresh(seen, move |old| async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            tokio::task::yield_now().await;
                            Ok(old.unwrap_or(0) + 1)
                        })
                        .await
                })
            })
            .collect();
        for task in tasks {
            let v = task.await.unwrap().unwrap();
            assert_eq!(v.value, 2);
            assert_eq!(v.generation, Generation(2));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(refresher.refresh_count(), 1);
    }
    #[tokio::test]
    async fn a_caller_with_an_old_generation_gets_the_newer_value_without_refreshing() {
        let refresher = Refresher::<u32, AuthError>::new(Some(1));
        let first = refresher
            .refresh(Generation(1), |_| async { Ok(2) })
            .await
            .unwrap();
        assert_eq!(first.generation, Generation(2));
        let stale = refresher
            .refresh(Generation(1), |_| async { panic!("must not run") })
            .await
            .unwrap();
        assert_eq!(stale.value, 2);
        assert_eq!(refresher.refresh_count(), 1);
        let again = refresher
            .refresh(Generation(2), |old| async move { Ok(old.unwrap() + 1) })
            .await
            .unwrap();
        assert_eq!((again.generation, again.value), (Generation(3), 3));
    }
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_failed_refresh_is_shared_with_the_callers_waiting_for_it() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let runs = Arc::new(AtomicUsize::new(0));
        let (release, gate) = tokio::sync::oneshot::channel::<()>();
        // The first caller starts the refresh and holds it until released.
        let first = {
            let refresher = Arc::clone(&refresher);
            let runs = Arc::clone(&runs);
            tokio::spawn(async move {
                refresher
                    .refresh(Generation(1), move |_| async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        let _ = gate.await;
                        Err(AuthError::ReinstallRequired { description: None })
                    })
                    .await
            })
        };
        while refresher.refresh_count() == 0 {
            tokio::task::yield_now().await;
        }
        let waiters: Vec<_> = (0..20)
            .map(|_| {
                let refresher = Arc::clone(&refresher);
                let runs = Arc::clone(&runs);
                tokio::spawn(async move {
                    refresher
                        .refresh(Generation(1), move |_| async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            Ok(99)
                        })
                        .await
                })
            })
            .collect();
        while refresher.waiting() < 20 {
            tokio::task::yield_now().await;
        }
        release.send(()).unwrap();
        assert!(matches!(
            first.await.unwrap(),
            Err(AuthError::ReinstallRequired { .. })
        ));
        for w in waiters {
            assert!(matches!(
                w.await.unwrap(),
                Err(AuthError::ReinstallRequired { .. })
            ));
        }
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "one refresh for the whole wave"
        );
        // A caller arriving after the failure tries again.
        let v = refresher
            .refresh(Generation(1), |_| async { Ok(7) })
            .await
            .unwrap();
        assert_eq!((v.generation, v.value), (Generation(2), 7));
        assert_eq!(refresher.waiting(), 0);
    }
    #[tokio::test]
    async fn a_cancelled_caller_does_not_cancel_the_refresh() {
        let refresher = Arc::new(Refresher::<u32, AuthError>::new(Some(1)));
        let (release, gate) = tokio::sync::oneshot::channel::<()>();
        let caller = {
            let refresher = Arc::clone(&refresher);
            tokio::spawn(async move {
                refresher
                    .refresh(Generation(1), move |_| async move {
                        let _ = gate.await;
                        Ok(2)
                    })
                    .await
            })
        };
        while refresher.refresh_count() == 0 {
            tokio::task::yield_now().await;
        }
        caller.abort();
        assert!(caller.await.unwrap_err().is_cancelled());
        release.send(()).unwrap();
        let v = refresher
            .refresh(Generation(1), |_| async { panic!("must not run") })
            .await
            .unwrap();
        assert_eq!((v.generation, v.value), (Generation(2), 2));
    }
    #[tokio::test]
    async fn a_panicking_refresh_is_an_error_and_releases_the_lock() {
        let refresher = Refresher::<u32, AuthError>::new(Some(1));
        let err = refresher
            .refresh(Generation(1), |_| async { panic!("boom") })
            .await
            .unwrap_err();
        assert!(matches!(err, AuthError::Aborted(RefreshAborted)));
        let v = refresher
            .refresh(Generation(1), |_| async { Ok(5) })
            .await
            .unwrap();
        assert_eq!(v.value, 5);
    }
}
