//! `store-admin-mock`: runs the mock store until Ctrl-C.
//!
//! ```text
//! cargo run -p store-admin-mock -- --port 4010 --seed 7 --products 1000 \
//!     --token reader --scopes products.read,orders.read --token admin
//! ```
//! A `--token` without `--scopes` accepts every scope. `--oauth-client-id ID --oauth-client-secret S
//! [--oauth-refresh-token R]` enables the OAuth endpoints: `GET /oauth2/auth` (approves at once)
//! and `POST /oauth2/token`. `--document PATH` serves another OpenAPI document; `--admin-token T`
//! guards `/__admin/*` (see `--help` for the admin routes).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser};
use secrecy::ExposeSecret;
use store_admin_mock::{
    ChanceFault, DeliveryConfig, ErrorFault, FaultConfig, LatencyFault, Limits, MockConfig,
    MockServer, RateLimitFault, SlowBodyFault,
};

/// A stateful mock of the store administration API (/admin/v2), with fault injection.
#[derive(Debug, Parser)]
#[command(
    name = "store-admin-mock",
    version,
    after_help = "OAuth (with --oauth-client-id and --oauth-client-secret):\n  \
        GET  /oauth2/auth    the authorize endpoint: approves at once, redirecting to the loopback\n                       \
        redirect_uri with a single-use code and the given state; sends app.store.authorize\n                       \
        (the installation's tokens) to webhooks subscribed to it\n  \
        POST /oauth2/token   the authorization_code and refresh_token grants (single-use tokens)\n\n\
        Admin routes (they need Authorization: Bearer T with --admin-token T):\n  \
        GET/PUT/DELETE /__admin/faults          the faults in force (JSON: the keys of the fault\n                                          \
        flags, e.g. {\"errors\":{\"rate\":0.1}} is --errors-rate 0.1);\n                                          \
        a wrong key or value changes nothing (422 naming it)\n  \
        GET  /__admin/deliveries                webhook delivery attempts (the tokens of\n                                          \
        app.store.authorize bodies redacted; ?reveal=tokens shows them)\n  \
        POST /__admin/events/{event}            emit a known event to the subscribed webhooks\n  \
        GET  /__admin/oauth                     {\"refreshes\", \"rejected\" (invalid_grant answers),\n                                          \
        \"authorizations\", \"code_exchanges\"}\n  \
        POST /__admin/oauth/expire-access-tokens  expire every access token issued so far\n  \
        GET  /__admin/requests                  per operationId, the requests answered and the\n                                          \
        429s among them: {\"list_orders\": {\"total\": 12, \"429\": 0}, ...}\n  \
        DELETE /__admin/requests                set those counts back to zero\n  \
        GET  /__admin/journal                   the last 256 requests of the operations, with their\n                                          \
        headers (Authorization redacted); DELETE forgets them\n\n\
        Error messages are in Arabic, or in English with Accept-Language: en, as the service's.\n\n\
        Exit codes: 0 stopped with Ctrl-C, 1 the server could not start (a port in use), 2 usage."
)]
struct Cli {
    /// Port to listen on, on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 4010)]
    port: u16,
    /// Seed of the generated data and of fault decisions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of products to generate.
    #[arg(long, default_value_t = 1000)]
    products: usize,
    /// A bearer token to accept (repeatable); without a following --scopes it has every scope.
    #[arg(long = "token", value_name = "TOKEN")]
    tokens: Vec<String>,
    /// Comma-separated scopes of the --token just before it.
    #[arg(long = "scopes", value_name = "S,...")]
    scopes: Vec<String>,
    /// Added latency on every request, in milliseconds (faults JSON: latency.millis).
    #[arg(long = "latency-millis", alias = "latency-ms", value_name = "MS")]
    latency_ms: Option<u64>,
    /// Enable the per-token rate limit with this many requests per minute (the service's Plus plan:
    /// 120; faults JSON: rate_limit.per_minute).
    #[arg(
        long = "rate-limit-per-minute",
        alias = "rate-limit",
        value_name = "PER_MINUTE"
    )]
    rate_limit: Option<u32>,
    /// Share of requests answered with a 500, 502 or 503, 0.0 to 1.0 (faults JSON: errors.rate).
    #[arg(long = "errors-rate", alias = "error-rate", value_name = "RATE")]
    error_rate: Option<f64>,
    /// Share of requests whose connection is dropped without an answer (faults JSON:
    /// drop_connection.rate).
    #[arg(
        long = "drop-connection-rate",
        alias = "drop-rate",
        value_name = "RATE"
    )]
    drop_rate: Option<f64>,
    /// Share of responses whose body is cut halfway (faults JSON: truncate_body.rate).
    #[arg(
        long = "truncate-body-rate",
        alias = "truncate-rate",
        value_name = "RATE"
    )]
    truncate_rate: Option<f64>,
    /// Send bodies in chunks of this many bytes, with --slow-body-delay-millis between them
    /// (faults JSON: slow_body.chunk_bytes).
    #[arg(
        long = "slow-body-chunk-bytes",
        alias = "slow-body-chunk",
        value_name = "BYTES"
    )]
    slow_body_chunk: Option<usize>,
    /// Pause between slow body chunks (faults JSON: slow_body.delay_millis).
    #[arg(
        long = "slow-body-delay-millis",
        alias = "slow-body-delay-ms",
        value_name = "MS",
        default_value_t = 50
    )]
    slow_body_delay_ms: u64,
    /// Limit the faults above to these operation ids, comma-separated (faults JSON: each
    /// fault's operations).
    #[arg(
        long = "operations",
        alias = "fault-operations",
        value_name = "OP,...",
        value_delimiter = ','
    )]
    fault_operations: Vec<String>,
    /// A whole fault configuration as JSON (the body of PUT /__admin/faults); overrides the flags.
    #[arg(long, value_name = "JSON")]
    faults: Option<String>,
    /// Client id of the app the OAuth token endpoint (POST /oauth2/token) accepts.
    #[arg(long, value_name = "ID", requires = "oauth_client_secret")]
    oauth_client_id: Option<String>,
    /// Client secret of that app.
    #[arg(long, value_name = "SECRET", requires = "oauth_client_id")]
    oauth_client_secret: Option<String>,
    /// A refresh token the token endpoint accepts once, granting every scope (repeatable).
    #[arg(long = "oauth-refresh-token", value_name = "TOKEN")]
    oauth_refresh_tokens: Vec<String>,
    /// Serve this OpenAPI document (YAML or JSON) instead of the embedded openapi/store-admin.yaml.
    #[arg(long, value_name = "PATH")]
    document: Option<std::path::PathBuf>,
    /// Require `Authorization: Bearer TOKEN` on the /__admin/* routes (faults, deliveries, events).
    #[arg(long, value_name = "TOKEN")]
    admin_token: Option<String>,
    /// Largest request body, in bytes (a larger one is a 413).
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    body_limit: usize,
    /// Most records one collection holds (creating more is a 422).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    collection_limit: usize,
    /// Seconds a connection has to send its request headers.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    header_timeout: u64,
    /// Seconds a request has to send its whole body (one that trickles is answered 408 and its
    /// connection closed).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    body_timeout: u64,
    /// Refuse (422) a JSON body field the operation's schema does not declare; by default it is
    /// ignored, as the service ignores it.
    #[arg(long)]
    strict_fields: bool,
    /// Seconds a background job runs: an export's file is then listed in the export logs, an
    /// import's rows (its file read as CSV) are then in the store.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    job_seconds: f64,
    /// Attempts per webhook delivery, the first one included (the service: 1 and 3 resends).
    #[arg(long, value_name = "N", default_value_t = 4)]
    webhook_attempts: u32,
    /// Seconds between two attempts of a webhook delivery (the service waits about 300).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    webhook_retry_seconds: f64,
    /// Seconds a receiver has to answer a delivery before it is retried (the service: about 30).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    webhook_timeout_seconds: f64,
    /// The drift check: forward every call below /admin/v2 to this real store's base URL (with
    /// the caller's own token, to that origin only) instead of answering it, and check each
    /// answer against the document. The report per operation is GET /__admin/drift, and is
    /// printed as JSON when the mock stops. Needs --admin-token (the report describes a real
    /// store's answers).
    ///
    /// Read as text and checked by `configure` (not by clap, whose refusal quotes the value: a
    /// URL's userinfo may hold a password).
    #[arg(long, value_name = "BASE_URL", requires = "admin_token")]
    proxy: Option<String>,
    /// With --proxy: the largest answer of the store read, in bytes (read in pieces, refused with
    /// 502 past it). The client's default, 64 MiB.
    #[arg(long, value_name = "BYTES", default_value_t = store_admin_mock::DEFAULT_PROXY_ANSWER_BYTES,
          value_parser = clap::value_parser!(u64).range(1024..))]
    proxy_max_response_size: u64,
}

/// `--proxy`: an http(s) base URL. The refusals never quote the text (its userinfo may hold a
/// password; `url`'s parse errors do not quote their input either).
fn parse_proxy(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("give an http(s) base URL, such as https://api.example/admin/v2".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the base URL holds no credentials: the caller's token is forwarded".into());
    }
    Ok(url)
}

/// Pairs each --token with the --scopes that follows it (before the next --token).
fn tokens(matches: &ArgMatches, cli: &Cli) -> Result<Vec<(String, Option<Vec<String>>)>> {
    let token_at: Vec<usize> = matches
        .indices_of("tokens")
        .map(Iterator::collect)
        .unwrap_or_default();
    let scopes_at: Vec<usize> = matches
        .indices_of("scopes")
        .map(Iterator::collect)
        .unwrap_or_default();
    let mut out: Vec<(String, Option<Vec<String>>)> =
        cli.tokens.iter().map(|t| (t.clone(), None)).collect();
    for (scopes, at) in cli.scopes.iter().zip(scopes_at) {
        let Some(owner) = token_at.iter().rposition(|t| *t < at) else {
            bail!("--scopes {scopes} must follow a --token");
        };
        let list: Vec<String> = scopes
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        match out.get_mut(owner) {
            Some((_, slot @ None)) => *slot = Some(list),
            _ => bail!("--scopes given twice for one --token"),
        }
    }
    Ok(out)
}

fn faults(cli: &Cli) -> Result<FaultConfig> {
    if let Some(json) = &cli.faults {
        let faults = store_admin_mock::FaultConfig::from_json(json.as_bytes())
            .map_err(|e| anyhow::anyhow!("--faults: {e}"))?;
        return Ok(faults);
    }
    let operations = cli.fault_operations.clone();
    Ok(FaultConfig {
        latency: cli.latency_ms.map(|millis| LatencyFault {
            millis,
            operations: operations.clone(),
        }),
        rate_limit: cli.rate_limit.map(|per_minute| RateLimitFault {
            per_minute,
            operations: operations.clone(),
        }),
        errors: cli.error_rate.map(|rate| ErrorFault {
            rate,
            statuses: vec![500, 502, 503],
            times: None,
            operations: operations.clone(),
        }),
        drop_connection: cli.drop_rate.map(|rate| ChanceFault {
            rate,
            times: None,
            operations: operations.clone(),
        }),
        truncate_body: cli.truncate_rate.map(|rate| ChanceFault {
            rate,
            times: None,
            operations: operations.clone(),
        }),
        slow_body: cli.slow_body_chunk.map(|chunk_bytes| SlowBodyFault {
            chunk_bytes,
            delay_millis: cli.slow_body_delay_ms,
            rate: 1.0,
            operations: operations.clone(),
        }),
        // The list answers that lie are set through --faults (JSON) only.
        ..FaultConfig::default()
    })
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let matches = match Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(error) if !error.use_stderr() => {
            // --help and --version.
            return match error.print() {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            };
        }
        Err(error) => return usage(&first_line(&error.render().to_string())),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => return usage(&first_line(&error.render().to_string())),
    };
    let (config, refresh_tokens) = match configure(&matches, &cli) {
        Ok(configured) => configured,
        Err(error) => return usage(&format!("{error:#}")),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return failure(&format!("cannot start the async runtime: {error}")),
    };
    match runtime.block_on(run(config, &cli, refresh_tokens)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => failure(&format!("{error:#}")),
    }
}

/// The first line of a clap error, without its `error: ` prefix.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// A usage error: one line on standard error, exit 2.
fn usage(message: &str) -> ExitCode {
    eprint_line(&format!(
        "store-admin-mock: error: {message} (see store-admin-mock --help)"
    ));
    ExitCode::from(2)
}

/// A failure to run: one line on standard error, exit 1.
fn failure(message: &str) -> ExitCode {
    eprint_line(&format!("store-admin-mock: error: {message}"));
    ExitCode::FAILURE
}

fn eprint_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A duration given in seconds on the command line (0 to a day).
fn seconds(flag: &str, value: f64) -> Result<std::time::Duration> {
    if !(0.0..=86_400.0).contains(&value) {
        anyhow::bail!("{flag} must be between 0 and 86400 seconds, got {value}");
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

/// The server's configuration from the command line (usage errors are told as such).
fn configure(matches: &ArgMatches, cli: &Cli) -> Result<(MockConfig, usize)> {
    let mut config = MockConfig::new()
        .limits(Limits {
            body_bytes: cli.body_limit,
            collection_records: cli.collection_limit,
            header_read_timeout: std::time::Duration::from_secs(cli.header_timeout.max(1)),
            body_read_timeout: std::time::Duration::from_secs(cli.body_timeout.max(1)),
            background_job: seconds("--job-seconds", cli.job_seconds)?,
            ..Limits::default()
        })
        .seed(cli.seed)
        .products(cli.products)
        .port(cli.port)
        .delivery(DeliveryConfig {
            max_attempts: cli.webhook_attempts.max(1),
            retry_delay: seconds("--webhook-retry-seconds", cli.webhook_retry_seconds)?,
            timeout: seconds("--webhook-timeout-seconds", cli.webhook_timeout_seconds)?,
        });
    let faults = faults(cli)?;
    faults
        .validate()
        .map_err(|e| anyhow::anyhow!("the faults: {e}"))?;
    config = config.faults(faults);
    for (token, scopes) in tokens(matches, cli)? {
        config = match scopes {
            Some(scopes) => config.token(token, scopes),
            None => config.token_all_scopes(token),
        };
    }
    if let Some(path) = &cli.document {
        config = config.document(path);
    }
    if let Some(token) = &cli.admin_token {
        config = config.admin_token(token);
    }
    config = config.strict_fields(cli.strict_fields);
    if let Some(base) = &cli.proxy {
        let base = parse_proxy(base).map_err(|e| anyhow::anyhow!("--proxy: {e}"))?;
        config = config
            .proxy(base)
            .proxy_answer_limit(cli.proxy_max_response_size);
    }
    if let (Some(id), Some(secret)) = (&cli.oauth_client_id, &cli.oauth_client_secret) {
        config = config.oauth_client(id, secret);
    }
    for refresh in &cli.oauth_refresh_tokens {
        config = config.oauth_refresh_token_all_scopes(refresh);
    }
    Ok((config, cli.oauth_refresh_tokens.len()))
}

/// Writes a line to standard output, as `println!` does, but a closed standard output (a reader
/// that read the listening line and went away) does not end the store: `println!` panics on a
/// broken pipe, and the store would stop serving in the middle of a caller's requests.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

async fn run(config: MockConfig, cli: &Cli, refresh_tokens: usize) -> Result<()> {
    let server = MockServer::start(config)
        .await
        .context("starting the mock store")?;
    say!("store-admin-mock listening on {}", server.base_url());
    for token in server.tokens() {
        let shown = if token.grants_every_scope() {
            "every scope".to_owned()
        } else {
            token.scopes().join(",")
        };
        say!(
            "  token {}  scopes: {shown}",
            token.secret().expose_secret()
        );
    }
    if let Some(id) = &cli.oauth_client_id {
        say!(
            "  oauth: authorize endpoint {}, token endpoint {} for client {id}, {refresh_tokens} \
             refresh token(s)",
            server.authorize_url(),
            server.token_url(),
        );
    }
    say!(
        "  faults: {} (change at {})",
        serde_json::to_string(&server.faults())?,
        server.faults_url()
    );
    if let Some(base) = cli.proxy.as_deref().and_then(|base| parse_proxy(base).ok()) {
        say!("  drift check: forwarding to {base}; report at GET /__admin/drift");
    }
    say!("Press Ctrl-C to stop.");
    tokio::signal::ctrl_c()
        .await
        .context("waiting for Ctrl-C")?;
    if cli.proxy.is_some() {
        say!("{}", serde_json::to_string_pretty(&server.drift())?);
    }
    server.shutdown().await;
    Ok(())
}
