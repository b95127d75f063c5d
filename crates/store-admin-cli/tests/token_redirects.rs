//! Secrets go to the origin they were meant for: `auth login`, `auth import` and an ordinary
//! command's refresh never send a token request on to where the token endpoint redirects (307,
//! 308, 302, to another port, host name or path); a redirect during a call is followed only under
//! the base URL, and a refused one is not retried and exits 1. Real processes, real HTTP on
//! 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tempfile::TempDir;
use url::Url;

use crate::common::{store_admin, store_admin_process};

const CLIENT_ID: &str = "redirect-cli-app";
const CLIENT_SECRET: &str = "redirect-cli-client-secret";
const REFRESH: &str = "redirect-cli-refresh-token";
const SAMPLE: &str = r#"{"access_token":"redirect-cli-access","token_type":"bearer","expires_in":3600,"refresh_token":"redirect-cli-new-refresh","scope":"offline_access"}"#;

/// One request a server received.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    body: String,
}

/// A host: `/oauth2/token` answers `redirect` (when set); `/oauth2/auth` approves at once,
/// sending the browser back with a code; every other path records and answers a token
/// response (a followed redirect would succeed).
#[derive(Clone, Default)]
struct Host {
    seen: Arc<Mutex<Vec<Seen>>>,
    redirect: Arc<Mutex<Option<(StatusCode, String)>>>,
}

impl Host {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn token_requests(&self) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.path == "/oauth2/token")
            .count()
    }

    fn elsewhere(&self) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.path != "/oauth2/token" && s.path != "/oauth2/auth")
            .collect()
    }
}

async fn handle(
    State(host): State<Host>,
    method: Method,
    uri: Uri,
    _headers: HeaderMap,
    body: Bytes,
) -> Response {
    host.seen.lock().unwrap().push(Seen {
        method,
        path: uri.path().to_owned(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    if uri.path() == "/oauth2/auth" {
        let url = Url::parse(&format!("http://x{uri}")).unwrap();
        let param = |name: &str| {
            url.query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        let back = format!(
            "{}?code=redirect-cli-code&state={}",
            param("redirect_uri"),
            param("state")
        );
        return (StatusCode::FOUND, [(header::LOCATION, back)]).into_response();
    }
    let redirect = host.redirect.lock().unwrap().clone();
    match (uri.path(), redirect) {
        ("/oauth2/token", Some((status, location))) => {
            (status, [(header::LOCATION, location)]).into_response()
        }
        _ => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            SAMPLE,
        )
            .into_response(),
    }
}

async fn host() -> (String, Host) {
    let host = Host::default();
    let app = Router::new().fallback(handle).with_state(host.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), host)
}

/// The redirects a token endpoint at `base` answers, to `other` (another port), to another host
/// name for itself, and to another path.
fn redirects(base: &str, other: &str) -> Vec<(StatusCode, String)> {
    let port = Url::parse(base).unwrap().port().unwrap();
    vec![
        (StatusCode::TEMPORARY_REDIRECT, format!("{other}/stolen")),
        (StatusCode::PERMANENT_REDIRECT, format!("{other}/stolen")),
        (StatusCode::FOUND, format!("{other}/stolen")),
        (
            StatusCode::TEMPORARY_REDIRECT,
            format!("http://localhost:{port}/oauth2/token"),
        ),
        (StatusCode::TEMPORARY_REDIRECT, "/oauth2/elsewhere".into()),
    ]
}

/// The origin and path the message must name.
fn target_of(base: &str, location: &str) -> String {
    let url = Url::parse(base).unwrap().join(location).unwrap();
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

fn assert_no_secret(text: &str) {
    for secret in [CLIENT_SECRET, REFRESH, "redirect-cli-code"] {
        assert!(!text.contains(secret), "a secret shows: {text}");
    }
}

/// Nothing reached the redirect's target: one token request, no other path, no other host.
fn assert_nothing_followed(case: &str, endpoint: &Host, other: &Host) {
    assert_eq!(
        endpoint.token_requests(),
        1,
        "{case}: {:?}",
        endpoint.seen()
    );
    assert!(
        endpoint.elsewhere().is_empty(),
        "{case}: {:?}",
        endpoint.seen()
    );
    assert!(other.seen().is_empty(), "{case}: {:?}", other.seen());
    let first = endpoint
        .seen()
        .into_iter()
        .find(|s| s.path == "/oauth2/token")
        .unwrap();
    assert_eq!(first.method, Method::POST);
    assert!(
        first.body.contains(CLIENT_SECRET),
        "{case}: sent to the token URL only"
    );
}

fn reset(endpoint: &Host, other: &Host, redirect: (StatusCode, String)) {
    endpoint.seen.lock().unwrap().clear();
    other.seen.lock().unwrap().clear();
    *endpoint.redirect.lock().unwrap() = Some(redirect);
}

/// `store-admin` with this test's state directory, the app's client, the token URL of `base`.
fn command(state: &TempDir, base: &str, args: &[&str]) -> assert_cmd::Command {
    let mut command = store_admin();
    command
        .env("XDG_STATE_HOME", state.path())
        .env("STORE_ADMIN_CLIENT_SECRET", CLIENT_SECRET)
        .args(["--base-url", &format!("{base}/admin/v2")])
        .args(["--token-url", &format!("{base}/oauth2/token")])
        .args(["--client-id", CLIENT_ID])
        .args(args);
    command
}

async fn output(command: assert_cmd::Command) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let mut command = command;
        let output = command.output().unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_import_never_follows_the_token_endpoint_s_redirect() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    for (status, location) in redirects(&base, &other_base) {
        let case = format!("{status} to {location}");
        reset(&endpoint, &other, (status, location.clone()));
        let state = tempfile::tempdir().unwrap();
        let mut import = command(&state, &base, &["auth", "import", "--refresh-token", "-"]);
        import.write_stdin(format!("{REFRESH}\n"));
        let (code, out, err) = output(import).await;
        assert_eq!(code, 1, "{case}: {err}");
        assert!(err.contains("redirected the request"), "{case}: {err}");
        assert!(err.contains(&target_of(&base, &location)), "{case}: {err}");
        assert_no_secret(&out);
        assert_no_secret(&err);
        assert_nothing_followed(&case, &endpoint, &other);
        // Nothing was saved.
        let status = command(&state, &base, &["auth", "status"]);
        assert_eq!(output(status).await.0, 1, "{case}: not logged in");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_login_never_follows_the_token_endpoint_s_redirect() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    for (status, location) in redirects(&base, &other_base) {
        let case = format!("{status} to {location}");
        reset(&endpoint, &other, (status, location.clone()));
        let state = tempfile::tempdir().unwrap();
        let mut login = store_admin_process();
        login
            .env("XDG_STATE_HOME", state.path())
            .env("STORE_ADMIN_CLIENT_SECRET", CLIENT_SECRET)
            .args(["--token-url", &format!("{base}/oauth2/token")])
            .args(["--client-id", CLIENT_ID, "auth", "login", "--no-browser"])
            .args(["--wait", "60"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (mut child, mut stderr, mut all, url) = tokio::task::spawn_blocking(move || {
            let mut child = login.spawn().unwrap();
            let mut stderr = BufReader::new(child.stderr.take().unwrap());
            let mut all = String::new();
            let mut line = String::new();
            // Up to the authorize URL, which the "browser" opens (the host approves at once).
            let url = loop {
                line.clear();
                assert!(stderr.read_line(&mut line).unwrap() > 0, "{all}");
                all.push_str(&line);
                if line.trim().starts_with("http") && line.contains("/oauth2/auth?") {
                    break line.trim().to_owned();
                }
            };
            (child, stderr, all, url)
        })
        .await
        .unwrap();
        let page = reqwest::get(url).await.expect("the loopback page");
        assert!(page.status().is_success(), "{}", page.status());
        let (code, err) = tokio::task::spawn_blocking(move || {
            std::io::Read::read_to_string(&mut stderr, &mut all).unwrap();
            let status = child.wait().unwrap();
            (status.code().unwrap_or(-1), all)
        })
        .await
        .unwrap();
        assert_eq!(code, 1, "{case}: {err}");
        assert!(err.contains("redirected the request"), "{case}: {err}");
        assert!(err.contains(&target_of(&base, &location)), "{case}: {err}");
        assert_no_secret(&err);
        assert_nothing_followed(&case, &endpoint, &other);
        let token = endpoint
            .seen()
            .into_iter()
            .find(|s| s.path == "/oauth2/token")
            .unwrap();
        assert!(token.body.contains("code_verifier="), "{case}: {token:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ordinary_command_s_refresh_never_follows_the_token_endpoint_s_redirect() {
    let (base, endpoint) = host().await;
    let (other_base, other) = host().await;
    for (status, location) in redirects(&base, &other_base) {
        let case = format!("{status} to {location}");
        let state = tempfile::tempdir().unwrap();
        // Saved as it is (no client given): the first command exchanges it.
        let mut import = store_admin();
        import
            .env("XDG_STATE_HOME", state.path())
            .env_remove("STORE_ADMIN_CLIENT_SECRET")
            .args(["--token-url", &format!("{base}/oauth2/token")])
            .args(["auth", "import", "--refresh-token", "-"])
            .write_stdin(format!("{REFRESH}\n"));
        let (code, _, err) = output(import).await;
        assert_eq!(code, 0, "{err}");
        reset(&endpoint, &other, (status, location.clone()));
        let (code, out, err) = output(command(
            &state,
            &base,
            &["orders", "statuses", "--retries", "3"],
        ))
        .await;
        assert_eq!(code, 1, "{case}: {err}");
        assert!(err.contains("redirected the request"), "{case}: {err}");
        assert!(err.contains(&target_of(&base, &location)), "{case}: {err}");
        assert_no_secret(&out);
        assert_no_secret(&err);
        assert_nothing_followed(&case, &endpoint, &other);
        assert!(
            endpoint
                .seen()
                .iter()
                .all(|s| !s.path.starts_with("/admin")),
            "{case}: no call without a token"
        );
    }
}

/// A service whose `orders/statuses` answers 302 to `location` (`{port}`: the service's own
/// port), and the paths it was asked.
async fn redirecting_service(location: String) -> (String, Arc<Mutex<Vec<String>>>) {
    let paths: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let port = Url::parse(&base).unwrap().port().unwrap().to_string();
    let location = location.replace("{base}", &base).replace("{port}", &port);
    let app = Router::new().fallback({
        let paths = Arc::clone(&paths);
        move |uri: Uri| {
            let paths = Arc::clone(&paths);
            let location = location.clone();
            async move {
                paths.lock().unwrap().push(uri.path().to_owned());
                if uri.path() == "/admin/v2/orders/statuses" {
                    return (StatusCode::FOUND, [(header::LOCATION, location)]).into_response();
                }
                (
                    StatusCode::OK,
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"status":200,"success":true,"data":[]}"#,
                )
                    .into_response()
            }
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, paths)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_outside_the_base_url_is_refused_once_and_exits_1() {
    let (other_base, other) = host().await;
    let cases = [
        ("/__admin/x".to_owned(), "redirected outside the base URL"),
        (
            "/admin/v2/%2e%2e/%2e%2e/__admin/x".to_owned(),
            "redirected outside the base URL",
        ),
        (
            format!("{other_base}/admin/v2/orders/statuses"),
            "redirected to another host",
        ),
        (
            "http://localhost:{port}/admin/v2/orders/statuses".to_owned(),
            "redirected to another host",
        ),
    ];
    for (location, said) in cases {
        let (base, paths) = redirecting_service(location.clone()).await;
        let mut call = store_admin();
        call.env("STORE_ADMIN_TOKEN", "redirect-cli-access-token")
            .args([
                "--base-url",
                &format!("{base}/admin/v2"),
                "--retries",
                "4",
                "orders",
                "statuses",
            ]);
        let (code, out, err) = output(call).await;
        assert_eq!(code, 1, "{location}: {err}");
        assert!(err.contains(said), "{location}: {err}");
        assert!(!err.contains("redirect-cli-access-token"), "{err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(
            *paths.lock().unwrap(),
            ["/admin/v2/orders/statuses"],
            "{location}: one attempt, not retried, nothing sent to the target"
        );
        assert!(other.seen().is_empty(), "{location}: {:?}", other.seen());
    }
}
