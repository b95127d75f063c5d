//! What a mock store holds, kept to start another mock where this one stopped: the CLI's
//! `--sandbox` keeps its store between commands this way.

use serde_json::Value;

use crate::store::Store;

/// The version of the snapshot's JSON form; a snapshot of another version is refused.
const FORMAT: u64 = 1;

/// What a running mock store holds (its records, the ids it gave out, where its id generator
/// goes on from), taken by [`MockServer::snapshot`](crate::MockServer::snapshot) and given to
/// [`MockConfig::restore`](crate::MockConfig::restore) to start a mock where that one stopped.
///
/// Its JSON form ([`StoreSnapshot::to_json`], [`StoreSnapshot::from_json`]) is the whole store:
/// keep it private (records can hold a webhook's secret).
#[derive(Clone)]
pub struct StoreSnapshot {
    seed: u64,
    store: Value,
}

impl std::fmt::Debug for StoreSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let collections = self
            .store
            .get("collections")
            .and_then(Value::as_object)
            .map_or(0, serde_json::Map::len);
        f.debug_struct("StoreSnapshot")
            .field("seed", &self.seed)
            .field("collections", &collections)
            .finish_non_exhaustive()
    }
}

/// A snapshot that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Not JSON.
    #[error("not a mock store snapshot: {0}")]
    Json(#[from] serde_json::Error),
    /// JSON, but not the form [`StoreSnapshot::to_json`] writes (or of another version).
    #[error("not a mock store snapshot of format {FORMAT}")]
    Form,
}

impl StoreSnapshot {
    pub(crate) fn of(store: &Store, seed: u64) -> Self {
        Self {
            seed,
            store: store.to_snapshot(),
        }
    }

    /// The seed the store was first generated from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The store this snapshot holds.
    pub(crate) fn to_store(&self) -> Store {
        Store::from_snapshot(&self.store).expect("a snapshot is checked when it is made or read")
    }

    /// The snapshot as JSON bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let value = serde_json::json!({
            "format": FORMAT,
            "seed": self.seed,
            "store": self.store,
        });
        serde_json::to_vec(&value).expect("a JSON value serialises")
    }

    /// A snapshot from the bytes [`StoreSnapshot::to_json`] wrote.
    pub fn from_json(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let value: Value = serde_json::from_slice(bytes)?;
        if value.get("format").and_then(Value::as_u64) != Some(FORMAT) {
            return Err(SnapshotError::Form);
        }
        let seed = value
            .get("seed")
            .and_then(Value::as_u64)
            .ok_or(SnapshotError::Form)?;
        let store = value.get("store").cloned().ok_or(SnapshotError::Form)?;
        if Store::from_snapshot(&store).is_none() {
            return Err(SnapshotError::Form);
        }
        Ok(Self { seed, store })
    }
}
