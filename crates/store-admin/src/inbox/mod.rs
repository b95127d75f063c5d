//! A webhook inbox: the receiving side of the service's deliveries, as a service team deploys it.
//!
//! [`Inbox`] reads a delivery's raw body (bounded), verifies it under the strategy the app chose
//! ([`Security`]: signature, token or none), parses it into a typed [`WebhookEvent`], and hands it
//! to the application's [`EventHandler`] once, however often it is delivered, across every replica
//! that shares its [`Deduplicator`] ([`MemoryDeduplicator`] for one process, `RedisDeduplicator`
//! with the `redis` feature for many).
//!
//! The service resends a delivery 3 times about 5 minutes apart when it is not answered 200 or 201
//! within about 30 s, and its signature carries no timestamp, so a replayed delivery verifies: a
//! delivery is known by the SHA-256 of its raw body, remembered for [`InboxBuilder::remember`]
//! (an hour by default, beyond the retry window).
//!
//! What each delivery is answered, so that the service resends exactly what was not handled:
//!
//! | outcome | status |
//! |---|---|
//! | handled now, or handled before (a redelivery) | 200 |
//! | being handled by another replica right now | 409: the service resends it later |
//! | the handler failed or took longer than its deadline | 500: the claim is given up, a resend handles it |
//! | not authentic (signature, token, strategy) | 401 |
//! | not a delivery (malformed JSON) | 400 |
//! | larger than the bound | 413 |
//! | the deduplicator is unreachable | 503 |
//!
//! The handler runs before the answer, within a deadline under the service's timeout
//! ([`InboxBuilder::handler_timeout`], 10 s by default): an event is acknowledged only once it
//! is handled, so a crash loses nothing (the service resends it), and a handler that must do long
//! work enqueues it and returns. Missed deliveries are caught up by [`reconcile`].
//!
//! [`Inbox`] is a tower `Service` over `http` requests: mount it in axum with
//! `Router::route_service("/webhooks", inbox)`; [`Inbox::receive`] takes headers and bytes from any
//! other framework.
//!
//! ```
//! # async fn example() {
//! use secrecy::SecretString;
//! use store_admin::inbox::{Inbox, MemoryDeduplicator, Outcome, Security};
//! use store_admin::webhooks::{signed_headers, WebhookEvent};
//!
//! let secret = SecretString::from("webhook-secret");
//! let inbox = Inbox::builder(Security::Signature(secret.clone()), |event: WebhookEvent| async move {
//!     println!("{} for store {}", event.event, event.merchant);
//!     Ok(())
//! })
//! .deduplicator(MemoryDeduplicator::new())
//! .build();
//! let body = br#"{"event":"order.created","merchant":1234509876,"created_at":"2022-12-31 12:31:25","data":{"id":1}}"#;
//! let headers = signed_headers(&secret, body);
//! assert!(matches!(inbox.receive(&headers, body).await, Outcome::Handled));
//! assert!(matches!(inbox.receive(&headers, body).await, Outcome::Duplicate));
//! # }
//! ```

mod dedup;
mod reconcile;
#[cfg(feature = "redis")]
mod redis;

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use http::{HeaderMap, StatusCode};
use http_body_util::BodyExt;
use secrecy::SecretString;
use sha2::{Digest, Sha256};

pub use dedup::{Claim, DedupError, Deduplicator, MemoryDeduplicator};
pub use reconcile::{Cursor, ReconcileError, ReconcileReport, reconcile};
#[cfg(feature = "redis")]
pub use redis::RedisDeduplicator;

use crate::webhooks::{self, Strategy, WebhookError, WebhookEvent};

/// An error a handler returns: the delivery is answered 500 and handled again when resent.
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

/// How the app's webhooks prove that a delivery comes from the service: the strategy and secret
/// it registered them with (`POST /webhooks/subscribe`'s `security_strategy` and `secret`).
#[derive(Clone)]
pub enum Security {
    /// `X-Salla-Signature`, the HMAC-SHA256 of the raw body keyed with the secret.
    Signature(SecretString),
    /// `Authorization` holds the secret.
    Token(SecretString),
    /// No proof: every delivery is taken as it comes (only behind a network that only the
    /// service reaches).
    None,
}

impl fmt::Debug for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Security::Signature(_) => "Signature([redacted])",
            Security::Token(_) => "Token([redacted])",
            Security::None => "None",
        })
    }
}

/// What the application does with an event. Implemented for every
/// `Fn(WebhookEvent) -> impl Future<Output = Result<(), HandlerError>>`.
#[async_trait]
pub trait EventHandler: Send + Sync + 'static {
    /// Handles one event; an error has the service resend it.
    async fn handle(&self, event: WebhookEvent) -> Result<(), HandlerError>;
}

#[async_trait]
impl<F, Fut> EventHandler for F
where
    F: Fn(WebhookEvent) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), HandlerError>> + Send + 'static,
{
    async fn handle(&self, event: WebhookEvent) -> Result<(), HandlerError> {
        self(event).await
    }
}

/// What became of one delivery (see the module's table for the status each is answered).
#[derive(Debug)]
#[non_exhaustive]
pub enum Outcome {
    /// The handler took the event.
    Handled,
    /// The event was handled before: a redelivery, acknowledged without handling it again.
    Duplicate,
    /// Another replica is handling the event now.
    InProgress,
    /// The delivery is not authentic, or not a delivery.
    Rejected(WebhookError),
    /// The body is larger than the inbox reads.
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The body could not be read (the connection broke).
    Unreadable(String),
    /// The handler failed, or did not finish within its deadline; the claim was given up.
    Failed(String),
    /// The deduplicator could not be asked.
    Unavailable(DedupError),
}

impl Outcome {
    /// The status the delivery is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Outcome::Handled | Outcome::Duplicate => StatusCode::OK,
            Outcome::InProgress => StatusCode::CONFLICT,
            Outcome::Rejected(WebhookError::Decode { .. }) => StatusCode::BAD_REQUEST,
            Outcome::Rejected(_) => StatusCode::UNAUTHORIZED,
            Outcome::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Outcome::Unreadable(_) => StatusCode::BAD_REQUEST,
            Outcome::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Outcome::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// A short machine-readable name (`handled`, `duplicate`, ...), the answer's body.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Handled => "handled",
            Outcome::Duplicate => "duplicate",
            Outcome::InProgress => "in_progress",
            Outcome::Rejected(WebhookError::Decode { .. }) => "malformed",
            Outcome::Rejected(_) => "unauthenticated",
            Outcome::TooLarge { .. } => "too_large",
            Outcome::Unreadable(_) => "unreadable",
            Outcome::Failed(_) => "handler_failed",
            Outcome::Unavailable(_) => "unavailable",
        }
    }
}

/// Builds an [`Inbox`]: [`Inbox::builder`].
pub struct InboxBuilder {
    security: Security,
    handler: Arc<dyn EventHandler>,
    deduplicator: Arc<dyn Deduplicator>,
    max_body_bytes: usize,
    remember: Duration,
    handler_timeout: Duration,
    prefix: String,
    drift: Option<crate::drift::DriftCount>,
}

impl InboxBuilder {
    /// Where deliveries seen are remembered (default: a [`MemoryDeduplicator`] of this process
    /// alone; share a `RedisDeduplicator` among replicas).
    pub fn deduplicator(mut self, deduplicator: impl Deduplicator) -> Self {
        self.deduplicator = Arc::new(deduplicator);
        self
    }

    /// The largest body read (default 1 MiB); a larger one is answered 413 unread.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a handled delivery is remembered (default an hour: the service's 3 resends
    /// about 5 minutes apart end well within it).
    pub fn remember(mut self, ttl: Duration) -> Self {
        self.remember = ttl;
        self
    }

    /// The handler's deadline (default 10 s, under the service's 30 s timeout). A replica that
    /// crashes while handling holds its claim this long at most.
    pub fn handler_timeout(mut self, timeout: Duration) -> Self {
        self.handler_timeout = timeout;
        self
    }

    /// The prefix of the deduplicator's keys (default `store-admin:webhook:`), to keep apps that
    /// share a Redis apart.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Counts drift in each verified delivery (see [`DriftCount`](crate::drift::DriftCount)),
    /// under `webhook:<event name>`: give the client's
    /// ([`StoreAdmin::drift_count`](crate::StoreAdmin::drift_count)) for one report of answers
    /// and deliveries. Off by default. A resent delivery counts each time it arrives.
    pub fn count_drift(mut self, drift: crate::drift::DriftCount) -> Self {
        self.drift = Some(drift);
        self
    }

    /// The inbox.
    pub fn build(self) -> Inbox {
        Inbox {
            inner: Arc::new(self),
        }
    }
}

/// The receiving side of the app's webhooks (see the [module documentation](self)). Cheap to
/// clone: clones share one configuration.
#[derive(Clone)]
pub struct Inbox {
    inner: Arc<InboxBuilder>,
}

impl fmt::Debug for Inbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("security", &self.inner.security)
            .field("max_body_bytes", &self.inner.max_body_bytes)
            .field("remember", &self.inner.remember)
            .field("handler_timeout", &self.inner.handler_timeout)
            .finish_non_exhaustive()
    }
}

/// The default bound on a delivery's body.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;

impl Inbox {
    /// An inbox verifying with `security` and handing events to `handler`.
    pub fn builder(security: Security, handler: impl EventHandler) -> InboxBuilder {
        InboxBuilder {
            security,
            handler: Arc::new(handler),
            deduplicator: Arc::new(MemoryDeduplicator::new()),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            remember: Duration::from_secs(3600),
            handler_timeout: Duration::from_secs(10),
            prefix: "store-admin:webhook:".into(),
            drift: None,
        }
    }

    /// The key a delivery is remembered by: the prefix and the SHA-256 of its raw body.
    pub fn delivery_key(&self, raw_body: &[u8]) -> String {
        format!(
            "{}{}",
            self.inner.prefix,
            hex::encode(Sha256::digest(raw_body))
        )
    }

    /// Verifies, de-duplicates and handles one delivery given as its headers and raw body.
    pub async fn receive(&self, headers: &HeaderMap, raw_body: &[u8]) -> Outcome {
        let inner = &self.inner;
        if raw_body.len() > inner.max_body_bytes {
            return Outcome::TooLarge {
                limit: inner.max_body_bytes,
            };
        }
        if let Err(error) = self.verify(headers, raw_body) {
            return Outcome::Rejected(error);
        }
        let parsed = match &inner.drift {
            None => webhooks::parse_event(raw_body),
            Some(drift) => webhooks::parse_event_counting(raw_body, drift),
        };
        let event = match parsed {
            Ok(event) => event,
            Err(error) => return Outcome::Rejected(error),
        };
        let key = self.delivery_key(raw_body);
        let record = reconcile::record_key(&self.inner.prefix, &event);
        self.handle_once(key, record, event).await
    }

    /// Hands `event` to the handler unless `key` was handled or is being handled; remembers
    /// `key` (and `record`, the version of the record it brings) once it is.
    async fn handle_once(
        &self,
        key: String,
        record: Option<String>,
        event: WebhookEvent,
    ) -> Outcome {
        let inner = &self.inner;
        if let Some(record) = &record {
            match inner.deduplicator.handled(record).await {
                Ok(true) => {
                    // A reconciliation handed this version on already: remember the delivery too.
                    let _ = inner.deduplicator.complete(&key, inner.remember).await;
                    return Outcome::Duplicate;
                }
                Ok(false) => {}
                Err(error) => return Outcome::Unavailable(error),
            }
        }
        let token = match inner
            .deduplicator
            .claim(&key, inner.handler_timeout + Duration::from_secs(5))
            .await
        {
            Ok(Claim::Claimed(token)) => token,
            Ok(Claim::Handled) => return Outcome::Duplicate,
            Ok(Claim::InProgress) => return Outcome::InProgress,
            Err(error) => return Outcome::Unavailable(error),
        };
        let handled =
            tokio::time::timeout(inner.handler_timeout, inner.handler.handle(event)).await;
        let failure = match handled {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(_) => Some(format!(
                "the handler did not finish within {:?}",
                inner.handler_timeout
            )),
        };
        if let Some(failure) = failure {
            if let Err(error) = inner.deduplicator.release(&key, &token).await {
                tracing::warn!(%error, "could not give up a webhook claim; it expires on its own");
            }
            tracing::warn!(error = %failure, "webhook handler failed; the delivery will be resent");
            return Outcome::Failed(failure);
        }
        if let Err(error) = inner.deduplicator.complete(&key, inner.remember).await {
            // Handled, but not remembered: a resend would be handled again. Say so loudly.
            tracing::error!(%error, "webhook handled but not remembered; a resend would repeat it");
        }
        if let Some(record) = record {
            let _ = inner.deduplicator.complete(&record, inner.remember).await;
        }
        Outcome::Handled
    }

    /// The configured strategy, and the delivery's proof of it.
    fn verify(&self, headers: &HeaderMap, raw_body: &[u8]) -> Result<(), WebhookError> {
        let (expected, secret) = match &self.inner.security {
            Security::None => return Ok(()),
            Security::Signature(secret) => (Strategy::Signature, secret),
            Security::Token(secret) => (Strategy::Token, secret),
        };
        let strategy = webhooks::verify(headers, raw_body, secret)?;
        if strategy != expected {
            return Err(WebhookError::UnknownStrategy(strategy.as_str().into()));
        }
        Ok(())
    }

    /// Reads the body of `request` within the bound, then [`Inbox::receive`]s it.
    async fn serve<B>(self, request: http::Request<B>) -> Outcome
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        let limit = self.inner.max_body_bytes;
        let declared = parts
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Outcome::TooLarge { limit };
        }
        let bytes: Bytes = match http_body_util::Limited::new(body, limit).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(error) => {
                if error.is::<http_body_util::LengthLimitError>() {
                    return Outcome::TooLarge { limit };
                }
                return Outcome::Unreadable(error.to_string());
            }
        };
        self.receive(&parts.headers, &bytes).await
    }
}

/// The answer of the tower service: the outcome's status, and its name as a small JSON body.
fn answer(outcome: &Outcome) -> http::Response<String> {
    let mut response = http::Response::new(format!("{{\"outcome\":\"{}\"}}", outcome.name()));
    *response.status_mut() = outcome.status();
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

impl<B> tower_service::Service<http::Request<B>> for Inbox
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = http::Response<String>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let inbox = self.clone();
        Box::pin(async move {
            if request.method() != http::Method::POST {
                let mut response = http::Response::new(String::new());
                *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
                return Ok(response);
            }
            let outcome = inbox.serve(request).await;
            Ok(answer(&outcome))
        })
    }
}
