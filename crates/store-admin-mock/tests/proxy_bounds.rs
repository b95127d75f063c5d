//! The drift proxy (`--proxy`) is bounded and private (issue 37): an answer nested 1,000 deep does
//! not crash it, an answer past its bound is refused as it is read, the report is capped and
//! keeps no value of a body (key names that look like data folded), its admin routes need the
//! admin token, and a path with a dot segment is refused before anything is forwarded.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use axum::response::Response;
use reqwest::StatusCode;
use serde_json::Value;
use store_admin_mock::{ERRORS_KEPT, MockConfig, MockServer, PATHS_KEPT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::start_with;

const TOKEN: &str = "store-token";
const ADMIN_TOKEN: &str = "drift-admin";

/// A store on 127.0.0.1 that answers every request with `body()` (JSON), counting the requests.
async fn upstream(
    body: impl Fn() -> Body + Clone + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        let counter = counter.clone();
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(body())
                .expect("a response")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/admin/v2"), seen)
}

async fn drift_in_front_of(base: &str, config: MockConfig) -> MockServer {
    start_with(config.proxy(base.parse().unwrap()).admin_token(ADMIN_TOKEN)).await
}

async fn get(server: &MockServer, path: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{}{path}", server.base_url()))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("the drift proxy answers")
}

fn nested(depth: usize) -> String {
    format!(
        "{{\"data\":{}1{}}}",
        "[".repeat(depth - 1),
        "]".repeat(depth - 1)
    )
}

/// The mock binary in proxy mode in front of `base`, and its base URL.
fn spawn_binary(base: &str, extra: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_store-admin-mock"))
        .args(["--port", "0", "--proxy", base, "--admin-token", ADMIN_TOKEN])
        .args(extra)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the mock starts");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let line = stdout
        .lines()
        .map_while(Result::ok)
        .find(|line| line.contains("listening on"))
        .expect("the listening line");
    let url = line
        .rsplit(' ')
        .next()
        .expect("the base URL")
        .trim()
        .to_owned();
    (child, url)
}

/// A 200-byte answer nested 100 deep, and one nested 1,000 deep, through the mock binary in proxy
/// mode (its tokio workers have 2 MiB stacks): it survives, hands each answer back as the store
/// sent it, and its report has the decode error naming the depth and the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_nested_1000_deep_does_not_crash_the_proxy() {
    for depth in [100, 1_000] {
        let body = nested(depth);
        let (base, _) = upstream({
            let body = body.clone();
            move || Body::from(body.clone())
        })
        .await;
        let (mut child, url) = spawn_binary(&base, &[]);
        let client = reqwest::Client::new();
        for _ in 0..2 {
            let answer = client
                .get(format!("{url}/orders/statuses"))
                .bearer_auth(TOKEN)
                .send()
                .await
                .expect("the proxy answers (and is still running)");
            assert_eq!(answer.status(), StatusCode::OK);
            assert_eq!(answer.text().await.unwrap(), body, "handed back as it came");
        }
        let report: Value = client
            .get(format!(
                "{}/__admin/drift",
                url.trim_end_matches("/admin/v2")
            ))
            .bearer_auth(ADMIN_TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let statuses = &report["list_order_statuses"];
        assert_eq!(statuses["calls"], 2, "{report}");
        assert_eq!(statuses["failed"], 2, "{report}");
        let error = statuses["errors"][0].as_str().unwrap_or_default();
        assert!(
            error.contains(&format!(
                "nested deeper than {} levels",
                store_admin_client::MAX_DEPTH
            )),
            "{error}"
        );
        assert!(
            child.try_wait().expect("status").is_none(),
            "the proxy is still running"
        );
        child.kill().ok();
        child.wait().ok();
    }
    assert!(nested(100).len() <= 210);
}

/// An answer past the bound is read in pieces and refused (502) as soon as it passes it; the
/// report counts the call as failed; an answer within the bound passes.
#[tokio::test]
async fn an_answer_past_the_bound_is_refused_with_502() {
    const LIMIT: u64 = 1 << 20;
    // Sent in 64 KiB pieces, without a length.
    let (base, _) = upstream(|| {
        let piece = bytes::Bytes::from(vec![b' '; 64 << 10]);
        let pieces = (0..64).map(move |_| Ok::<_, std::io::Error>(piece.clone()));
        Body::from_stream(futures::stream::iter(pieces))
    })
    .await;
    let drift = drift_in_front_of(&base, MockConfig::new().proxy_answer_limit(LIMIT)).await;
    let answer = get(&drift, "/orders/statuses").await;
    assert_eq!(answer.status(), StatusCode::BAD_GATEWAY);
    let text = answer.text().await.unwrap();
    assert!(
        text.contains(&format!("larger than {LIMIT} bytes")),
        "{text}"
    );
    let report = drift.drift();
    assert_eq!(report["list_order_statuses"].drift.failed, 1);
    assert!(
        report["list_order_statuses"].errors[0].contains("larger than"),
        "{report:?}"
    );

    // The same within the bound (4 MiB) passes.
    let drift = drift_in_front_of(&base, MockConfig::new().proxy_answer_limit(4 << 20)).await;
    assert_eq!(
        get(&drift, "/orders/statuses").await.status(),
        StatusCode::OK
    );
}

/// 2,000 undeclared keys (numeric, long, random, and plain words) in one answer, over many calls
/// and paths: the report keeps at most PATHS_KEPT paths, folds the keys that
/// look like data, keeps ERRORS_KEPT errors and counts the rest, and quotes no value.
#[tokio::test]
async fn the_report_is_capped_folds_data_like_keys_and_keeps_no_value() {
    let body = {
        let mut data = serde_json::Map::new();
        data.insert("id".into(), Value::from("SECRET-VALUE-123"));
        for i in 0..500 {
            data.insert(format!("{}", 100_000 + i), Value::from(1));
            data.insert(format!("k{}", "x".repeat(50 + i)), Value::from(1));
            data.insert(format!("a1b2c3d4e5f6{i:08}"), Value::from(1));
            data.insert(format!("field_{i}"), Value::from(1));
        }
        serde_json::json!({"status": 200, "success": true, "data": [Value::Object(data)]})
            .to_string()
    };
    let (base, _) = upstream(move || Body::from(body.clone())).await;
    let drift = drift_in_front_of(&base, MockConfig::new()).await;
    for _ in 0..(ERRORS_KEPT + 3) {
        assert_eq!(
            get(&drift, "/orders/statuses").await.status(),
            StatusCode::OK
        );
    }
    // Paths the document does not have share one entry, their ids folded.
    for id in 0..20 {
        get(&drift, &format!("/no-such-thing/{}", 9_000_000 + id)).await;
    }
    let report = drift.drift();
    let statuses = &report["list_order_statuses"];
    assert_eq!(statuses.errors.len(), ERRORS_KEPT);
    assert_eq!(statuses.errors_dropped, 3);
    // 500 plain names and the folded ones: more paths than are kept.
    assert_eq!(
        statuses.drift.unknown_fields.len(),
        PATHS_KEPT,
        "{statuses:?}"
    );
    let everything = serde_json::to_string(&report).unwrap();
    for leaked in [
        "SECRET-VALUE-123",
        "100042",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "a1b2c3d4e5f6",
    ] {
        assert!(!everything.contains(leaked), "{leaked} in {everything}");
    }
    assert!(
        statuses.drift.unknown_fields.contains_key("data[].<key>"),
        "{statuses:?}"
    );
    let not_in_document: Vec<&String> = report.keys().filter(|k| k.contains("not in")).collect();
    assert_eq!(not_in_document.len(), 1, "{:?}", report.keys());
    let entry = &report[not_in_document[0]];
    assert_eq!(entry.drift.calls, 20);
    assert!(!everything.contains("9000001"), "{everything}");
}

/// In proxy mode the admin routes need the admin token: none configured, they answer 401 to
/// anyone; configured, only to a caller without it.
#[tokio::test]
async fn the_admin_routes_of_a_proxy_need_the_admin_token() {
    let (base, _) = upstream(|| Body::from("{}")).await;
    let open = start_with(MockConfig::new().proxy(base.parse().unwrap())).await;
    let root = |server: &MockServer| server.base_url().trim_end_matches("/admin/v2").to_owned();
    let client = reqwest::Client::new();
    for path in ["/__admin/drift", "/__admin/journal", "/__admin/faults"] {
        let answer = client
            .get(format!("{}{path}", root(&open)))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let guarded = drift_in_front_of(&base, MockConfig::new()).await;
    let drift = |token: Option<&str>| {
        let mut request = client.get(format!("{}/__admin/drift", root(&guarded)));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    assert_eq!(
        drift(None).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        drift(Some("wrong")).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        drift(Some(ADMIN_TOKEN)).await.unwrap().status(),
        StatusCode::OK
    );
    // The binary refuses --proxy without --admin-token.
    let output = Command::new(env!("CARGO_BIN_EXE_store-admin-mock"))
        .args(["--port", "0", "--proxy", &base])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .to_lowercase()
            .contains("admin"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A request line sent as it is written (reqwest and `url` resolve dot segments before sending).
async fn raw_status(server: &MockServer, target: &str) -> u16 {
    let addr = server.addr();
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let text = String::from_utf8_lossy(&answer);
    text.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {text}"))
}

/// A dot segment, plain or percent-encoded, is refused with 400 and nothing reaches the store.
#[tokio::test]
async fn a_path_with_a_dot_segment_is_refused_before_anything_is_forwarded() {
    let (base, seen) = upstream(|| Body::from("{}")).await;
    let drift = drift_in_front_of(&base, MockConfig::new()).await;
    for target in [
        "/admin/v2/../../__admin/x",
        "/admin/v2/%2e%2e/%2E%2E/__admin/drift",
        "/admin/v2/orders/%2e./x",
        "/admin/v2/./orders",
        "/admin/v2/orders/.%2E",
    ] {
        assert_eq!(raw_status(&drift, target).await, 400, "{target}");
    }
    assert_eq!(seen.load(Ordering::SeqCst), 0, "nothing was forwarded");
    // A name with dots in it is no dot segment.
    assert_eq!(raw_status(&drift, "/admin/v2/orders/a..b").await, 200);
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

/// The peak memory (VmHWM) of a mock binary in proxy mode after it forwarded one answer made by
/// `body`, and the size of its report; the binary is `MOCK_BIN` when set (to measure another
/// build), else this one.
async fn peak_memory_after(
    body: impl Fn() -> Body + Clone + Send + Sync + 'static,
) -> (u64, usize) {
    let (base, _) = upstream(body).await;
    let binary = std::env::var("MOCK_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_store-admin-mock").to_owned());
    let mut child = Command::new(binary)
        .args([
            "--port",
            "0",
            "--proxy",
            &base,
            "--admin-token",
            ADMIN_TOKEN,
        ])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the mock starts");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let line = stdout
        .lines()
        .map_while(Result::ok)
        .find(|line| line.contains("listening on"))
        .expect("the listening line");
    let url = line.rsplit(' ').next().expect("the URL").trim().to_owned();
    let client = reqwest::Client::new();
    let answer = client
        .get(format!("{url}/orders/statuses"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("an answer");
    let mut answer = answer;
    while let Ok(Some(_)) = answer.chunk().await {}
    let report = client
        .get(format!(
            "{}/__admin/drift",
            url.trim_end_matches("/admin/v2")
        ))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .expect("the report")
        .bytes()
        .await
        .map(|b| b.len())
        .unwrap_or(0);
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).expect("status");
    let peak_kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    child.kill().ok();
    child.wait().ok();
    (peak_kib, report)
}

/// The drift proxy's peak memory under a 1 GB answer and under an answer of 10^6 undeclared keys
/// (issue 37's figures): `MOCK_BIN=path/to/another/store-admin-mock cargo nextest run -p
/// store-admin-mock --test integration proxy_bounds::peak --run-ignored only --no-capture`.
/// A measure, not a check: it prints its figures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measure: forwards a 1 GB answer"]
async fn peak_memory_under_a_1_gb_answer_and_a_million_undeclared_keys() {
    let (gigabyte, report) = peak_memory_after(|| {
        let record =
            br#"{"id":1,"name":"a status","slug":"x","sort":1,"icon":"i","is_active":true},"#;
        let mut piece = Vec::with_capacity(1 << 20);
        while piece.len() + record.len() <= 1 << 20 {
            piece.extend_from_slice(record);
        }
        let piece = bytes::Bytes::from(piece);
        let head = bytes::Bytes::from_static(br#"{"status":200,"success":true,"data":["#);
        let tail = bytes::Bytes::from_static(br#"{"id":1,"name":"end"}]}"#);
        let pieces = std::iter::once(head)
            .chain(std::iter::repeat_n(piece, 1024))
            .chain(std::iter::once(tail))
            .map(Ok::<_, std::io::Error>);
        Body::from_stream(futures::stream::iter(pieces))
    })
    .await;
    println!(
        "1 GB answer: peak RSS {} MiB, report {report} bytes",
        gigabyte >> 10
    );
    let (keys, report) = peak_memory_after(|| {
        let mut text = String::from(r#"{"status":200,"success":true,"data":[{"id":1,"name":"a""#);
        for i in 0..1_000_000 {
            text.push_str(&format!(",\"k{i}\":1"));
        }
        text.push_str("}]}");
        Body::from(text)
    })
    .await;
    println!(
        "10^6 undeclared keys: peak RSS {} MiB, report {report} bytes",
        keys >> 10
    );
}
