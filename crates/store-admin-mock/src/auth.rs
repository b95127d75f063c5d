//! Bearer tokens and scopes: which tokens the mock accepts and what they grant. Below both the
//! configuration and the OAuth endpoint, which share it.

use std::fmt;

use secrecy::{ExposeSecret, SecretString};

/// The token a mock accepts when its configuration names none.
pub const DEFAULT_TOKEN: &str = "sandbox-token";

/// What a token grants: some scopes, or every scope of the document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Grant {
    pub scopes: Vec<String>,
    pub every: bool,
}

impl Grant {
    /// Whether the grant covers at least one of `required` (an empty list requires nothing).
    pub fn grants_any(&self, required: &[String]) -> bool {
        self.every
            || required.is_empty()
            || required
                .iter()
                .any(|needed| scopes_grant(&self.scopes, needed))
    }

    /// The `scope` text of an OAuth token answer (every scope of the document for `every`).
    pub fn scope_text(&self, document_scopes: &[String]) -> String {
        if self.every {
            document_scopes.join(" ")
        } else {
            self.scopes.join(" ")
        }
    }
}

/// One bearer token the mock accepts, with the scopes it grants.
#[derive(Clone)]
pub struct MockToken {
    token: SecretString,
    grant: Grant,
}

impl MockToken {
    /// A token granting `scopes`. A `.read_write` scope also grants the matching `.read` one.
    pub fn new<S: Into<String>>(
        token: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            token: SecretString::from(token.into()),
            grant: Grant {
                scopes: scopes.into_iter().map(Into::into).collect(),
                every: false,
            },
        }
    }

    /// A token granting every scope of the document served.
    pub fn all_scopes(token: impl Into<String>) -> Self {
        Self {
            token: SecretString::from(token.into()),
            grant: Grant {
                scopes: Vec::new(),
                every: true,
            },
        }
    }

    /// The token itself (send it as `Authorization: Bearer <token>`).
    pub fn secret(&self) -> &SecretString {
        &self.token
    }

    /// The scopes it was configured with (empty for a token of every scope).
    pub fn scopes(&self) -> &[String] {
        &self.grant.scopes
    }

    /// Whether it grants every scope of the document.
    pub fn grants_every_scope(&self) -> bool {
        self.grant.every
    }

    /// Whether the token grants at least one of `required` (an empty list requires nothing).
    pub fn grants_any(&self, required: &[&str]) -> bool {
        let required: Vec<String> = required.iter().map(|s| (*s).to_owned()).collect();
        self.grant.grants_any(&required)
    }

    /// Whether the token grants `scope`, directly or through its `.read_write` sibling.
    pub fn grants(&self, scope: &str) -> bool {
        self.grant.every || scopes_grant(&self.grant.scopes, scope)
    }

    pub(crate) fn grant(&self) -> &Grant {
        &self.grant
    }

    pub(crate) fn matches(&self, presented: &str) -> bool {
        constant_time_eq(self.token.expose_secret(), presented)
    }
}

impl fmt::Debug for MockToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockToken")
            .field("token", &"[REDACTED]")
            .field("scopes", &self.grant.scopes)
            .field("every_scope", &self.grant.every)
            .finish()
    }
}

/// Whether `held` grants `scope`: the service's one scope rule, `store_admin_client::scope_grants`
/// (`.read_write` grants the matching `.read`).
pub(crate) fn scopes_grant(held: &[String], scope: &str) -> bool {
    held.iter()
        .any(|held| store_admin_client::scope_grants(held, scope))
}

/// Equality of two secrets whose time does not depend on where they differ (length leaks).
pub(crate) fn constant_time_eq(expected: &str, presented: &str) -> bool {
    bool::from(subtle::ConstantTimeEq::ct_eq(
        expected.as_bytes(),
        presented.as_bytes(),
    ))
}
