//! [`StoreAdmin`]: the generated client with authentication, rate limiting, retries, timeouts and
//! tracing added to every call through one interception point.
//!
//! `StoreAdmin` dereferences to the generated [`Client`], so every operation of the document is
//! there with the generated builder interface (`admin.list_orders().per_page(60).send()`); nothing
//! is written twice. What the generated code sends passes through [`Runtime`], this crate's
//! implementation of [`store_admin_client::Interceptor`] (see the `runtime` module). The builder
//! is in `client/builder.rs`.
//!
//! How errors reach the caller: a call the runtime ends (an error answer, a transport failure, no
//! token, a refused origin) ends with this crate's [`Error`], which [`Call::call`](crate::Call),
//! [`CallFull::call_full`](crate::CallFull) and the pagination streams return as it was raised. A
//! generated builder's own `send()` keeps progenitor's error type and gets progenitor's
//! `Error::Custom` with the message only (`From` makes it [`Error::InvalidRequest`]). The
//! runtime's `handoff` module carries the error past the generated code.
//! [`StoreAdmin::send_raw`] answers every status as a [`RawResponse`](crate::RawResponse).
//!
//! The access token goes to two origins only: the API's base URL and the accounts host
//! ([`StoreAdminBuilder::with_accounts_url`]); a request to any other origin is refused with
//! [`Error::InvalidRequest`] before anything is sent. A request whose body cannot be replayed (a
//! stream) is sent once, through the same authorization, rate limiter, timeout and tracing, and
//! is neither replayed after a token refresh nor retried.
//!
//! The language: by default no language header is sent, and the service answers in Arabic.
//! [`StoreAdminBuilder::with_language`] sets it for every call of a client, and
//! [`StoreAdmin::in_language`] for the calls made through a view of it (see
//! [`language`](crate::language)).

mod builder;

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use store_admin_client::{Client, Inner};

use crate::credentials::Authenticator;
use crate::error::Error;
use crate::language::Language;
use crate::runtime::{Answered, InLanguage, RawResponse, Runtime};

pub use builder::{
    DEFAULT_MAX_RESPONSE_BYTES, LIVE_ACCOUNTS_URL, LIVE_BASE_URL, StoreAdminBuilder,
};

/// The client services use. Cheap to clone (the state is shared).
#[derive(Clone)]
pub struct StoreAdmin {
    client: Client,
    runtime: Arc<Runtime>,
    /// The language of this client's calls: the builder's, or a view's ([`StoreAdmin::in_language`]).
    language: Option<Language>,
}

impl fmt::Debug for StoreAdmin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreAdmin")
            .field("base_url", &self.runtime.base_url)
            .field("language", &self.language)
            .field("runtime", &self.runtime)
            .finish()
    }
}

impl Deref for StoreAdmin {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl StoreAdmin {
    /// Starts a builder (base URL: the live service).
    pub fn builder() -> StoreAdminBuilder {
        StoreAdminBuilder::default()
    }

    /// The generated client (also reachable through `Deref`).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The authenticator: install tokens received from the `app.store.authorize` webhook, or read
    /// how many refreshes ran.
    pub fn authenticator(&self) -> &Authenticator {
        &self.runtime.auth
    }

    /// The drift counted so far (see [`crate::drift`]): empty unless the client was built
    /// [`with_drift_counting`](StoreAdminBuilder::with_drift_counting). Shared by the client's
    /// clones and language views.
    pub fn drift(&self) -> crate::drift::DriftReport {
        self.runtime
            .drift
            .as_ref()
            .map(|counter| counter.report())
            .unwrap_or_default()
    }

    /// The client's drift count, to add the service's webhook deliveries to (see
    /// [`DriftCount`](crate::drift::DriftCount)): `None` unless the client was built
    /// [`with_drift_counting`](StoreAdminBuilder::with_drift_counting) or
    /// [`with_drift_count`](StoreAdminBuilder::with_drift_count).
    pub fn drift_count(&self) -> Option<crate::drift::DriftCount> {
        self.runtime
            .drift
            .as_ref()
            .map(|counter| crate::drift::DriftCount(counter.clone()))
    }

    /// The base URL calls go to.
    pub fn base_url(&self) -> &str {
        &self.runtime.base_url
    }

    /// The accounts host's base URL, where `get_user_info` goes (see
    /// [`StoreAdminBuilder::with_accounts_url`]).
    pub fn accounts_url(&self) -> &str {
        &self.runtime.accounts_url
    }

    /// The language this client's calls ask for (`Accept-Language`, and `Content-Language` with a
    /// body); `None`: no header, the service answers in its default, Arabic.
    pub fn language(&self) -> Option<&Language> {
        self.language.as_ref()
    }

    /// A view of this client whose calls ask for `language` instead: the per-call override of
    /// [`StoreAdminBuilder::with_language`]. The view shares everything else with the client (the
    /// connection pool, the tokens and their refreshes, the rate limiter, the retry budget); only
    /// the language headers differ. Making one costs a few small allocations.
    ///
    /// ```no_run
    /// # use store_admin::{Error, Language, StoreAdmin};
    /// # use store_admin::prelude::*;
    /// # async fn run(admin: StoreAdmin) -> Result<(), Error> {
    /// // One call in English (its validation messages too):
    /// let statuses = admin.in_language(Language::ENGLISH).list_order_statuses().send().await?;
    /// // Several: keep the view.
    /// let english = admin.in_language("en-US".parse()?);
    /// let orders = english.list_orders().per_page(5).send().await?;
    /// # let _ = (statuses, orders);
    /// # Ok(()) }
    /// ```
    pub fn in_language(&self, language: Language) -> StoreAdmin {
        let interceptor = Arc::new(InLanguage {
            runtime: self.runtime.clone(),
            language: language.clone(),
        });
        let client = Client::new_with_client(
            &self.runtime.base_url,
            progenitor_client::ClientInfo::client(&self.client).clone(),
            Inner::with_interceptor(interceptor),
        );
        StoreAdmin {
            client,
            runtime: self.runtime.clone(),
            language: Some(language),
        }
    }

    /// Sends a request built by hand (any path, e.g. one the document does not describe) through
    /// the same authentication, rate limiting, retries, timeouts and tracing as every operation.
    /// `operation` names it in errors and traces (an `operationId` of the document gives the 401
    /// hint its scopes). Every status comes back as a [`RawResponse`]; see
    /// [`RawResponse::error_for_status`].
    ///
    /// The request must go to the API's origin or the accounts host's: the access token is never
    /// sent anywhere else, so a request to another origin fails with [`Error::InvalidRequest`]
    /// before anything is sent. A body that cannot be replayed (a stream) is sent once and never
    /// retried.
    pub async fn send_raw(
        &self,
        request: reqwest::Request,
        operation: &'static str,
    ) -> Result<RawResponse, Error> {
        let client = progenitor_client::ClientInfo::client(&self.client);
        let Answered {
            mut response, body, ..
        } = self
            .runtime
            .call(client, request, operation, self.language.as_ref())
            .await?;
        Ok(RawResponse {
            operation,
            status: response.status(),
            headers: std::mem::take(response.headers_mut()),
            body,
        })
    }
}
