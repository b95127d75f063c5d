//! The mock as a tool (issue 25): its command line's usage errors, the faults' names in flags and
//! JSON, the admin routes' resets and refusals, the redaction of installation tokens in the
//! delivery log, and request bodies that trickle.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use store_admin_mock::{Limits, MockConfig, MockServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common;
use crate::common::{ADMIN, start_with};

fn mock_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_store-admin-mock"));
    command.env("RUST_BACKTRACE", "1").env_remove("RUST_LOG");
    command
}

#[test]
fn usage_errors_exit_2_with_one_line_and_no_backtrace() {
    for args in [
        vec!["--port", "not-a-port"],
        vec!["--no-such-flag"],
        vec!["--scopes", "orders.read"],
        vec!["--faults", r#"{"eror": {"rate": 0.1}}"#],
        vec!["--faults", r#"{"errors": {"rate": 7}}"#],
        vec!["--errors-rate", "2"],
    ] {
        let output = mock_command()
            .args(["--port", "0"])
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            !err.contains("backtrace") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let output = mock_command()
        .args(["--faults", r#"{"errors": {"rat": 0.1}}"#])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("errors.rat"), "names the key: {err}");
}

#[test]
fn a_refused_proxy_url_never_shows_its_userinfo() {
    for url in [
        "http://proxy-user:proxy-PW-7731@127.0.0.1:9/admin/v2",
        "https://proxy-user@127.0.0.1:9/admin/v2",
        "ftp://proxy-user:proxy-PW-7731@127.0.0.1:9/admin/v2",
        "http://proxy-user:proxy-PW-7731@[::1/admin/v2",
        "proxy-user:proxy-PW-7731",
    ] {
        let output = mock_command()
            .args(["--port", "0", "--admin-token", "proxy-admin"])
            .args(["--proxy", url])
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{url}: {err}");
        assert!(err.contains("--proxy"), "{url}: {err}");
        assert!(
            !err.contains("proxy-PW-7731") && !err.contains("proxy-user"),
            "{url}: {err}"
        );
        assert!(
            String::from_utf8_lossy(&output.stdout).is_empty(),
            "{url}: nothing on standard output"
        );
    }
}

#[test]
fn the_fault_flags_bear_the_names_of_the_faults_json() {
    let mut child = mock_command()
        .args([
            "--port",
            "0",
            "--errors-rate",
            "0.25",
            "--drop-connection-rate",
            "0.5",
            "--latency-millis",
            "3",
            "--operations",
            "list_orders",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("runs");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let faults_line = stdout
        .lines()
        .map_while(Result::ok)
        .find(|line| line.trim_start().starts_with("faults:"))
        .expect("the faults line");
    let _ = child.kill();
    let _ = child.wait();
    let json_text = faults_line
        .trim_start()
        .trim_start_matches("faults: ")
        .split(" (change at")
        .next()
        .expect("the JSON");
    let faults: Value = serde_json::from_str(json_text).expect("JSON");
    assert_eq!(faults["errors"]["rate"], 0.25, "{faults}");
    assert_eq!(faults["drop_connection"]["rate"], 0.5, "{faults}");
    assert_eq!(faults["latency"]["millis"], 3, "{faults}");
    assert_eq!(
        faults["errors"]["operations"],
        json!(["list_orders"]),
        "{faults}"
    );
}

fn root(server: &MockServer) -> String {
    format!("http://{}", server.addr())
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("sent");
    let status = response.status();
    let value = response.json().await.unwrap_or(Value::Null);
    (status, value)
}

#[tokio::test]
async fn a_wrong_faults_key_changes_nothing_and_is_named() {
    let server = start_with(MockConfig::new().products(5).token_all_scopes(ADMIN)).await;
    let client = common::client();
    let url = format!("{}/__admin/faults", root(&server));
    let (status, _) = send(client.put(&url).json(&json!({"errors": {"rate": 0.5}}))).await;
    assert_eq!(status, StatusCode::OK);
    for (wrong, key) in [
        (json!({"errors": {"rat": 0.1}}), "errors.rat"),
        (json!({"drop": {"rate": 0.1}}), "drop"),
        (json!({"errors": {"rate": 3.0}}), "errors.rate"),
    ] {
        let (status, body) = send(client.put(&url).json(&wrong)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(body["error"]["fields"][key].is_array(), "{key}: {body}");
        let (_, now) = send(client.get(&url)).await;
        assert_eq!(
            now,
            json!({"errors": {"rate": 0.5, "statuses": [500, 502, 503]}})
        );
    }
}

#[tokio::test]
async fn request_counts_can_be_reset() {
    let server = start_with(MockConfig::new().products(5).token_all_scopes(ADMIN)).await;
    let client = common::client();
    let _ = send(
        client
            .get(format!("{}/orders", server.base_url()))
            .bearer_auth(ADMIN),
    )
    .await;
    let url = format!("{}/__admin/requests", root(&server));
    let (_, counts) = send(client.get(&url)).await;
    assert_eq!(counts["list_orders"]["total"], 1, "{counts}");
    let (status, counts) = send(client.delete(&url)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(counts["list_orders"]["total"], 0, "{counts}");
    assert_eq!(server.requests_received("list_orders"), 0);
}

#[tokio::test]
async fn unknown_event_names_are_refused() {
    let server = start_with(MockConfig::new().products(5).token_all_scopes(ADMIN)).await;
    let client = common::client();
    let (status, body) = send(
        client
            .post(format!("{}/__admin/events/order.craeted", root(&server)))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["fields"]["event"].is_array(), "{body}");
    let (status, _) = send(
        client
            .post(format!("{}/__admin/events/order.created", root(&server)))
            .json(&json!({"id": 1})),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn the_delivery_log_redacts_installation_tokens_unless_asked() {
    let server = start_with(MockConfig::new().products(5).token_all_scopes(ADMIN)).await;
    let client = common::client();
    let (status, body) = send(
        client
            .post(format!("{}/webhooks/subscribe", server.base_url()))
            .bearer_auth(ADMIN)
            .json(&json!({"name": "installs", "event": "app.store.authorize",
                          "url": "http://127.0.0.1:9/hook"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    server.emit_event(
        "app.store.authorize",
        json!({"access_token": "AT-leak", "refresh_token": "RT-leak", "scope": "x"}),
    );
    server
        .wait_for_deliveries(Duration::from_secs(20), |log| !log.is_empty())
        .await;
    let url = format!("{}/__admin/deliveries", root(&server));
    let shown = client
        .get(&url)
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("text");
    assert!(
        !shown.contains("AT-leak") && !shown.contains("RT-leak"),
        "{shown}"
    );
    assert!(shown.contains("[redacted]"), "{shown}");
    let revealed = client
        .get(format!("{url}?reveal=tokens"))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("text");
    assert!(revealed.contains("AT-leak"), "{revealed}");
}

#[tokio::test]
async fn a_request_body_that_trickles_is_answered_408_and_its_connection_closed() {
    let server = start_with(
        MockConfig::new()
            .products(5)
            .token_all_scopes(ADMIN)
            .limits(Limits {
                body_read_timeout: Duration::from_secs(1),
                ..Limits::default()
            }),
    )
    .await;
    let mut connections = Vec::new();
    for _ in 0..20 {
        let mut stream = TcpStream::connect(server.addr()).await.expect("connects");
        stream
            .write_all(
                format!(
                    "POST /admin/v2/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ADMIN}\r\n\
                     Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"na"
                )
                .as_bytes(),
            )
            .await
            .expect("writes");
        connections.push(stream);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    for stream in &mut connections {
        let mut answer = Vec::new();
        let mut buffer = [0u8; 1024];
        let closed = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, stream.read(&mut buffer)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break true,
                Ok(Ok(n)) => answer.extend_from_slice(&buffer[..n]),
                Err(_) => break false,
            }
        };
        assert!(closed, "a trickling body held its connection for 20 s");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    }
}

/// A reader that closes the mock's standard output before reading a line (as a script that reads
/// the listening line and goes away, racing the lines after it): the store still starts and
/// serves, and prints nothing to standard error about a broken pipe.
#[tokio::test]
async fn a_closed_standard_output_does_not_stop_the_store() {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().expect("its address").port()
    };
    let mut child = mock_command()
        .args(["--port", &port.to_string(), "--token", "closed-stdout"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mock starts");
    drop(child.stdout.take());
    let url = format!("http://127.0.0.1:{port}/admin/v2/orders/statuses");
    let client = common::client();
    let started = Instant::now();
    let status = loop {
        match client.get(&url).bearer_auth("closed-stdout").send().await {
            Ok(answer) => break answer.status(),
            Err(_) if started.elapsed() < Duration::from_secs(60) => {
                assert!(
                    child.try_wait().expect("the child's state").is_none(),
                    "the mock exited with its standard output closed"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("the mock never answered: {error}"),
        }
    };
    assert_eq!(status, StatusCode::OK);
    assert!(
        child.try_wait().expect("the child's state").is_none(),
        "the mock is still serving"
    );
    child.kill().expect("stop the mock");
    let output = child.wait_with_output().expect("its standard error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
        "{stderr}"
    );
}
