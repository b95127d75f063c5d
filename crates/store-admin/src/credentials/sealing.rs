//! Tokens sealed at rest: the records of the file and Redis token stores encrypted with
//! XChaCha20-Poly1305 (RustCrypto's `chacha20poly1305`) under [`TokenKeys`].
//!
//! **Hazard.** A plain token store is a JSON file (mode 0600) or a Redis hash: whoever reads the
//! Redis database, a backup of the state directory or a copied disk holds every store's refresh
//! token, which stays valid until it is used.
//!
//! **What sealing does.**
//! - Each record is encrypted and authenticated as a whole with a fresh random 24-byte nonce,
//!   under the first key of the [`TokenKeys`]. What stays in clear: the record's revision (so
//!   that an unreadable record can still be replaced by an installation or removed), the key's
//!   id and the nonce. A Redis store's health field stays in clear too (times and failure
//!   reasons: no secret).
//! - The merchant store's id is bound as associated data: a record copied into another store's
//!   slot (file or key) does not open there.
//! - Keys rotate: every key of the [`TokenKeys`] opens the records it sealed, and the next save
//!   of a record writes it with the first key. To retire a key, put the new key first, let every
//!   store be saved once (each refresh saves), then drop the old key.
//! - A record that does not open (a key the [`TokenKeys`] lack, a wrong key for its id, a
//!   changed byte, another store's record) is an error of that store only, naming the store and
//!   the key id, never a key or a token; [`health_report`](super::health_report) lists it as
//!   [`HealthState::Unreadable`](super::HealthState::Unreadable) beside the others.
//! - Migration: with keys given, a plain record is still read, and the next save writes it
//!   sealed. A store without keys that finds a sealed record says that it needs the keys.
//!
//! Not covered: an attacker who can write the store can put back an older sealed record of the
//! same store (a rollback), or a plain record of their own; sealing protects what is read, not
//! what is written.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_PAD_INDIFFERENT};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use secrecy::zeroize::Zeroizing;
use serde::{Deserialize, Serialize};

use super::TokenStoreError;
use super::store::Record;

/// The environment variable that holds the token keys themselves (see [`TokenKeys::parse`]).
pub const TOKEN_KEYS_ENV: &str = "STORE_ADMIN_TOKEN_KEYS";
/// The environment variable that names a file holding the token keys.
pub const TOKEN_KEYS_FILE_ENV: &str = "STORE_ADMIN_TOKEN_KEYS_FILE";

/// The name of the sealing in a record.
const ALGORITHM: &str = "xchacha20poly1305";
/// The start of the associated data of every sealed record: changed if the format changes.
const CONTEXT: &[u8] = b"store-admin tokens v1\0";

/// The keys that seal token records: the first seals, every one opens.
///
/// Each key has an id (`[A-Za-z0-9._-]`, at most 64 characters), written beside each record
/// it seals, and 32 bytes of key (256 bits, base64 in the text forms). The keys are wiped from
/// memory when dropped, and never shown: `Debug` prints the ids only.
///
/// ```
/// use store_admin::credentials::TokenKeys;
/// // A key made with `head -c 32 /dev/urandom | base64`.
/// let keys = TokenKeys::parse("2026-11:q3WxNwC1pD1bM2m8h2Jk3qQ0m1sQ2mX1Zs0y6E3TnQY=").unwrap();
/// assert_eq!(keys.current(), "2026-11");
/// assert!(!format!("{keys:?}").contains("q3Wx"));
/// ```
pub struct TokenKeys {
    keys: Vec<(String, XChaCha20Poly1305)>,
}

impl fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenKeys")
            .field("ids", &self.ids().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Token keys that could not be read. The message names the entry or the key id, never a key.
#[derive(Debug, Clone, thiserror::Error)]
#[error("token keys: {0}")]
pub struct TokenKeysError(String);

impl TokenKeys {
    /// Keys written as `id:base64key` entries, one a line (a file) or separated by commas or
    /// spaces (an environment variable); blank lines and lines starting with `#` are skipped.
    /// The first entry seals; ids must be distinct.
    pub fn parse(text: &str) -> Result<TokenKeys, TokenKeysError> {
        let mut keys: Vec<(String, XChaCha20Poly1305)> = Vec::new();
        let entries = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.starts_with('#'))
            .flat_map(|line| line.split([',', ' ', '\t']))
            .filter(|entry| !entry.is_empty());
        for (at, entry) in entries.enumerate() {
            let number = at + 1;
            let Some((id, key)) = entry.split_once(':') else {
                return Err(TokenKeysError(format!(
                    "entry {number} is not `id:base64key` (no `:`)"
                )));
            };
            let id_ok = !id.is_empty()
                && id.len() <= 64
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
            if !id_ok {
                return Err(TokenKeysError(format!(
                    "entry {number}: a key id is 1 to 64 of A-Z a-z 0-9 . _ -"
                )));
            }
            if keys.iter().any(|(known, _)| known == id) {
                return Err(TokenKeysError(format!("key `{id}` is given twice")));
            }
            let mut bytes = Zeroizing::new([0u8; 48]);
            let length = STANDARD_PAD_INDIFFERENT
                .decode_slice(key.trim(), bytes.as_mut_slice())
                .map_err(|_| {
                    TokenKeysError(format!(
                        "key `{id}` is not 32 bytes of base64 (make one with `head -c 32 \
                         /dev/urandom | base64`)"
                    ))
                })?;
            if length != 32 {
                return Err(TokenKeysError(format!(
                    "key `{id}` is {length} bytes, not 32 (make one with `head -c 32 \
                     /dev/urandom | base64`)"
                )));
            }
            let cipher = XChaCha20Poly1305::new_from_slice(&bytes[..32])
                .map_err(|_| TokenKeysError(format!("key `{id}` is not a key")))?;
            keys.push((id.to_owned(), cipher));
        }
        if keys.is_empty() {
            return Err(TokenKeysError("no key given".into()));
        }
        Ok(TokenKeys { keys })
    }

    /// The keys of a file in the form of [`TokenKeys::parse`].
    pub fn from_file(path: &Path) -> Result<TokenKeys, TokenKeysError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            TokenKeysError(format!("cannot read the key file {}: {e}", path.display()))
        })?;
        let text = Zeroizing::new(text);
        TokenKeys::parse(&text).map_err(|TokenKeysError(message)| {
            TokenKeysError(format!("{message} (in {})", path.display()))
        })
    }

    /// The keys of the environment: [`TOKEN_KEYS_ENV`] (the keys themselves) or the file
    /// [`TOKEN_KEYS_FILE_ENV`] names (both set is an error); `None` when neither is set (the
    /// stores stay plain).
    pub fn from_env() -> Result<Option<TokenKeys>, TokenKeysError> {
        let file = std::env::var_os(TOKEN_KEYS_FILE_ENV).filter(|v| !v.is_empty());
        if let Some(text) = std::env::var_os(TOKEN_KEYS_ENV).filter(|v| !v.is_empty()) {
            if file.is_some() {
                return Err(TokenKeysError(format!(
                    "both {TOKEN_KEYS_ENV} and {TOKEN_KEYS_FILE_ENV} are set; set one"
                )));
            }
            let text = Zeroizing::new(
                text.into_string()
                    .map_err(|_| TokenKeysError(format!("{TOKEN_KEYS_ENV} is not UTF-8")))?,
            );
            return TokenKeys::parse(&text)
                .map(Some)
                .map_err(|TokenKeysError(message)| {
                    TokenKeysError(format!("{message} (in {TOKEN_KEYS_ENV})"))
                });
        }
        match file {
            Some(path) => TokenKeys::from_file(Path::new(&path)).map(Some),
            None => Ok(None),
        }
    }

    /// The id of the key that seals.
    pub fn current(&self) -> &str {
        &self.keys[0].0
    }

    /// The ids of the keys, the sealing one first.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(id, _)| id.as_str())
    }

    fn key(&self, id: &str) -> Option<&XChaCha20Poly1305> {
        self.keys
            .iter()
            .find(|(known, _)| known == id)
            .map(|(_, key)| key)
    }
}

/// A sealed record as written: the revision, and the box.
#[derive(Serialize, Deserialize)]
struct Envelope {
    #[serde(default)]
    revision: u64,
    sealed: SealedBox,
}

#[derive(Serialize, Deserialize)]
struct SealedBox {
    alg: String,
    key: String,
    nonce: String,
    data: String,
}

/// What is read first of a record: whether it is sealed, and its revision.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    revision: Option<u64>,
    #[serde(default)]
    sealed: Option<SealedBox>,
}

/// How one merchant store's records are written: plain, or sealed under [`TokenKeys`] and
/// bound to the store's id. The file and Redis stores both write through it.
#[derive(Clone, Default)]
pub(crate) struct Sealing {
    keys: Option<Arc<TokenKeys>>,
    store: String,
}

impl fmt::Debug for Sealing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.keys {
            Some(keys) => f
                .debug_struct("Sealed")
                .field("key", &keys.current())
                .field("store", &self.store)
                .finish(),
            None => f.write_str("Plain"),
        }
    }
}

impl Sealing {
    /// Records of `store` (the merchant's id, bound to each sealed record), sealed when `keys`.
    pub(crate) fn new(keys: Option<Arc<TokenKeys>>, store: impl Into<String>) -> Sealing {
        Sealing {
            keys,
            store: store.into(),
        }
    }

    fn associated_data(&self, key_id: &str) -> Vec<u8> {
        let mut data = Vec::with_capacity(CONTEXT.len() + key_id.len() + 1 + self.store.len());
        data.extend_from_slice(CONTEXT);
        data.extend_from_slice(key_id.as_bytes());
        data.push(0);
        data.extend_from_slice(self.store.as_bytes());
        data
    }

    fn shown_store(&self) -> String {
        format!("`{}`", self.store.escape_debug())
    }

    /// The text of `record`: its JSON, or its sealed envelope.
    pub(crate) fn encode(&self, record: &Record) -> String {
        let Some(keys) = &self.keys else {
            return record.encode();
        };
        let plain = Zeroizing::new(record.encode());
        let (id, cipher) = &keys.keys[0];
        let nonce: [u8; 24] = rand::random();
        let aad = self.associated_data(id);
        // Encryption into a Vec only fails when the plaintext exceeds the cipher's limit (256
        // GiB): a token record is a few hundred bytes.
        let data = cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plain.as_bytes(),
                    aad: &aad,
                },
            )
            .unwrap_or_default();
        let envelope = Envelope {
            revision: record.revision,
            sealed: SealedBox {
                alg: ALGORITHM.into(),
                key: id.clone(),
                nonce: STANDARD.encode(nonce),
                data: STANDARD.encode(data),
            },
        };
        // Strings and a number always serialize.
        serde_json::to_string(&envelope).unwrap_or_default()
    }

    /// The record of `text`, plain or sealed. A sealed record needs the keys, the key it was
    /// sealed with and this store's id; the error names the store and the key id.
    pub(crate) fn decode(&self, text: &[u8]) -> Result<Record, TokenStoreError> {
        let probe: Probe = serde_json::from_slice(text).map_err(|e| {
            TokenStoreError::new(format!(
                "the saved tokens of store {} are not readable ({:?} error at line {} column {})",
                self.shown_store(),
                e.classify(),
                e.line(),
                e.column()
            ))
        })?;
        let Some(sealed) = probe.sealed else {
            return Record::decode(text);
        };
        let store = self.shown_store();
        let key_id = sealed.key.escape_debug().to_string();
        let Some(keys) = &self.keys else {
            return Err(TokenStoreError::new(format!(
                "the tokens of store {store} are encrypted (key `{key_id}`): give the token keys \
                 ({TOKEN_KEYS_ENV} or {TOKEN_KEYS_FILE_ENV})"
            )));
        };
        if sealed.alg != ALGORITHM {
            return Err(TokenStoreError::new(format!(
                "the tokens of store {store} are sealed with `{}`, which this version does not \
                 open",
                sealed.alg.escape_debug()
            )));
        }
        let Some(cipher) = keys.key(&sealed.key) else {
            return Err(TokenStoreError::new(format!(
                "the tokens of store {store} are sealed with key `{key_id}`, which the token keys \
                 ({}) do not hold",
                keys.ids().collect::<Vec<_>>().join(", ")
            )));
        };
        let refused = || {
            TokenStoreError::new(format!(
                "the tokens of store {store} do not open with key `{key_id}`: the key is not the \
                 one they were sealed with, the record was changed, or it is another store's"
            ))
        };
        let nonce = STANDARD.decode(&sealed.nonce).map_err(|_| refused())?;
        if nonce.len() != 24 {
            return Err(refused());
        }
        let data = STANDARD.decode(&sealed.data).map_err(|_| refused())?;
        let aad = self.associated_data(&sealed.key);
        let plain = Zeroizing::new(
            cipher
                .decrypt(
                    XNonce::from_slice(&nonce),
                    Payload {
                        msg: &data,
                        aad: &aad,
                    },
                )
                .map_err(|_| refused())?,
        );
        let record = Record::decode(&plain)?;
        if probe
            .revision
            .is_some_and(|revision| revision != record.revision)
        {
            return Err(refused());
        }
        Ok(record)
    }

    /// The revision written in clear in `text` (sealed or not), for replacing a record that
    /// does not open.
    pub(crate) fn revision_of(text: &[u8]) -> Option<u64> {
        serde_json::from_slice::<Probe>(text).ok()?.revision
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::TokenHealth;
    use crate::credentials::{AccessToken, RefreshToken, Revision, StoredTokens, TokenSet};

    const A: &str = "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    const B: &str = "b:HxwdHhscGRoYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=";

    fn record(revision: u64) -> Record {
        let tokens = TokenSet {
            access: AccessToken::new("access-secret-1"),
            refresh: Some(RefreshToken::new("refresh-secret-1")),
            expires_at: chrono::Utc::now(),
            scope: "offline_access".into(),
        };
        Record::new(
            Revision(revision),
            Some(&StoredTokens::Active(tokens)),
            &TokenHealth::default(),
        )
    }

    fn sealing(keys: &str, store: &str) -> Sealing {
        Sealing::new(Some(Arc::new(TokenKeys::parse(keys).unwrap())), store)
    }

    #[test]
    fn keys_parse_and_refuse_bad_entries_without_showing_them() {
        let keys = TokenKeys::parse(&format!("# rotation\n{B}\n\n{A}\n")).unwrap();
        assert_eq!(keys.ids().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(
            TokenKeys::parse(&format!("{B},{A}")).unwrap().current(),
            "b"
        );
        let debug = format!("{keys:?}");
        assert!(
            !debug.contains("AAEC") && !debug.contains("HxwdH"),
            "{debug}"
        );
        for (text, says) in [
            ("", "no key"),
            ("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "no `:`"),
            ("a:AAECAwQF", "not 32"),
            ("a:!!!!secret-ish!!!", "not 32 bytes of base64"),
            ("b@d:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "key id"),
        ] {
            let error = TokenKeys::parse(text).unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
            assert!(
                !error.contains("AAEC") && !error.contains("secret-ish"),
                "{error}"
            );
        }
        let twice = TokenKeys::parse(&format!("{A}\n{A}"))
            .unwrap_err()
            .to_string();
        assert!(twice.contains("`a` is given twice"), "{twice}");
    }

    #[test]
    fn a_sealed_record_opens_for_its_store_only_and_holds_no_plaintext() {
        let sealed = sealing(A, "shop-1").encode(&record(4));
        assert!(!sealed.contains("secret"), "{sealed}");
        assert!(sealed.contains("\"key\":\"a\""), "{sealed}");
        let back = sealing(A, "shop-1").decode(sealed.as_bytes()).unwrap();
        assert_eq!(back.revision, 4);
        let other = sealing(A, "shop-2")
            .decode(sealed.as_bytes())
            .err()
            .unwrap();
        assert!(
            other
                .to_string()
                .contains("`shop-2` do not open with key `a`"),
            "{other}"
        );
        let unknown = sealing(B, "shop-1")
            .decode(sealed.as_bytes())
            .err()
            .unwrap();
        assert!(
            unknown
                .to_string()
                .contains("key `a`, which the token keys (b)"),
            "{unknown}"
        );
        let plain = Sealing::new(None, "shop-1")
            .decode(sealed.as_bytes())
            .err()
            .unwrap();
        assert!(plain.to_string().contains(TOKEN_KEYS_ENV), "{plain}");
        // A record whose clear revision was changed does not open either.
        let moved = sealed.replace("\"revision\":4", "\"revision\":5");
        assert!(sealing(A, "shop-1").decode(moved.as_bytes()).is_err());
        assert_eq!(Sealing::revision_of(moved.as_bytes()), Some(5));
        // A plain record is read with keys (migration).
        let plain = Sealing::new(None, "shop-1").encode(&record(2));
        assert_eq!(
            sealing(A, "shop-1")
                .decode(plain.as_bytes())
                .unwrap()
                .revision,
            2
        );
    }
}
