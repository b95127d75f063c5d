//! [`FileTokenStore`]: one JSON file per merchant store, for the processes of one host.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::sealing::Sealing;
use super::store::Record;
use super::{
    Revision, Snapshot, StoredTokens, TokenHealth, TokenKeys, TokenStore, TokenStoreError,
    TokenStoreLock, TokenStores,
};

/// A [`TokenStore`] in one JSON file, shared by the processes of one host.
///
/// - Written atomically: a temporary file in the same directory, synced, then renamed over the
///   old one, so a reader sees the old tokens or the new ones, never half of them. The file and
///   its temporary are created with mode 0600 (owner only) and the directory with 0700.
/// - Saves are compare-and-set on the file's revision, under a short exclusive lock of
///   `<file>.write-lock`.
/// - [`TokenStore::lock`] takes an advisory lock of `<file>.lock` (`flock`) for the whole
///   refresh; the system releases it when its holder exits or dies, so no lock outlives its
///   process.
/// - With [`FileTokenStore::with_keys`], the record is sealed (encrypted and bound to the
///   merchant store's id); see [`TokenKeys`].
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
    sealing: Sealing,
}

impl FileTokenStore {
    /// The store kept in `path` (created on the first save), in plain JSON.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            sealing: Sealing::default(),
        }
    }

    /// Seals the record with `keys`, bound to `merchant` (the store's id): a record sealed for
    /// another merchant does not open here. A plain record is still read, and sealed by the
    /// next save.
    pub fn with_keys(mut self, keys: Arc<TokenKeys>, merchant: impl Into<String>) -> Self {
        self.sealing = Sealing::new(Some(keys), merchant);
        self
    }

    /// The file the tokens are kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        self.path.with_file_name(name)
    }

    fn read(&self) -> Result<Snapshot, TokenStoreError> {
        match self.read_text()? {
            Some(text) => Ok(self.sealing.decode(&text)?.snapshot()),
            None => Ok(Snapshot::default()),
        }
    }

    fn read_text(&self) -> Result<Option<Vec<u8>>, TokenStoreError> {
        match fs::read(&self.path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error("cannot read the token file", e)),
        }
    }

    fn write(&self, record: &Record) -> Result<(), TokenStoreError> {
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = dir.unwrap_or_else(|| Path::new("."));
        create_private_dir(dir)?;
        let mut temp = tempfile::Builder::new()
            .prefix(".tokens-")
            .tempfile_in(dir)
            .map_err(|e| io_error("cannot create a temporary token file", e))?;
        restrict(temp.as_file())?;
        let text = secrecy::zeroize::Zeroizing::new(self.sealing.encode(record));
        temp.write_all(text.as_bytes())
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| io_error("cannot write the token file", e))?;
        temp.persist(&self.path)
            .map_err(|e| io_error("cannot replace the token file", e.error))?;
        Ok(())
    }

    /// Saves `value` (`None`: removes the tokens and their health) with `health` (`None`: the
    /// health recorded is kept).
    fn save_blocking(
        &self,
        value: Option<&StoredTokens>,
        health: Option<&TokenHealth>,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let lock = open_lock_file(&self.sibling(".write-lock"))?;
        fs4::FileExt::lock(&lock).map_err(|e| io_error("cannot lock the token file", e))?;
        let current = match self.read_text()? {
            None => Snapshot::default(),
            Some(text) => match self.sealing.decode(&text) {
                Ok(record) => record.snapshot(),
                // A record that does not open (a key missing, another store's) can still be
                // replaced by an installation or removed: by its revision, written in clear.
                Err(error) => match (expected, Sealing::revision_of(&text)) {
                    (None, Some(revision)) => Snapshot {
                        revision: Revision(revision),
                        ..Snapshot::default()
                    },
                    _ => return Err(error),
                },
            },
        };
        if expected.is_some_and(|expected| expected != current.revision) {
            return Ok(None);
        }
        let next = Revision(current.revision.0 + 1);
        let health = match (value, health) {
            (None, _) => TokenHealth::default(),
            (Some(_), Some(health)) => health.clone(),
            (Some(_), None) => current.health,
        };
        self.write(&Record::new(next, value, &health))?;
        // Dropping `lock` closes it, which releases the lock.
        Ok(Some(next))
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(FileTokenStore) -> Result<T, TokenStoreError> + Send + 'static,
    ) -> Result<T, TokenStoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || work(store))
            .await
            .map_err(|e| TokenStoreError::with_source("the token file task failed", e))?
    }
}

#[async_trait]
impl TokenStore for FileTokenStore {
    async fn load(&self) -> Result<Snapshot, TokenStoreError> {
        self.blocking(|store| store.read()).await
    }

    async fn save(
        &self,
        value: &StoredTokens,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let value = value.clone();
        self.blocking(move |store| store.save_blocking(Some(&value), None, expected))
            .await
    }

    async fn save_with_health(
        &self,
        value: &StoredTokens,
        health: &TokenHealth,
        expected: Option<Revision>,
    ) -> Result<Option<Revision>, TokenStoreError> {
        let (value, health) = (value.clone(), health.clone());
        self.blocking(move |store| store.save_blocking(Some(&value), Some(&health), expected))
            .await
    }

    async fn remove(&self) -> Result<(), TokenStoreError> {
        self.blocking(|store| store.save_blocking(None, None, None).map(|_| ()))
            .await
    }

    async fn lock(&self) -> Result<TokenStoreLock, TokenStoreError> {
        let path = self.sibling(".lock");
        let file = self.blocking(move |_| open_lock_file(&path)).await?;
        // Polled, so that no thread blocks while another process refreshes.
        let mut wait = Duration::from_millis(5);
        loop {
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => return Ok(TokenStoreLock::new(FileLock(file))),
                Err(fs4::TryLockError::WouldBlock) => {
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_millis(50));
                }
                Err(fs4::TryLockError::Error(e)) => {
                    return Err(io_error("cannot lock the token file", e));
                }
            }
        }
    }
}

/// An advisory lock, released when the file is closed.
struct FileLock(#[allow(dead_code)] File);

fn open_lock_file(path: &Path) -> Result<File, TokenStoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dir(dir)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(path)
        .map_err(|e| io_error("cannot open the token lock file", e))
}

fn create_private_dir(dir: &Path) -> Result<(), TokenStoreError> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| io_error("cannot create the token directory", e))
}

fn restrict(file: &File) -> Result<(), TokenStoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| io_error("cannot restrict the token file's permissions", e))?;
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

fn io_error(message: &str, error: io::Error) -> TokenStoreError {
    TokenStoreError::with_source(message, error)
}

/// [`FileTokenStore`]s in one directory, one `<merchant>.json` each.
#[derive(Debug, Clone)]
pub struct FileTokenStores {
    dir: PathBuf,
    keys: Option<Arc<TokenKeys>>,
}

impl FileTokenStores {
    /// The stores kept in `dir` (created with mode 0700 on the first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        FileTokenStores {
            dir: dir.into(),
            keys: None,
        }
    }

    /// Seals every store's record with `keys`, bound to its merchant's id (see
    /// [`FileTokenStore::with_keys`]).
    pub fn with_keys(mut self, keys: Arc<TokenKeys>) -> Self {
        self.keys = Some(keys);
        self
    }

    /// The store of `merchant`.
    pub fn store(&self, merchant: &str) -> FileTokenStore {
        // The id names a file: anything but ASCII letters, digits, `-` and `_` is escaped.
        let mut name = String::new();
        for byte in merchant.bytes() {
            match byte {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => name.push(byte as char),
                other => name.push_str(&format!("%{other:02X}")),
            }
        }
        if name.is_empty() {
            name.push('%');
        }
        let store = FileTokenStore::new(self.dir.join(format!("{name}.json")));
        match &self.keys {
            Some(keys) => store.with_keys(keys.clone(), merchant),
            None => store,
        }
    }
}

/// The merchant id a file name `name` (without `.json`) stands for: `%XX` escapes decoded;
/// `None` for a name no merchant id gives.
fn merchant_of_file_name(name: &str) -> Option<String> {
    if name == "%" {
        return Some(String::new());
    }
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                let hex = name.get(at + 1..at + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                at += 3;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => {
                out.push(bytes[at]);
                at += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[async_trait]
impl TokenStores for FileTokenStores {
    fn for_merchant(&self, merchant: &str) -> Arc<dyn TokenStore> {
        Arc::new(self.store(merchant))
    }

    /// The merchants of the `<merchant>.json` files of the directory (none when it does not
    /// exist yet).
    async fn merchants(&self) -> Result<Vec<String>, TokenStoreError> {
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
                Err(e) => return Err(io_error("cannot list the token directory", e)),
            };
            let mut merchants = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| io_error("cannot list the token directory", e))?;
                let name = entry.file_name();
                let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                    continue;
                };
                if let Some(merchant) = merchant_of_file_name(stem) {
                    merchants.push(merchant);
                }
            }
            Ok(merchants)
        })
        .await
        .map_err(|e| TokenStoreError::with_source("the token directory task failed", e))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::{AccessToken, RefreshToken, TokenSet};
    use chrono::Utc;

    fn tokens(access: &str) -> TokenSet {
        TokenSet {
            access: AccessToken::new(access),
            refresh: Some(RefreshToken::new("refresh")),
            expires_at: Utc::now() + chrono::Duration::seconds(60),
            scope: "orders.read".into(),
        }
    }

    #[tokio::test]
    async fn saves_atomically_with_owner_only_permissions_and_compare_and_set() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStores::new(dir.path().join("tokens")).store("merchant 1/..");
        assert_eq!(
            store.path().file_name().unwrap(),
            "merchant%201%2F%2E%2E.json"
        );
        assert!(store.load().await.unwrap().value.is_none());
        assert_eq!(store.install(&tokens("a")).await.unwrap(), Revision(1));
        let late = StoredTokens::Active(tokens("b"));
        assert_eq!(store.save(&late, Some(Revision(0))).await.unwrap(), None);
        assert_eq!(
            store.save(&late, Some(Revision(1))).await.unwrap(),
            Some(Revision(2))
        );
        let loaded = store.load().await.unwrap();
        assert_eq!(loaded.revision, Revision(2));
        assert_eq!(loaded.tokens().unwrap().access.expose_secret(), "b");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(store.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = fs::metadata(dir.path().join("tokens"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        store.remove().await.unwrap();
        assert!(store.load_tokens().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn the_merchants_of_a_directory_are_listed_from_their_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let stores = FileTokenStores::new(dir.path().join("tokens"));
        assert!(
            stores.merchants().await.unwrap().is_empty(),
            "no directory yet"
        );
        for merchant in ["1234", "merchant 1/..", ""] {
            stores.store(merchant).install(&tokens("a")).await.unwrap();
        }
        let mut listed = stores.merchants().await.unwrap();
        listed.sort();
        assert_eq!(listed, ["", "1234", "merchant 1/.."]);
    }

    #[tokio::test]
    async fn health_is_kept_by_a_plain_save_and_replaced_by_a_save_with_health() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("t.json"));
        store.install(&tokens("a")).await.unwrap();
        let installed = store.load().await.unwrap().health;
        assert!(installed.installed_at.is_some());
        store
            .save(&StoredTokens::Active(tokens("b")), Some(Revision(1)))
            .await
            .unwrap();
        assert_eq!(store.load().await.unwrap().health, installed);
        let failed = installed.failed(Utc::now(), "HTTP 503");
        store
            .save_with_health(
                &StoredTokens::Active(tokens("b")),
                &failed,
                Some(Revision(2)),
            )
            .await
            .unwrap();
        assert_eq!(store.load().await.unwrap().health, failed);
        store.remove().await.unwrap();
        assert!(store.load().await.unwrap().health.is_empty());
    }

    #[tokio::test]
    async fn the_refresh_lock_excludes_a_second_holder_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("t.json"));
        let held = store.lock().await.unwrap();
        let other = FileTokenStore::new(dir.path().join("t.json"));
        let waiting = tokio::spawn(async move { other.lock().await.map(|_| ()) });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!waiting.is_finished());
        drop(held);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the lock is handed over")
            .unwrap()
            .unwrap();
    }
}
