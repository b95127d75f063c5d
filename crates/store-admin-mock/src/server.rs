//! The listening server: an accept loop serving each connection with hyper, so that a fault can drop
//! a connection without answering, and a handle that stops it when dropped.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tower::ServiceExt;

use crate::auth::MockToken;
use crate::config::MockConfig;
use crate::delivery::{DeliveryAttempt, Dispatcher};
use crate::document::API_PREFIX;
use crate::document::{Document, DocumentError};
use crate::engine::Engine;
use crate::faults::{FaultConfig, FaultConfigError, FaultInjector};
use crate::http::{ConnectionKill, router};
use crate::oauth::{AUTHORIZE_PATH, OAuth, TOKEN_PATH};
use crate::state::{AppState, Parts, RequestCounts};

/// Why the mock could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// Binding 127.0.0.1 failed (port in use...).
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for.
        port: u16,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The fault configuration is invalid.
    #[error(transparent)]
    Faults(#[from] FaultConfigError),
    /// The OpenAPI document cannot be read or served.
    #[error(transparent)]
    Document(#[from] DocumentError),
    /// The drift check's HTTP client could not be made.
    #[error("the drift check cannot forward: {0}")]
    Proxy(String),
}

/// A running mock store on 127.0.0.1. Dropping it stops the server (connections are closed
/// gracefully in the background).
///
/// ```no_run
/// # async fn demo() -> Result<(), store_admin_mock::StartError> {
/// use store_admin_mock::{MockConfig, MockServer};
/// let server = MockServer::start(MockConfig::new().products(100)).await?;
/// println!("{}", server.base_url()); // http://127.0.0.1:PORT/admin/v2
/// # Ok(()) }
/// ```
pub struct MockServer {
    addr: SocketAddr,
    base_url: String,
    state: Arc<AppState>,
    engine: Arc<Engine>,
    shutdown: watch::Sender<bool>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl MockServer {
    /// Generates the store from `config.seed` and starts serving on 127.0.0.1 (an ephemeral port
    /// unless [`MockConfig::port`] was set).
    pub async fn start(config: MockConfig) -> Result<MockServer, StartError> {
        config.faults.validate()?;
        let doc = match &config.document {
            Some(path) => Document::load(path)?,
            None => Document::embedded()?,
        };
        let engine = Engine::for_document(doc, crate::overrides::registry());
        let listener = TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| StartError::Bind {
                port: config.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            port: config.port,
            source,
        })?;
        let base_url = format!("http://{addr}{API_PREFIX}");
        let store = match &config.restore {
            Some(snapshot) => snapshot.to_store(),
            None => crate::seed::store(&engine, config.seed, config.products, config.merchant_id),
        };
        let first_seed = config.restore.as_ref().map_or(config.seed, |s| s.seed());
        let (shutdown, shutdown_rx) = watch::channel(false);
        let dispatcher = Arc::new(Dispatcher::new(
            config.delivery.clone(),
            store.merchant_id,
            shutdown_rx.clone(),
        ));
        let proxy = match &config.proxy {
            Some(base) => Some(
                crate::drift::Proxy::new(base.clone(), config.proxy_answer_limit)
                    .map_err(|e| StartError::Proxy(e.to_string()))?,
            ),
            None => None,
        };
        let state = Arc::new(AppState::new(Parts {
            store,
            oauth: OAuth::new(&config.oauth, config.seed, engine.doc.scopes.clone()),
            doc: engine.doc.clone(),
            tokens: config.effective_tokens(),
            admin_token: config.admin_token.clone(),
            faults: FaultInjector::new(config.faults.clone(), config.seed),
            dispatcher,
            limits: config.limits.clone(),
            strict_fields: config.strict_fields,
            seed: config.seed,
            first_seed,
            base_url: base_url.clone(),
            proxy,
        }));
        let app = router(state.clone(), engine.clone());
        let header_timeout = config.limits.header_read_timeout;
        let task = tokio::spawn(serve(listener, app, shutdown_rx, header_timeout));
        Ok(MockServer {
            addr,
            base_url,
            state,
            engine,
            shutdown,
            task: Some(task),
        })
    }

    /// `http://127.0.0.1:PORT/admin/v2`, the base URL to give a client.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The socket address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The admin URL of the fault configuration (`GET`/`PUT`/`DELETE`), outside `/admin/v2`.
    pub fn faults_url(&self) -> String {
        format!("http://{}/__admin/faults", self.addr)
    }

    /// `http://127.0.0.1:PORT/oauth2/token`, the OAuth token endpoint (outside `/admin/v2`);
    /// see [`MockConfig::oauth_client`].
    pub fn token_url(&self) -> String {
        format!("http://{}{TOKEN_PATH}", self.addr)
    }

    /// `http://127.0.0.1:PORT/oauth2/auth`, the OAuth authorize endpoint: it approves at once
    /// (see [`MockConfig::oauth_client`]).
    pub fn authorize_url(&self) -> String {
        format!("http://{}{AUTHORIZE_PATH}", self.addr)
    }

    /// How many token requests were answered `invalid_grant` (a spent, revoked or unknown
    /// refresh token or code). Also `rejected` of `GET /__admin/oauth`.
    pub fn token_rejections(&self) -> u64 {
        self.state.oauth.rejected()
    }

    /// Per `operationId` (every operation of the document), the requests answered and the 429s
    /// among them. Also `GET /__admin/requests`.
    pub fn request_counts(&self) -> std::collections::BTreeMap<String, RequestCounts> {
        self.state.request_counts()
    }

    /// How many refresh requests (`grant_type=refresh_token`) the token endpoint received,
    /// whatever their outcome.
    pub fn token_refreshes(&self) -> u64 {
        self.state.oauth.refreshes()
    }

    /// Expires every OAuth access token issued or configured so far, as the service does with a
    /// token it rejects mid-life: the API answers them 401 `The access token is invalid`. Refresh
    /// tokens stay valid, so a client can refresh. Returns how many tokens were expired. (Also
    /// `POST /__admin/oauth/expire-access-tokens`.)
    pub fn expire_access_tokens(&self) -> usize {
        self.state.oauth.expire_access_tokens()
    }

    /// Starts an installation from the app store, as a merchant clicking "install" there: the
    /// service sends the merchant's browser straight to the app's callback `redirect_uri` (a
    /// loopback URL here) with a single-use `code` and a `state` of the service's own (the app
    /// never ran the authorize step). Returns that callback URL. The code is exchanged at
    /// [`MockServer::token_url`] as any other (`grant_type=authorization_code`, the same
    /// `redirect_uri`, no PKCE), once: presented again it is `invalid_grant`. The tokens grant
    /// every scope with `offline_access`, and the user information of the access token
    /// (`GET /oauth2/user/info`) names `merchant` as its store. Fails without an OAuth client
    /// ([`MockConfig::oauth_client`]) or with a `redirect_uri` that is not a loopback URL. (Also
    /// `POST /__admin/oauth/install` `{"redirect_uri": ..., "merchant": ...}`.)
    pub fn install_from_app_store(
        &self,
        redirect_uri: &str,
        merchant: i64,
    ) -> Result<String, String> {
        self.state
            .oauth
            .install_from_app_store(redirect_uri, merchant)
    }

    /// How many requests reached the operation `operation_id` (its `operationId` in the
    /// document), whatever their outcome: refused ones (401, injected faults) count too. Tests
    /// use it to see how many times a client sent a call. An unknown id has none.
    pub fn requests_received(&self, operation_id: &str) -> u64 {
        self.engine
            .index_of(operation_id)
            .and_then(|index| self.state.requests.get(index))
            .map_or(0, |counter| {
                counter.load(std::sync::atomic::Ordering::Relaxed)
            })
    }

    /// The last requests the operations received (at most [`crate::JOURNAL_CAPACITY`], oldest
    /// first), with their headers: what a client put on the wire. The `Authorization` value is
    /// `[redacted]`.
    pub fn journal(&self) -> Vec<crate::JournalEntry> {
        self.state.journal.entries()
    }

    /// Forgets the requests of the journal (between the phases of a test).
    pub fn clear_journal(&self) {
        self.state.journal.clear();
    }

    /// A request body for the operation `operation_id` that its schema accepts, generated from the
    /// document (required fields, with ids of records that exist where a field names one), or
    /// `None` for an operation without a JSON body. Tests and tools use it to call any operation.
    pub fn sample_body(&self, operation_id: &str) -> Option<Value> {
        let index = self.engine.index_of(operation_id)?;
        let store = self.state.read();
        self.engine.sample_body(&store, index, self.state.seed)
    }

    /// What the mock's check of the JSON body of operation `operation_id` finds wrong with `body`,
    /// by field (empty when the body is valid): the check a request gets, read as the service
    /// reads it (numeric strings, `0`/`1` booleans), without looking up the records it names.
    /// The messages are the English ones (`Accept-Language: en`). `None` for an unknown
    /// operation.
    pub fn body_errors(
        &self,
        operation_id: &str,
        body: &Value,
    ) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
        let index = self.engine.index_of(operation_id)?;
        self.engine.body_errors(&self.state, index, body)
    }

    /// The tokens it accepts, with their scopes.
    pub fn tokens(&self) -> &[MockToken] {
        &self.state.tokens
    }

    /// The merchant id of webhook envelopes.
    pub fn merchant_id(&self) -> i64 {
        self.state.read().merchant_id
    }

    /// Ids of the seeded shipping rules (the document has no list operation for them).
    pub fn shipping_rule_ids(&self) -> Vec<i64> {
        self.state
            .read()
            .records(crate::seed::tables::keys::SHIPPING_RULES)
            .iter()
            .filter_map(|r| r.get("id").and_then(Value::as_i64))
            .collect()
    }

    /// The drift check's report so far, per operation (empty unless the mock is a proxy,
    /// [`MockConfig::proxy`]). Also `GET /__admin/drift`.
    pub fn drift(&self) -> std::collections::BTreeMap<String, crate::OperationDrift> {
        self.state
            .proxy
            .as_ref()
            .map(crate::drift::Proxy::report)
            .unwrap_or_default()
    }

    /// The drift check's counts so far, as the client's drift count reports them
    /// (`StoreAdmin::drift`): a report that merges with the clients' (`DriftReport::merge`).
    pub fn drift_report(&self) -> store_admin_client::drift::DriftReport {
        self.state
            .proxy
            .as_ref()
            .map(crate::drift::Proxy::counts)
            .unwrap_or_default()
    }

    /// The faults in force.
    pub fn faults(&self) -> FaultConfig {
        self.state.faults.config()
    }

    /// Replaces the faults in force (counters of `times` start again).
    pub fn set_faults(&self, faults: FaultConfig) -> Result<(), FaultConfigError> {
        self.state.faults.set(faults)
    }

    /// Every webhook delivery attempt so far, in the order they completed.
    pub fn deliveries(&self) -> Vec<DeliveryAttempt> {
        self.state.dispatcher.attempts()
    }

    /// Waits until `done` holds for the delivery log, or `timeout` passes; returns the log.
    pub async fn wait_for_deliveries(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&[DeliveryAttempt]) -> bool,
    ) -> Vec<DeliveryAttempt> {
        let mut changes = self.state.dispatcher.subscribe();
        let wait = async {
            loop {
                let attempts = self.state.dispatcher.attempts();
                if done(&attempts) {
                    return attempts;
                }
                if changes.changed().await.is_err() {
                    return attempts;
                }
            }
        };
        match tokio::time::timeout(timeout, wait).await {
            Ok(attempts) => attempts,
            Err(_) => self.state.dispatcher.attempts(),
        }
    }

    /// Emits `event` with `data` to the subscribed webhooks, as if it happened in the store.
    pub fn emit_event(&self, event: &str, data: Value) {
        self.state.emit(event, &data);
    }

    /// What the store holds now, to start another mock where this one is
    /// ([`MockConfig::restore`]).
    pub fn snapshot(&self) -> crate::StoreSnapshot {
        crate::StoreSnapshot::of(&self.state.read(), self.state.first_seed)
    }

    /// How many changes the store has had since the server started (0 when nothing was
    /// written): whether a [`MockServer::snapshot`] is worth keeping.
    pub fn store_changes(&self) -> u64 {
        self.state.generation()
    }

    /// Stops the server and waits for the accept loop to end.
    pub async fn shutdown(mut self) {
        self.shutdown.send_replace(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}

/// Serves connections until shutdown. A connection must send the first byte of a request within
/// `header_timeout` of opening, and its whole request head within `header_timeout` (hyper's
/// header read timeout), or it is closed: slow or idle clients cannot hold connections open.
async fn serve(
    listener: TcpListener,
    app: axum::Router,
    mut shutdown: watch::Receiver<bool>,
    header_timeout: Duration,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.changed() => break,
        };
        let Ok((stream, _peer)) = accepted else {
            // Out of file descriptors and the like: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let kill = Arc::new(Notify::new());
        let handle = ConnectionKill(kill.clone());
        let service =
            app.clone()
                .map_request(move |mut request: Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(handle.clone());
                    request
                });
        let builder = builder.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            // The first byte must come in time: hyper's own timeout starts once it reads.
            let mut first = [0u8; 1];
            match tokio::time::timeout(header_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return,
            }
            let connection = builder.serve_connection_with_upgrades(
                TokioIo::new(stream),
                TowerToHyperService::new(service),
            );
            let connection = watcher.watch(connection.into_owned());
            tokio::select! {
                _ = connection => {}
                () = kill.notified() => {}
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
}
