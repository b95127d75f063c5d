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

use anyhow::{Context, Result, bail};
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser};
use secrecy::ExposeSecret;
use store_admin_mock::{
    ChanceFault, ErrorFault, FaultConfig, LatencyFault, Limits, MockConfig, MockServer,
    RateLimitFault, SlowBodyFault,
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
        GET/PUT/DELETE /__admin/faults          the faults in force (JSON)\n  \
        GET  /__admin/deliveries                webhook delivery attempts\n  \
        POST /__admin/events/{event}            emit an event to the subscribed webhooks\n  \
        GET  /__admin/oauth                     {\"refreshes\", \"rejected\" (invalid_grant answers),\n                                          \
        \"authorizations\", \"code_exchanges\"}\n  \
        POST /__admin/oauth/expire-access-tokens  expire every access token issued so far\n  \
        GET  /__admin/requests                  per operationId, the requests answered and the\n                                          \
        429s among them: {\"list_orders\": {\"total\": 12, \"429\": 0}, ...}"
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
    /// Added latency on every request, in milliseconds.
    #[arg(long, value_name = "MS")]
    latency_ms: Option<u64>,
    /// Enable the per-token rate limit with this many requests per minute (the service's Plus plan: 120).
    #[arg(long, value_name = "PER_MINUTE")]
    rate_limit: Option<u32>,
    /// Share of requests answered with a 500, 502 or 503 (0.0 to 1.0).
    #[arg(long, value_name = "RATE")]
    error_rate: Option<f64>,
    /// Share of requests whose connection is dropped without an answer.
    #[arg(long, value_name = "RATE")]
    drop_rate: Option<f64>,
    /// Share of responses whose body is cut halfway.
    #[arg(long, value_name = "RATE")]
    truncate_rate: Option<f64>,
    /// Send bodies in chunks of this many bytes, with --slow-body-delay-ms between them.
    #[arg(long, value_name = "BYTES")]
    slow_body_chunk: Option<usize>,
    /// Pause between slow body chunks.
    #[arg(long, value_name = "MS", default_value_t = 50)]
    slow_body_delay_ms: u64,
    /// Limit the faults above to these operation ids (comma-separated).
    #[arg(long, value_name = "OP,...", value_delimiter = ',')]
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
    /// Refuse (422) a JSON body field the operation's schema does not declare; by default it is
    /// ignored, as the service ignores it.
    #[arg(long)]
    strict_fields: bool,
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
        return serde_json::from_str(json).context("--faults is not a valid fault configuration");
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
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches)?;
    let mut config = MockConfig::new()
        .limits(Limits {
            body_bytes: cli.body_limit,
            collection_records: cli.collection_limit,
            header_read_timeout: std::time::Duration::from_secs(cli.header_timeout.max(1)),
            ..Limits::default()
        })
        .seed(cli.seed)
        .products(cli.products)
        .port(cli.port)
        .faults(faults(&cli)?);
    for (token, scopes) in tokens(&matches, &cli)? {
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
    if let (Some(id), Some(secret)) = (&cli.oauth_client_id, &cli.oauth_client_secret) {
        config = config.oauth_client(id, secret);
    }
    for refresh in &cli.oauth_refresh_tokens {
        config = config.oauth_refresh_token_all_scopes(refresh);
    }
    let server = MockServer::start(config)
        .await
        .context("starting the mock store")?;
    println!("store-admin-mock listening on {}", server.base_url());
    for token in server.tokens() {
        let shown = if token.grants_every_scope() {
            "every scope".to_owned()
        } else {
            token.scopes().join(",")
        };
        println!(
            "  token {}  scopes: {shown}",
            token.secret().expose_secret()
        );
    }
    if let Some(id) = &cli.oauth_client_id {
        println!(
            "  oauth: authorize endpoint {}, token endpoint {} for client {id}, {} refresh token(s)",
            server.authorize_url(),
            server.token_url(),
            cli.oauth_refresh_tokens.len()
        );
    }
    println!(
        "  faults: {} (change at {})",
        serde_json::to_string(&server.faults())?,
        server.faults_url()
    );
    println!("Press Ctrl-C to stop.");
    tokio::signal::ctrl_c()
        .await
        .context("waiting for Ctrl-C")?;
    server.shutdown().await;
    Ok(())
}
