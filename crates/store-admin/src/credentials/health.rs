//! The health of each store's token chain: what needs a refresh, and what needs the merchant.
//!
//! **Hazard.** A store's tokens fail silently until a call needs them: a refresh token spent by
//! a crashed process, an app uninstalled, a token endpoint failing for days, are found by the
//! merchant's next order, not by the app's operators. An access token refreshed only when it
//! has expired leaves no time to notice a failing refresh.
//!
//! **Defences.**
//! - Tokens are refreshed about a day before they expire
//!   ([`DEFAULT_REFRESH_AHEAD`](super::DEFAULT_REFRESH_AHEAD)); a failure then is recorded and
//!   the current token is still used until it nearly expires.
//! - Each token store keeps, beside the tokens, a [`TokenHealth`]: when the tokens were
//!   installed, the last successful refresh and the last failure (its time and reason, never a
//!   token), written by the process that refreshed, under the store's lock.
//! - `invalid_grant` and `app.uninstalled` leave the store marked revoked, so it is reported as
//!   [`HealthState::ReinstallNeeded`] (and no process presents a spent token again).
//! - [`health_report`] lists every store a [`TokenStores`] knows with its [`HealthState`];
//!   [`StoreHealth::needs_attention`] picks those a person must look at.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Snapshot, StoredTokens, TokenStoreError, TokenStores};

/// What a token store remembers of a store's token chain besides the tokens. Holds no secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenHealth {
    /// When the tokens were installed (an authorization, an `app.store.authorize` delivery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_at: Option<DateTime<Utc>>,
    /// The last successful refresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_refresh: Option<DateTime<Utc>>,
    /// The last failure (a refresh refused or failed, the app uninstalled); kept after a later
    /// success, whose time tells it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<TokenFailure>,
}

impl TokenHealth {
    /// The health of tokens installed at `at`.
    pub fn installed(at: DateTime<Utc>) -> Self {
        TokenHealth {
            installed_at: Some(at),
            ..TokenHealth::default()
        }
    }

    /// This health with a successful refresh at `at`.
    pub fn refreshed(&self, at: DateTime<Utc>) -> Self {
        TokenHealth {
            last_refresh: Some(at),
            ..self.clone()
        }
    }

    /// This health with a failure at `at` for `reason` (which must hold no secret).
    pub fn failed(&self, at: DateTime<Utc>, reason: impl Into<String>) -> Self {
        TokenHealth {
            last_failure: Some(TokenFailure {
                at,
                reason: reason.into(),
            }),
            ..self.clone()
        }
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self == &TokenHealth::default()
    }

    /// Whether the last failure came after the last success (installation or refresh).
    pub fn failing(&self) -> bool {
        let success = self.last_refresh.max(self.installed_at);
        self.last_failure
            .as_ref()
            .is_some_and(|failure| success.is_none_or(|success| failure.at > success))
    }
}

/// A failure of a store's token chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenFailure {
    /// When it happened.
    pub at: DateTime<Utc>,
    /// What happened (`invalid_grant: ...`, `app.uninstalled`, the token endpoint's error).
    pub reason: String,
}

/// How a store's token chain is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HealthState {
    /// Valid, and not yet due for a refresh.
    Healthy,
    /// Valid, within the refresh-ahead window: the next call refreshes it.
    RefreshDue,
    /// Valid, but the last refresh failed after the last success: it will expire unless a
    /// refresh succeeds.
    RefreshFailing,
    /// Expired; a refresh token is there, so the next call refreshes it.
    Expired,
    /// Revoked (`invalid_grant`), uninstalled (`app.uninstalled`), or expired without a refresh
    /// token: only the merchant installing the app again gives new tokens.
    ReinstallNeeded,
    /// Nothing stored.
    NotInstalled,
    /// The store's record could not be read (a corrupt file, a record that does not decode):
    /// [`StoreHealth::error`] says why. The other stores are reported all the same.
    Unreadable,
}

impl HealthState {
    /// The state's name as the command line prints it (`healthy`, `refresh-due`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            HealthState::Healthy => "healthy",
            HealthState::RefreshDue => "refresh-due",
            HealthState::RefreshFailing => "refresh-failing",
            HealthState::Expired => "expired",
            HealthState::ReinstallNeeded => "reinstall-needed",
            HealthState::NotInstalled => "not-installed",
            HealthState::Unreadable => "unreadable",
        }
    }

    /// The state of `snapshot` at `now`, refreshes being due `ahead` of expiry.
    pub fn of(snapshot: &Snapshot, now: DateTime<Utc>, ahead: Duration) -> HealthState {
        match &snapshot.value {
            None => HealthState::NotInstalled,
            Some(StoredTokens::Revoked) => HealthState::ReinstallNeeded,
            Some(StoredTokens::Active(tokens)) => {
                if tokens.is_expired(now, Duration::ZERO) {
                    if tokens.refresh.is_some() {
                        HealthState::Expired
                    } else {
                        HealthState::ReinstallNeeded
                    }
                } else if snapshot.health.failing() {
                    HealthState::RefreshFailing
                } else if tokens.is_expired(now, ahead) {
                    HealthState::RefreshDue
                } else {
                    HealthState::Healthy
                }
            }
        }
    }
}

/// One store of a [`health_report`]: never a token.
#[derive(Debug, Clone)]
pub struct StoreHealth {
    /// The merchant (store) id.
    pub merchant: String,
    /// How it is doing.
    pub state: HealthState,
    /// When the access token expires, when there is one.
    pub expires_at: Option<DateTime<Utc>>,
    /// The granted scopes, when there are tokens.
    pub scope: Option<String>,
    /// Installation, last refresh, last failure.
    pub health: TokenHealth,
    /// Why the record could not be read, for [`HealthState::Unreadable`] (never a token).
    pub error: Option<String>,
}

impl StoreHealth {
    /// The health of `merchant`'s `snapshot` at `now` (see [`HealthState::of`]).
    pub fn of(merchant: &str, snapshot: &Snapshot, now: DateTime<Utc>, ahead: Duration) -> Self {
        StoreHealth {
            merchant: merchant.to_owned(),
            state: HealthState::of(snapshot, now, ahead),
            expires_at: snapshot.tokens().map(|t| t.expires_at),
            scope: snapshot.tokens().map(|t| t.scope.clone()),
            health: snapshot.health.clone(),
            error: None,
        }
    }

    /// A store whose record could not be read, for `error`.
    pub fn unreadable(merchant: &str, error: &TokenStoreError) -> Self {
        StoreHealth {
            merchant: merchant.to_owned(),
            state: HealthState::Unreadable,
            expires_at: None,
            scope: None,
            health: TokenHealth::default(),
            error: Some(error.to_string()),
        }
    }

    /// Whether a person should look at it: anything but [`HealthState::Healthy`] and
    /// [`HealthState::RefreshDue`] (the next call refreshes it).
    pub fn needs_attention(&self) -> bool {
        !matches!(self.state, HealthState::Healthy | HealthState::RefreshDue)
    }
}

/// Every store `stores` knows (see [`TokenStores::merchants`]), with its health at `now`,
/// sorted by merchant id; refreshes are due `ahead` of expiry. A store whose record cannot be
/// read is listed as [`HealthState::Unreadable`] with the reason, and the others still are; only
/// a failure to list the stores fails the report.
pub async fn health_report(
    stores: &dyn TokenStores,
    now: DateTime<Utc>,
    ahead: Duration,
) -> Result<Vec<StoreHealth>, TokenStoreError> {
    let mut merchants = stores.merchants().await?;
    merchants.sort();
    merchants.dedup();
    let mut report = Vec::with_capacity(merchants.len());
    for merchant in merchants {
        report.push(match stores.for_merchant(&merchant).load().await {
            Ok(snapshot) => StoreHealth::of(&merchant, &snapshot, now, ahead),
            Err(error) => StoreHealth::unreadable(&merchant, &error),
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::{AccessToken, RefreshToken, Revision, TokenSet};

    fn snapshot(expires_in: i64, refresh: bool, health: TokenHealth) -> Snapshot {
        Snapshot {
            revision: Revision(1),
            value: Some(StoredTokens::Active(TokenSet {
                access: AccessToken::new("a"),
                refresh: refresh.then(|| RefreshToken::new("r")),
                expires_at: Utc::now() + chrono::Duration::seconds(expires_in),
                scope: String::new(),
            })),
            health,
        }
    }

    #[test]
    fn states_follow_expiry_failures_and_revocation() {
        let now = Utc::now();
        let day = Duration::from_secs(86_400);
        let state = |s: &Snapshot| HealthState::of(s, now, day);
        assert_eq!(
            state(&snapshot(10 * 86_400, true, TokenHealth::default())),
            HealthState::Healthy
        );
        assert_eq!(
            state(&snapshot(3_600, true, TokenHealth::default())),
            HealthState::RefreshDue
        );
        assert_eq!(
            state(&snapshot(-10, true, TokenHealth::default())),
            HealthState::Expired
        );
        assert_eq!(
            state(&snapshot(-10, false, TokenHealth::default())),
            HealthState::ReinstallNeeded
        );
        let earlier = now - chrono::Duration::hours(1);
        let failing = TokenHealth::installed(earlier).failed(now, "token endpoint: HTTP 503");
        assert_eq!(
            state(&snapshot(3_600, true, failing.clone())),
            HealthState::RefreshFailing
        );
        let recovered = failing.refreshed(now + chrono::Duration::seconds(1));
        assert_eq!(
            state(&snapshot(10 * 86_400, true, recovered)),
            HealthState::Healthy
        );
        let revoked = Snapshot {
            revision: Revision(2),
            value: Some(StoredTokens::Revoked),
            health: TokenHealth::default(),
        };
        assert_eq!(state(&revoked), HealthState::ReinstallNeeded);
        assert_eq!(state(&Snapshot::default()), HealthState::NotInstalled);
    }
}
