//! The secret token types: nothing here shows a secret in `Debug` or `Display`.

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, Utc};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Deserializer};
use subtle::ConstantTimeEq;

use super::AuthError;

macro_rules! secret_newtype {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(SecretString);

        impl $name {
            /// Wraps a secret value.
            pub fn new(value: impl Into<String>) -> Self {
                $name(SecretString::from(value.into()))
            }

            /// The secret itself. Only for putting it on the wire.
            pub fn expose_secret(&self) -> &str {
                self.0.expose_secret()
            }

            /// Constant-time equality of the secrets.
            pub fn ct_eq(&self, other: &Self) -> bool {
                bool::from(
                    self.expose_secret()
                        .as_bytes()
                        .ct_eq(other.expose_secret().as_bytes()),
                )
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(***)"))
            }
        }

        impl From<SecretString> for $name {
            fn from(value: SecretString) -> Self {
                $name(value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map($name::new)
            }
        }
    };
}

secret_newtype! {
    /// An OAuth access token, sent as `Authorization: Bearer <token>`. `Debug` prints
    /// `AccessToken(***)`; there is no `Display` and no `Serialize`.
    AccessToken
}

secret_newtype! {
    /// An OAuth refresh token (single use). `Debug` prints `RefreshToken(***)`; there is no
    /// `Display` and no `Serialize`.
    RefreshToken
}

impl AccessToken {
    /// The `Authorization` header value `Bearer <token>`, marked sensitive (so `http` and
    /// `reqwest` never print it). Fails if the token holds characters a header cannot carry.
    pub fn bearer_header(&self) -> Result<http::HeaderValue, AuthError> {
        let mut value = http::HeaderValue::from_str(&format!("Bearer {}", self.expose_secret()))
            .map_err(|_| AuthError::InvalidTokenCharacters)?;
        value.set_sensitive(true);
        Ok(value)
    }
}

/// A store's current tokens.
#[derive(Clone, Debug)]
pub struct TokenSet {
    /// The access token.
    pub access: AccessToken,
    /// The refresh token; absent unless `offline_access` was granted.
    pub refresh: Option<RefreshToken>,
    /// When the access token stops working.
    pub expires_at: DateTime<Utc>,
    /// The granted scopes, space-separated, as the service sent them.
    pub scope: String,
}

impl TokenSet {
    /// Whether the access token has expired at `now`, or will within `leeway`.
    pub fn is_expired(&self, now: DateTime<Utc>, leeway: Duration) -> bool {
        let leeway = chrono::Duration::from_std(leeway).unwrap_or(chrono::Duration::MAX);
        match now.checked_add_signed(leeway) {
            Some(deadline) => deadline >= self.expires_at,
            None => true,
        }
    }

    /// The granted scopes.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scope.split_ascii_whitespace()
    }

    /// Whether `scope` was granted. `orders.read` is also satisfied by `orders.read_write`
    /// ([`store_admin_client::scope_grants`]).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes()
            .any(|granted| store_admin_client::scope_grants(granted, scope))
    }

    /// Whether these tokens may call `operation` (one of its scopes is granted).
    pub fn grants(&self, operation: &store_admin_client::OperationMeta) -> bool {
        operation.granted_by(self.scopes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::*;

    fn tokens(access: &str, refresh: Option<&str>, expires_in_secs: i64) -> TokenSet {
        TokenSet {
            access: AccessToken::new(access),
            refresh: refresh.map(RefreshToken::new),
            expires_at: Utc::now() + chrono::Duration::seconds(expires_in_secs),
            scope: "orders.read_write offline_access".into(),
        }
    }

    #[test]
    fn secret_newtypes_debug_as_stars() {
        assert_eq!(format!("{:?}", AccessToken::new("abc")), "AccessToken(***)");
        assert_eq!(
            format!("{:?}", RefreshToken::new("abc")),
            "RefreshToken(***)"
        );
    }
    #[test]
    fn secret_newtypes_deserialize_from_strings() {
        let t: AccessToken = serde_json::from_str("\"tok\"").unwrap();
        assert_eq!(t.expose_secret(), "tok");
    }
    #[test]
    fn bearer_header_is_sensitive_and_well_formed() {
        let h = AccessToken::new("abc").bearer_header().unwrap();
        assert!(h.is_sensitive());
        assert_eq!(h.to_str().unwrap(), "Bearer abc");
        assert!(matches!(
            AccessToken::new("a\nb").bearer_header(),
            Err(AuthError::InvalidTokenCharacters)
        ));
    }
    #[test]
    fn token_set_expiry_honours_leeway() {
        let t = tokens("a", None, 100);
        let now = Utc::now();
        assert!(!t.is_expired(now, Duration::from_secs(10)));
        assert!(t.is_expired(now, Duration::from_secs(200)));
        assert!(t.is_expired(now, Duration::MAX));
        assert!(tokens("a", None, -1).is_expired(now, Duration::ZERO));
    }
    #[test]
    fn read_write_scope_satisfies_read() {
        let t = tokens("a", None, 100);
        assert!(t.has_scope("orders.read"));
        assert!(t.has_scope("orders.read_write"));
        assert!(t.has_scope("offline_access"));
        assert!(!t.has_scope("products.read"));
        assert_eq!(
            t.scopes().collect::<Vec<_>>(),
            ["orders.read_write", "offline_access"]
        );
    }
}
