//! `store-admin auth login|status|logout|import` and the stored tokens ordinary commands use, as
//! real processes against the mock store (or the embedded sandbox) over real HTTP on 127.0.0.1.
//! `auth login` is driven as a person would: the test fetches the authorize URL the command
//! prints; the mock approves at once and redirects to the command's loopback port.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;
use store_admin_mock::{MockConfig, MockServer};
use tempfile::TempDir;
use url::Url;

use crate::common;
use crate::common::{json, store_admin, store_admin_process};

const CLIENT_ID: &str = "cli-test-app";
const CLIENT_SECRET: &str = "cli-test-client-secret-value";
const REFRESH: &str = "cli-test-installed-refresh-token";
const SCOPES: [&str; 2] = ["orders.read_write", "offline_access"];

/// A mock with the app's OAuth client and one installed refresh token.
async fn mock() -> MockServer {
    mock_with(MockConfig::new()).await
}

async fn mock_with(config: MockConfig) -> MockServer {
    MockServer::start(
        config
            .products(5)
            .oauth_client(CLIENT_ID, CLIENT_SECRET)
            .oauth_refresh_token(REFRESH, SCOPES),
    )
    .await
    .expect("mock starts")
}

/// Another program's refresh with `refresh` at the token endpoint, behind the command's back.
async fn spend_refresh_token(setup: &Setup, refresh: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(&setup.token_url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("grant_type", "refresh_token"),
                    ("refresh_token", refresh),
                    ("client_id", CLIENT_ID),
                    ("client_secret", CLIENT_SECRET),
                ])
                .finish(),
        )
        .send()
        .await
        .unwrap()
}

/// What every command of a test shares: its own state directory, the mock's URLs, the app's
/// client (the secret in the environment, never on the command line).
struct Setup {
    state: TempDir,
    base_url: String,
    token_url: String,
    admin: String,
}

impl Setup {
    fn new(server: &MockServer) -> Setup {
        Setup {
            state: tempfile::tempdir().unwrap(),
            base_url: server.base_url().to_string(),
            token_url: server.token_url(),
            admin: format!("http://{}/__admin", server.addr()),
        }
    }

    /// `store-admin` against the mock, with the app's client and this test's state directory.
    fn command(&self, args: &[&str]) -> assert_cmd::Command {
        let mut command = store_admin();
        command
            .env("XDG_STATE_HOME", self.state.path())
            .env("STORE_ADMIN_CLIENT_SECRET", CLIENT_SECRET)
            .args(["--base-url", &self.base_url, "--token-url", &self.token_url])
            .args(["--client-id", CLIENT_ID])
            .args(args);
        command
    }

    /// The same, as a plain process.
    fn process(&self, args: &[&str]) -> std::process::Command {
        let mut command = store_admin_process();
        command
            .env("XDG_STATE_HOME", self.state.path())
            .env("STORE_ADMIN_CLIENT_SECRET", CLIENT_SECRET)
            .args(["--base-url", &self.base_url, "--token-url", &self.token_url])
            .args(["--client-id", CLIENT_ID])
            .args(args);
        command
    }

    /// The token file of `store`.
    fn token_file(&self, store: &str) -> PathBuf {
        let url = Url::parse(&self.token_url).unwrap();
        self.state.path().join(format!(
            "store-admin/tokens/{}_{}/{store}.json",
            url.host_str().unwrap(),
            url.port().unwrap()
        ))
    }

    async fn admin_json(&self, path: &str) -> Value {
        reqwest::get(format!("{}/{path}", self.admin))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Runs `command` off the async runtime (the mock serves on it) and checks its exit code.
async fn run(command: assert_cmd::Command, code: i32) -> (String, String) {
    tokio::task::spawn_blocking(move || common::run(command, code))
        .await
        .unwrap()
}

/// The stored access and refresh tokens of a token file.
fn stored(path: &Path) -> (String, String) {
    let record: Value = serde_json::from_slice(&std::fs::read(path).expect("a token file"))
        .expect("the token file is JSON");
    let text = |key: &str| {
        record["tokens"][key]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (text("access_token"), text("refresh_token"))
}

/// Fails if any of `secrets` shows in `outputs`.
fn assert_no_secret(outputs: &[&str], secrets: &[&str]) {
    for output in outputs {
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            assert!(
                !output.contains(secret),
                "a secret was printed: {secret} in\n{output}"
            );
        }
    }
}

/// An `auth login` that has printed its authorize URL and waits for the redirect.
struct Login {
    child: Child,
    url: Url,
    stderr: std::thread::JoinHandle<String>,
}

impl Login {
    /// Starts `command` and reads standard error up to the authorize URL.
    async fn start(command: std::process::Command) -> Login {
        tokio::task::spawn_blocking(move || {
            let mut command = command;
            let mut child = command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("store-admin starts");
            let stderr = child.stderr.take().unwrap();
            let (found, url) = std::sync::mpsc::channel();
            let stderr = std::thread::spawn(move || {
                let mut all = String::new();
                let mut found = Some(found);
                for line in BufReader::new(stderr).lines() {
                    let line = line.unwrap();
                    if line.trim().starts_with("http")
                        && line.contains("/oauth2/auth?")
                        && let Some(found) = found.take()
                    {
                        let _ = found.send(line.trim().to_string());
                    }
                    all.push_str(&line);
                    all.push('\n');
                }
                all
            });
            let url = url
                .recv_timeout(Duration::from_secs(60))
                .expect("auth login prints the authorize URL");
            Login {
                child,
                url: Url::parse(&url).unwrap(),
                stderr,
            }
        })
        .await
        .unwrap()
    }

    /// The parameter `name` of the authorize URL.
    fn param(&self, name: &str) -> String {
        self.url
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    }

    /// Does what the merchant's browser does: opens the authorize URL and follows the redirect
    /// to the command's loopback port; returns the page the command answers.
    async fn approve(&self) -> (u16, String) {
        let response = reqwest::get(self.url.clone())
            .await
            .expect("the authorize URL and the redirect are served");
        assert!(
            response.url().as_str().starts_with("http://127.0.0.1:"),
            "{}",
            response.url()
        );
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Sends the loopback redirect with `query` directly (a forged or refused authorization).
    async fn redirect(&self, query: &str) -> (u16, String) {
        let response = reqwest::get(format!("{}?{query}", self.param("redirect_uri")))
            .await
            .expect("the loopback listener answers");
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Waits for the command; its exit code, standard output and standard error.
    async fn finish(self) -> (i32, String, String) {
        tokio::task::spawn_blocking(move || {
            let output = self.child.wait_with_output().unwrap();
            let stderr = self.stderr.join().unwrap();
            (
                output.status.code().unwrap_or(-1),
                String::from_utf8(output.stdout).unwrap(),
                stderr,
            )
        })
        .await
        .unwrap()
    }
}

#[tokio::test]
async fn login_saves_the_store_s_tokens_which_status_shows_and_commands_use_and_refresh() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let login = Login::start(setup.process(&[
        "--store",
        "shop1",
        "auth",
        "login",
        "--no-browser",
        "-o",
        "json",
    ]))
    .await;
    // The authorize URL: the mock's, this app, a loopback redirect on a random port, a state and
    // a PKCE challenge.
    assert_eq!(
        login.url.as_str().split('?').next(),
        Some(server.authorize_url().as_str())
    );
    assert_eq!(login.param("client_id"), CLIENT_ID);
    assert_eq!(login.param("response_type"), "code");
    assert_eq!(login.param("scope"), "offline_access");
    assert_eq!(login.param("code_challenge_method"), "S256");
    assert!(login.param("state").len() >= 22);
    let redirect = Url::parse(&login.param("redirect_uri")).unwrap();
    assert_eq!(redirect.host_str(), Some("127.0.0.1"));
    assert!(redirect.port().is_some_and(|p| p > 0));
    let (status, page) = login.approve().await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("received the authorization"), "{page}");
    let (code, out, err) = login.finish().await;
    assert_eq!(code, 0, "{out}\n{err}");
    let report = json(&out);
    assert_eq!(report["store"], "shop1");
    assert_eq!(report["logged_in"], true);
    assert_eq!(report["refresh_token"], true);
    assert_eq!(report["expired"], false);
    let scopes: Vec<&str> = report["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(scopes.contains(&"orders.read_write") && scopes.contains(&"offline_access"));
    assert!(report["expires_at"].as_str().unwrap().ends_with('Z'));

    // Saved in the store's own file, owner only.
    let file = setup.token_file("shop1");
    let (access, refresh) = stored(&file);
    assert!(access.starts_with("mock-at-") && refresh.starts_with("mock-rt-"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_no_secret(&[&out, &err], &[&access, &refresh, CLIENT_SECRET]);

    // Status, for people: store, scopes and expiry, never a token.
    let (status, status_err) = run(
        setup.command(&["--store", "shop1", "auth", "status", "-o", "table"]),
        0,
    )
    .await;
    assert!(status.contains("store: shop1"), "{status}");
    assert!(status.contains("logged in: yes"), "{status}");
    assert!(
        status.contains("scopes: ") && status.contains("orders.read_write"),
        "{status}"
    );
    assert!(status.contains("access token expires: "), "{status}");
    assert!(status.contains("(in 13 d"), "{status}");
    assert!(status.contains(&file.display().to_string()), "{status}");
    assert_no_secret(&[&status, &status_err], &[&access, &refresh, CLIENT_SECRET]);

    // An ordinary command uses the stored tokens: no --token needed.
    let (orders, err) = run(
        setup.command(&["--store", "shop1", "orders", "list", "-o", "json"]),
        0,
    )
    .await;
    assert!(json(&orders).as_array().is_some(), "{orders}");
    assert_no_secret(&[&orders, &err], &[&access, &refresh, CLIENT_SECRET]);

    // Rejected mid-life, the token is refreshed once, replayed, and the new pair saved.
    assert_eq!(server.expire_access_tokens(), 1);
    run(
        setup.command(&["--store", "shop1", "orders", "list", "-o", "json"]),
        0,
    )
    .await;
    assert_eq!(server.token_refreshes(), 1);
    let (new_access, new_refresh) = stored(&file);
    assert_ne!(new_access, access);
    assert_ne!(new_refresh, refresh);
    let oauth = setup.admin_json("oauth").await;
    assert_eq!(oauth["refreshes"], 1);
    assert_eq!(oauth["rejected"], 0);
    assert_eq!(oauth["authorizations"], 1);
    assert_eq!(oauth["code_exchanges"], 1);
    let requests = setup.admin_json("requests").await;
    // 200, then 401 and its replay.
    assert_eq!(
        requests["list_orders"],
        serde_json::json!({"total": 3, "429": 0})
    );

    // Logout removes them; status and commands then say so.
    let (out, _) = run(setup.command(&["--store", "shop1", "auth", "logout"]), 0).await;
    assert!(out.contains("logged out of store shop1"), "{out}");
    assert!(stored(&file).0.is_empty(), "the tokens are gone");
    let (out, err) = run(
        setup.command(&["--store", "shop1", "auth", "status", "-o", "table"]),
        1,
    )
    .await;
    assert!(out.contains("logged in: no"), "{out}");
    assert!(err.is_empty(), "told once, on standard output: {err}");
    let (out, _) = run(
        setup.command(&["--store", "shop1", "auth", "status", "-o", "json"]),
        1,
    )
    .await;
    assert_eq!(json(&out)["logged_in"], false);
    let (_, err) = run(setup.command(&["--store", "shop1", "orders", "list"]), 2).await;
    assert!(err.contains("store-admin auth login"), "{err}");
    let (out, _) = run(setup.command(&["--store", "shop1", "auth", "logout"]), 0).await;
    assert!(out.contains("was not logged in"), "{out}");
}

#[tokio::test]
async fn stores_are_kept_apart_and_the_default_store_is_default() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut import = setup.command(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin(format!("{REFRESH}\n"));
    let (out, _) = run(import, 0).await;
    assert_eq!(json(&out)["store"], "default");
    assert!(setup.token_file("default").exists());
    run(setup.command(&["--store", "other", "auth", "status"]), 1).await;
    run(setup.command(&["auth", "status"]), 0).await;
    // STORE_ADMIN_STORE names the store too.
    let mut by_env = setup.command(&["auth", "status", "-o", "json"]);
    by_env.env("STORE_ADMIN_STORE", "default");
    let (out, _) = run(by_env, 0).await;
    assert_eq!(json(&out)["store"], "default");
    let (_, err) = run(setup.command(&["--store", "a b", "auth", "status"]), 2).await;
    assert!(err.contains("not a store id"), "{err}");
}

/// A 401 with stored tokens names them (the store and where they are kept), never a token:
/// the tokens imported here lack the scope of `products list`.
#[tokio::test]
async fn a_401_with_stored_tokens_names_the_store_and_where_they_are_kept() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut import = setup.command(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin(format!("{REFRESH}\n"));
    run(import, 0).await;
    let (out, err) = run(setup.command(&["products", "list"]), 3).await;
    let file = setup.token_file("default");
    assert!(
        err.contains(&format!(
            "the token came from the stored OAuth tokens of store default ({})",
            file.display()
        )),
        "{err}"
    );
    let (access, refresh) = stored(&file);
    assert_no_secret(&[&out, &err], &[REFRESH, &access, &refresh, CLIENT_SECRET]);
}

#[tokio::test]
async fn import_reads_the_refresh_token_from_standard_input_and_exchanges_it_once() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut import = setup.command(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin(format!("{REFRESH}\n"));
    let (out, err) = run(import, 0).await;
    let report = json(&out);
    assert_eq!(report["logged_in"], true);
    assert_eq!(
        report["scopes"],
        serde_json::json!(["orders.read_write", "offline_access"])
    );
    assert!(err.contains("exchanged"), "{err}");
    let (access, refresh) = stored(&setup.token_file("default"));
    assert_ne!(refresh, REFRESH, "the single-use token was exchanged");
    assert_no_secret(&[&out, &err], &[REFRESH, &access, &refresh, CLIENT_SECRET]);
    assert_eq!(server.token_refreshes(), 1);
    run(setup.command(&["orders", "list", "-o", "json"]), 0).await;

    // The same token again: spent. A clear refusal, exit 3, counted by the mock.
    let mut again = setup.command(&["auth", "import", "--refresh-token", "-"]);
    again.write_stdin(REFRESH);
    let (out, err) = run(again, 3).await;
    assert!(
        err.contains("refused the refresh token (invalid_grant"),
        "{err}"
    );
    assert_no_secret(&[&out, &err], &[REFRESH, CLIENT_SECRET]);
    assert_eq!(setup.admin_json("oauth").await["rejected"], 1);
    // What was saved before is kept.
    assert_eq!(stored(&setup.token_file("default")).1, refresh);
}

#[tokio::test]
async fn a_refresh_token_is_never_taken_from_the_command_line_nor_echoed() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let (out, err) = run(
        setup.command(&["auth", "import", "--refresh-token", REFRESH]),
        2,
    )
    .await;
    assert!(err.contains("standard input"), "{err}");
    assert_no_secret(&[&out, &err], &[REFRESH]);
    let mut empty = setup.command(&["auth", "import", "--refresh-token", "-"]);
    empty.write_stdin("\n");
    let (_, err) = run(empty, 2).await;
    assert!(err.contains("standard input"), "{err}");
    assert_eq!(server.token_refreshes(), 0, "nothing was sent");
}

#[tokio::test]
async fn without_the_app_s_client_an_imported_token_is_saved_and_exchanged_on_first_use() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut import = store_admin();
    import
        .env("XDG_STATE_HOME", setup.state.path())
        .args([
            "--token-url",
            &setup.token_url,
            "--base-url",
            &setup.base_url,
        ])
        .args(["auth", "import", "--refresh-token", "-", "-o", "table"])
        .write_stdin(REFRESH);
    let (out, err) = run(import, 0).await;
    assert!(out.contains("access token: none yet"), "{out}");
    assert!(err.contains("client id and secret"), "{err}");
    assert_eq!(server.token_refreshes(), 0);
    // A command without the client cannot use it, and says what is missing.
    let mut bare = store_admin();
    bare.env("XDG_STATE_HOME", setup.state.path())
        .args([
            "--token-url",
            &setup.token_url,
            "--base-url",
            &setup.base_url,
        ])
        .args(["orders", "list"]);
    let (_, err) = run(bare, 2).await;
    assert!(err.contains("--client-id"), "{err}");
    // With it, the first command exchanges it.
    run(setup.command(&["orders", "list", "-o", "json"]), 0).await;
    assert_eq!(server.token_refreshes(), 1);
    assert!(!stored(&setup.token_file("default")).0.is_empty());
}

#[tokio::test]
async fn a_spent_refresh_token_says_the_merchant_must_reinstall_and_status_says_revoked() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut import = setup.command(&["auth", "import", "--refresh-token", "-"]);
    import.write_stdin(REFRESH);
    run(import, 0).await;
    // Another program spends the stored refresh token behind the command's back.
    let (_, refresh) = stored(&setup.token_file("default"));
    let spent = spend_refresh_token(&setup, &refresh).await;
    assert_eq!(spent.status(), 200);
    server.expire_access_tokens();
    let (out, err) = run(setup.command(&["orders", "list"]), 3).await;
    assert!(err.contains("reinstall"), "{err}");
    assert!(
        err.contains("hint: log in again with `store-admin auth login`"),
        "{err}"
    );
    assert_no_secret(&[&out, &err], &[&refresh, CLIENT_SECRET]);
    let (out, _) = run(setup.command(&["auth", "status", "-o", "json"]), 1).await;
    assert_eq!(json(&out)["revoked"], true);
    // Saved as revoked: the next command does not present the spent token again.
    let (_, err) = run(setup.command(&["orders", "list"]), 3).await;
    assert!(err.contains("revoked"), "{err}");
    let oauth = setup.admin_json("oauth").await;
    assert_eq!(oauth["rejected"], 1, "{oauth}");
}

#[tokio::test]
async fn login_refuses_a_redirect_with_another_state() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let login = Login::start(setup.process(&["auth", "login", "--no-browser"])).await;
    let (status, page) = login.redirect("code=stolen-code&state=forged").await;
    assert_eq!(status, 400, "{page}");
    let (code, out, err) = login.finish().await;
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("state does not match"), "{err}");
    assert_eq!(setup.admin_json("oauth").await["code_exchanges"], 0);
    assert!(!setup.token_file("default").exists());
}

#[tokio::test]
async fn login_reports_a_refused_authorization_with_exit_3() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let login = Login::start(setup.process(&["auth", "login", "--no-browser"])).await;
    let state = login.param("state");
    let (status, _) = login
        .redirect(&format!(
            "error=access_denied&error_description=The+merchant+said+no&state={state}"
        ))
        .await;
    assert_eq!(status, 200);
    let (code, out, err) = login.finish().await;
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains("the authorization was refused (access_denied): The merchant said no"),
        "{err}"
    );
}

#[tokio::test]
async fn login_gives_up_after_its_wait() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let (_, err) = run(
        setup.command(&["auth", "login", "--no-browser", "--wait", "1"]),
        1,
    )
    .await;
    assert!(err.contains("no authorization arrived within 1 s"), "{err}");
}

#[tokio::test]
async fn login_with_an_unreachable_token_endpoint_exits_4() {
    let server = mock().await;
    let setup = Setup::new(&server);
    // A port nothing listens on: the authorization succeeds, the exchange cannot be sent.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}/oauth2/token", closed.local_addr().unwrap());
    drop(closed);
    let mut command = store_admin_process();
    command
        .env("XDG_STATE_HOME", setup.state.path())
        .env("STORE_ADMIN_CLIENT_SECRET", CLIENT_SECRET)
        .args(["--client-id", CLIENT_ID, "--token-url", &dead])
        .args(["auth", "login", "--no-browser", "--authorize-url"])
        .arg(server.authorize_url());
    let login = Login::start(command).await;
    login.approve().await;
    let (code, out, err) = login.finish().await;
    assert_eq!(code, 4, "{out}\n{err}");
    assert!(err.contains("token request failed"), "{err}");
    assert_no_secret(&[&out, &err], &[CLIENT_SECRET]);
}

#[tokio::test]
async fn login_needs_the_app_s_client_and_a_safe_token_url() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let mut no_client = store_admin();
    no_client.env("XDG_STATE_HOME", setup.state.path()).args([
        "--token-url",
        &setup.token_url,
        "auth",
        "login",
        "--no-browser",
    ]);
    let (_, err) = run(no_client, 2).await;
    assert!(err.contains("--client-id"), "{err}");
    let mut no_secret = store_admin();
    no_secret
        .env("XDG_STATE_HOME", setup.state.path())
        .args(["--client-id", CLIENT_ID, "--token-url", &setup.token_url])
        .args(["auth", "login", "--no-browser"]);
    let (_, err) = run(no_secret, 2).await;
    assert!(err.contains("STORE_ADMIN_CLIENT_SECRET"), "{err}");
    // The client secret would go there in clear.
    let mut cleartext = store_admin();
    cleartext.args([
        "--token-url",
        "http://accounts.example.test/oauth2/token",
        "auth",
        "status",
    ]);
    let (_, err) = run(cleartext, 2).await;
    assert!(err.contains("must be https"), "{err}");
    // No flag takes the secret itself.
    let (_, err) = run(
        setup.command(&["--client-secret", "x", "auth", "status"]),
        2,
    )
    .await;
    assert!(err.contains("unexpected argument"), "{err}");
}

#[tokio::test]
async fn the_client_secret_can_come_from_a_file_and_the_settings_from_a_profile() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("client-secret");
    std::fs::write(&secret, format!("{CLIENT_SECRET}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "default_profile = \"mock\"\n[profiles.mock]\nbase_url = \"{}\"\ntoken_url = \"{}\"\n\
             store = \"from-profile\"\nclient_id = \"{CLIENT_ID}\"\nclient_secret_file = \"{}\"\n",
            setup.base_url,
            setup.token_url,
            secret.display()
        ),
    )
    .unwrap();
    let profiled = |args: &[&str]| {
        let mut command = store_admin();
        command
            .env("XDG_STATE_HOME", setup.state.path())
            .env("STORE_ADMIN_CONFIG", dir.path().join("config.toml"))
            .args(args);
        command
    };
    let mut import = profiled(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin(REFRESH);
    let (out, err) = run(import, 0).await;
    assert_eq!(json(&out)["store"], "from-profile");
    assert_no_secret(&[&out, &err], &[CLIENT_SECRET, REFRESH]);
    server.expire_access_tokens();
    run(profiled(&["orders", "list", "-o", "json"]), 0).await;
    assert_eq!(server.token_refreshes(), 2, "the import, then a refresh");
    // A flag wins over the profile.
    run(profiled(&["--store", "elsewhere", "auth", "status"]), 1).await;
}

#[tokio::test]
async fn live_tokens_are_never_sent_to_another_origin() {
    let server = mock().await;
    let state = tempfile::tempdir().unwrap();
    // Tokens stored for the live service (its token URL is the default)...
    let dir = state.path().join("store-admin/tokens/accounts.salla.sa");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("default.json"),
        r#"{"revision":1,"tokens":{"access_token":"live-access-secret","refresh_token":"live-refresh-secret","expires_at":"2099-01-01T00:00:00Z","scope":"orders.read"}}"#,
    )
    .unwrap();
    let mut status = store_admin();
    status
        .env("XDG_STATE_HOME", state.path())
        .args(["auth", "status", "-o", "json"]);
    let (out, _) = run(status, 0).await;
    assert_eq!(json(&out)["scopes"], serde_json::json!(["orders.read"]));
    // ...are not sent to a --base-url elsewhere.
    let mut elsewhere = store_admin();
    elsewhere.env("XDG_STATE_HOME", state.path()).args([
        "--base-url",
        server.base_url(),
        "orders",
        "list",
    ]);
    let (out, err) = run(elsewhere, 2).await;
    assert!(
        err.contains("refusing to send them to http://127.0.0.1:"),
        "{err}"
    );
    assert_no_secret(
        &[&out, &err],
        &["live-access-secret", "live-refresh-secret"],
    );
    assert_eq!(server.request_counts()["list_orders"].total, 0);
}

// ---------------------------------------------------------------------------------------------
// The sandbox

#[tokio::test]
async fn the_sandbox_logs_in_and_its_commands_use_and_refresh_the_saved_tokens() {
    let state = tempfile::tempdir().unwrap();
    let sandbox = |args: &[&str]| {
        let mut command = store_admin();
        command
            .env("XDG_STATE_HOME", state.path())
            .arg("--sandbox")
            .args(args);
        command
    };
    let mut process = store_admin_process();
    process.env("XDG_STATE_HOME", state.path()).args([
        "--sandbox",
        "auth",
        "login",
        "--no-browser",
        "-o",
        "json",
    ]);
    let login = Login::start(process).await;
    assert_eq!(login.param("client_id"), "sandbox-client");
    let (status, _) = login.approve().await;
    assert_eq!(status, 200);
    let (code, out, err) = login.finish().await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json(&out)["sandbox"], true);
    let file = state.path().join("store-admin/tokens/sandbox/default.json");
    let (access, refresh) = stored(&file);
    assert_no_secret(&[&out, &err], &[&access, &refresh]);

    let (out, _) = run(sandbox(&["auth", "status", "-o", "table"]), 0).await;
    assert!(out.contains("store: default (sandbox)") && out.contains("logged in: yes"));
    // Make the saved access token expired: the next command refreshes it with the saved
    // refresh token, and saves the new pair.
    let mut record: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    record["tokens"]["expires_at"] = "2020-01-01T00:00:00Z".into();
    std::fs::write(&file, record.to_string()).unwrap();
    let (orders, _) = run(sandbox(&["orders", "list", "-o", "json"]), 0).await;
    assert!(json(&orders).as_array().is_some_and(|a| !a.is_empty()));
    // (The sandbox mints the same tokens for the same seed every run: the expiry and the
    // revision say that a new pair was saved.)
    let record: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(record["revision"], 2, "{record}");
    let expires = record["tokens"]["expires_at"].as_str().unwrap();
    assert!(expires > "2025", "{expires}");

    let (out, _) = run(sandbox(&["auth", "logout"]), 0).await;
    assert!(out.contains("logged out of store default"), "{out}");
    let (out, _) = run(sandbox(&["auth", "status"]), 1).await;
    assert!(out.contains("logged in: no") || out.contains("\"logged_in\": false"));
    // Logged out, the sandbox's own token still serves.
    run(sandbox(&["orders", "list", "-o", "json"]), 0).await;

    let mut import = sandbox(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin("any-refresh-token-the-sandbox-accepts\n");
    let (out, _) = run(import, 0).await;
    assert_eq!(json(&out)["logged_in"], true);
}

// ---------------------------------------------------------------------------------------------
// Redis

#[tokio::test]
async fn tokens_and_the_rate_budget_can_live_in_redis() {
    let redis = store_admin_tests::RedisServer::start();
    let server = mock_with(MockConfig::new().faults(store_admin_mock::FaultConfig {
        rate_limit: Some(store_admin_mock::RateLimitFault {
            per_minute: 120,
            operations: Vec::new(),
        }),
        ..store_admin_mock::FaultConfig::default()
    }))
    .await;
    let setup = Setup::new(&server);
    let url = redis.url();
    let with_redis = |args: &[&str]| {
        let mut command = setup.command(&["--token-store", &url, "--rate-limit-store", &url]);
        command.args(["--store", "1305"]).args(args);
        command
    };
    let mut import = with_redis(&["auth", "import", "--refresh-token", "-", "-o", "json"]);
    import.write_stdin(REFRESH);
    let (out, _) = run(import, 0).await;
    let report = json(&out);
    assert_eq!(
        report["token_store"],
        format!("{url} (key store-admin:tokens:1305)")
    );
    // The tokens are where a fleet of services reads them.
    let stores = store_admin::credentials::RedisTokenStores::connect(&url)
        .await
        .unwrap();
    use store_admin::credentials::TokenStore;
    let saved = stores
        .store("1305")
        .load_tokens()
        .await
        .unwrap()
        .expect("saved in Redis");
    assert!(saved.has_scope("orders.read"));
    assert!(!setup.token_file("1305").exists(), "not in a file");
    for _ in 0..3 {
        run(with_redis(&["orders", "list", "-o", "json"]), 0).await;
    }
    let requests = setup.admin_json("requests").await;
    assert_eq!(
        requests["list_orders"],
        serde_json::json!({"total": 3, "429": 0})
    );
    // The budget was counted in Redis, under the store's key.
    let mut conn =
        std::net::TcpStream::connect(url.trim_start_matches("redis://").trim_end_matches("/0"))
            .unwrap();
    use std::io::{Read, Write};
    conn.write_all(b"EXISTS store-admin:rate:1305\r\n").unwrap();
    let mut reply = [0u8; 4];
    conn.read_exact(&mut reply).unwrap();
    assert_eq!(&reply, b":1\r\n");
    run(with_redis(&["auth", "logout"]), 0).await;
    assert!(stores.store("1305").load_tokens().await.unwrap().is_none());
}

#[tokio::test]
async fn a_redis_password_is_never_taken_from_the_command_line_and_an_unreachable_redis_exits_4() {
    let server = mock().await;
    let setup = Setup::new(&server);
    let (out, err) = run(
        setup.command(&[
            "--token-store",
            "redis://:hunter2-redis-password@127.0.0.1:1/0",
            "auth",
            "status",
        ]),
        2,
    )
    .await;
    assert!(err.contains("STORE_ADMIN_TOKEN_STORE"), "{err}");
    assert_no_secret(&[&out, &err], &["hunter2-redis-password"]);
    // From the environment it is taken, and never shown.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let mut by_env = setup.command(&["auth", "status"]);
    by_env.env(
        "STORE_ADMIN_TOKEN_STORE",
        format!("redis://:hunter2-redis-password@127.0.0.1:{port}/0"),
    );
    let (out, err) = run(by_env, 4).await;
    assert!(
        err.contains("cannot reach the token store redis://:***@127.0.0.1"),
        "{err}"
    );
    assert_no_secret(&[&out, &err], &["hunter2-redis-password"]);
    let (_, err) = run(
        setup.command(&[
            "--rate-limit-store",
            &format!("redis://127.0.0.1:{port}/0"),
            "--token",
            "t",
            "orders",
            "list",
        ]),
        4,
    )
    .await;
    assert!(err.contains("cannot reach the rate-limit store"), "{err}");
}

/// `auth status --all` lists every store of the token store with its health, never a token: a
/// store whose refresh token was spent is `reinstall-needed` (with the `invalid_grant`), a
/// fresh one `healthy`; the command exits 1 while one needs attention.
#[tokio::test]
async fn status_all_lists_every_store_with_its_health() {
    // A second installation, whose refresh token the other store's revoked chain does not touch.
    const OTHER: &str = "cli-test-second-installed-refresh-token";
    let server = mock_with(MockConfig::new().oauth_refresh_token(OTHER, SCOPES)).await;
    let setup = Setup::new(&server);
    let (out, _) = run(setup.command(&["auth", "status", "--all", "-o", "json"]), 0).await;
    assert_eq!(json(&out), serde_json::json!([]), "nothing yet");
    let mut import = setup.command(&["--store", "spent", "auth", "import", "--refresh-token", "-"]);
    import.write_stdin(REFRESH);
    run(import, 0).await;
    let (_, refresh) = stored(&setup.token_file("spent"));
    // Another program spends the stored refresh token; the next call meets invalid_grant.
    let spent = spend_refresh_token(&setup, &refresh)
        .await
        .json::<Value>()
        .await
        .unwrap();
    server.expire_access_tokens();
    run(setup.command(&["--store", "spent", "orders", "list"]), 3).await;
    assert!(spent["refresh_token"].is_string(), "{spent}");
    // A second store, installed on its own.
    let mut fresh = setup.command(&["--store", "fresh", "auth", "import", "--refresh-token", "-"]);
    fresh.write_stdin(OTHER);
    run(fresh, 0).await;

    let (out, err) = run(setup.command(&["auth", "status", "--all", "-o", "json"]), 1).await;
    let report = json(&out);
    let stores = report.as_array().expect("an array");
    assert_eq!(stores.len(), 2, "{report}");
    assert_eq!(stores[0]["store"], "fresh");
    assert_eq!(stores[0]["state"], "healthy", "{report}");
    assert_eq!(stores[0]["needs_attention"], false);
    assert_eq!(stores[1]["store"], "spent");
    assert_eq!(stores[1]["state"], "reinstall-needed");
    assert_eq!(stores[1]["needs_attention"], true);
    let reason = stores[1]["last_failure"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("invalid_grant"), "{reason}");
    let (table, _) = run(
        setup.command(&["auth", "status", "--all", "-o", "table"]),
        1,
    )
    .await;
    assert!(
        table.contains("reinstall-needed (needs attention)"),
        "{table}"
    );
    let (fresh_access, fresh_refresh) = stored(&setup.token_file("fresh"));
    assert_no_secret(
        &[&out, &err, &table],
        &[&refresh, &fresh_access, &fresh_refresh, CLIENT_SECRET],
    );
}
