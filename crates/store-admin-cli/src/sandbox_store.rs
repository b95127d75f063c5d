//! The sandbox's store, kept between commands: `--sandbox products create` then `--sandbox
//! products get ID` finds the product. The store is a file under the state directory
//! (`$XDG_STATE_HOME/store-admin/sandbox/<store>.json`, else `~/.local/state/...`), read when a
//! sandbox command starts and written again (to a file beside it, then renamed over it, so that it
//! is never seen half written) when the command changed it. A command holds the file's lock
//! (`<store>.lock`) from start to end: a second command waits for it a while, then is told the
//! store is busy. `store-admin sandbox reset` deletes it.
//!
//! `STORE_ADMIN_SANDBOX_STATE` names another file, or is `none` for a fresh store each command
//! (kept nowhere).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use store_admin_mock::{MockServer, StoreSnapshot};

use crate::error::CliError;
use crate::global::{Global, state_dir, store_id};

/// The variable that names the sandbox's store file, or `none`.
pub const STATE_ENV: &str = "STORE_ADMIN_SANDBOX_STATE";

/// The variable that says how many seconds a command waits for another to release the store
/// (10 by default).
pub const WAIT_ENV: &str = "STORE_ADMIN_SANDBOX_WAIT";

/// The default wait for a busy store.
const DEFAULT_WAIT: Duration = Duration::from_secs(10);

/// How to start over, for messages.
const RESET: &str = "start over with `store-admin sandbox reset`";

/// The file of the sandbox's store for `global`'s store, or `None` when it is kept nowhere
/// (`STORE_ADMIN_SANDBOX_STATE=none`, or no state directory).
pub fn store_file(global: &Global) -> Option<PathBuf> {
    match std::env::var_os(STATE_ENV) {
        Some(value) if value == "none" => None,
        Some(value) if !value.is_empty() => Some(PathBuf::from(value)),
        _ => {
            let name: String = store_id(global)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            state_dir().map(|dir| {
                dir.join("store-admin")
                    .join("sandbox")
                    .join(format!("{name}.json"))
            })
        }
    }
}

fn lock_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    file.with_file_name(name)
}

fn io_error(path: &Path, what: &str, error: std::io::Error) -> CliError {
    CliError::other(format!("{what} {}: {error}", path.display()))
}

/// The kept store of a running sandbox command: its file, and the lock it holds until it ends.
pub struct Kept {
    file: PathBuf,
    _lock: File,
}

/// Opens the kept store for a sandbox command: takes its lock (waiting up to
/// `STORE_ADMIN_SANDBOX_WAIT` seconds for another command to release it), and reads what it
/// holds. `Ok((None, None))` when the store is kept nowhere.
pub async fn open(global: &Global) -> Result<(Option<Kept>, Option<StoreSnapshot>), CliError> {
    let Some(file) = store_file(global) else {
        return Ok((None, None));
    };
    let lock = lock(&file).await?;
    let snapshot = match std::fs::read(&file) {
        Ok(bytes) => Some(StoreSnapshot::from_json(&bytes).map_err(|e| {
            CliError::other(format!(
                "cannot read the sandbox's store {}: {e}; {RESET}",
                file.display()
            ))
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(&file, "cannot read the sandbox's store", e)),
    };
    if let Some(snapshot) = &snapshot
        && snapshot.seed() != global.sandbox_seed
    {
        crate::note!(
            "note: the sandbox's store {} was made from seed {}; --sandbox-seed {} takes effect \
             after `store-admin sandbox reset`",
            file.display(),
            snapshot.seed(),
            global.sandbox_seed
        );
    }
    Ok((Some(Kept { file, _lock: lock }), snapshot))
}

/// Takes the lock of the store `file` (creating its folder), waiting up to
/// `STORE_ADMIN_SANDBOX_WAIT` seconds for another command to release it.
async fn lock(file: &Path) -> Result<File, CliError> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|e| {
            io_error(
                dir,
                "cannot create the folder of the sandbox's store (set STORE_ADMIN_SANDBOX_STATE=none \
                 for a store kept nowhere)",
                e,
            )
        })?;
    }
    let lock_file = lock_path(file);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_file)
        .map_err(|e| io_error(&lock_file, "cannot open the sandbox's lock", e))?;
    let wait = std::env::var(WAIT_ENV)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .unwrap_or(DEFAULT_WAIT);
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match fs4::FileExt::try_lock(&lock) {
            Ok(()) => break,
            Err(fs4::TryLockError::WouldBlock) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(fs4::TryLockError::WouldBlock) => {
                return Err(CliError::other(format!(
                    "the sandbox's store {} is busy: another store-admin --sandbox command is \
                     using it; run this one when it ends (or set {STATE_ENV}=none for a fresh \
                     store of this command's own)",
                    file.display()
                )));
            }
            Err(fs4::TryLockError::Error(e)) => {
                return Err(io_error(&lock_file, "cannot lock the sandbox's store", e));
            }
        }
    }
    Ok(lock)
}

impl Kept {
    /// Writes the sandbox's store when the command changed it: to a file beside it, then
    /// renamed over it. The first time, says on standard error where it lives and how to start
    /// over.
    pub fn save(&self, server: &MockServer) -> Result<(), CliError> {
        if server.store_changes() == 0 {
            return Ok(());
        }
        let first = !self.file.exists();
        let bytes = server.snapshot().to_json();
        let mut name = self.file.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".{}.tmp", std::process::id()));
        let temporary = self.file.with_file_name(name);
        if let Err(e) = write_then_rename(&temporary, &self.file, &bytes) {
            let _ = std::fs::remove_file(&temporary);
            return Err(io_error(
                &self.file,
                "cannot keep the sandbox's store in",
                e,
            ));
        }
        if first {
            crate::note!(
                "note: the sandbox keeps its store in {} between commands; {RESET}",
                self.file.display()
            );
        }
        Ok(())
    }
}

/// Writes `bytes` to `temporary` (a new file, readable by its owner only: one a crashed command
/// left is removed first), then renames it over `file`.
fn write_then_rename(temporary: &Path, file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::remove_file(temporary) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.create_new(true).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(temporary)?;
    out.write_all(bytes)?;
    out.sync_all()?;
    std::fs::rename(temporary, file)
}

/// `store-admin sandbox reset`: deletes the kept store (once no command uses it), so that the
/// next sandbox command starts from the seeded store.
pub async fn reset(global: &Global) -> Result<(), CliError> {
    let Some(file) = store_file(global) else {
        crate::note!("the sandbox's store is kept nowhere: each command starts a fresh one");
        return Ok(());
    };
    // The lock only: a torn store is what a reset is for, so it is not read.
    let lock = lock(&file).await?;
    match std::fs::remove_file(&file) {
        Ok(()) => crate::note!("the sandbox's store {} was deleted", file.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::note!("the sandbox's store {} was already fresh", file.display());
        }
        Err(e) => return Err(io_error(&file, "cannot delete the sandbox's store", e)),
    }
    drop(lock);
    Ok(())
}
