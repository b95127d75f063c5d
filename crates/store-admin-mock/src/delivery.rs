//! Webhook deliveries: the event envelope POSTed to every subscribed webhook, signed or tokened,
//! retried a bounded number of times, and logged for tests.

use std::sync::{Arc, Mutex, PoisonError};

use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::sync::watch;

use crate::config::DeliveryConfig;
use crate::rules::Rule;

/// Most delivery attempts kept in the log (the oldest are dropped first).
const LOG_SIZE: usize = 10_000;

/// What a delivery needs of a registered webhook, read from its record.
#[derive(Clone)]
pub(crate) struct Webhook {
    pub id: i64,
    pub event: String,
    pub version: i64,
    pub rule: Option<String>,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub strategy: Option<String>,
    pub secret: Option<SecretString>,
}

impl Webhook {
    /// The webhook a stored record describes (`headers` a map, `security: {strategy, secret}`).
    pub fn from_record(record: &Value) -> Option<Self> {
        let text = |value: Option<&Value>| {
            value
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        Some(Self {
            id: record.get("id")?.as_i64()?,
            event: text(record.get("event"))?,
            version: record.get("version").and_then(Value::as_i64).unwrap_or(1),
            rule: text(record.get("rule")),
            url: text(record.get("url"))?,
            headers: record
                .get("headers")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect(),
            strategy: text(record.pointer("/security/strategy")),
            secret: text(record.pointer("/security/secret")).map(SecretString::from),
        })
    }
}

/// One attempt to deliver one event to one webhook.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeliveryAttempt {
    /// The webhook's id.
    pub webhook_id: i64,
    /// The event name.
    pub event: String,
    /// The target URL.
    pub url: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// The transport error, if it did not.
    pub error: Option<String>,
    /// Whether this attempt counted as delivered (200 or 201).
    pub delivered: bool,
    /// The exact body sent.
    pub body: String,
}

/// Sends deliveries in background tasks and keeps their log.
pub(crate) struct Dispatcher {
    client: reqwest::Client,
    config: DeliveryConfig,
    merchant_id: i64,
    log: Mutex<Vec<DeliveryAttempt>>,
    changed: watch::Sender<usize>,
    shutdown: watch::Receiver<bool>,
}

/// `hex(HMAC-SHA256(secret, body))`, the `X-Salla-Signature` header.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!());
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

impl Dispatcher {
    pub fn new(config: DeliveryConfig, merchant_id: i64, shutdown: watch::Receiver<bool>) -> Self {
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .unwrap_or_default();
        Self {
            client,
            config,
            merchant_id,
            log: Mutex::new(Vec::new()),
            changed: watch::channel(0).0,
            shutdown,
        }
    }

    pub fn attempts(&self) -> Vec<DeliveryAttempt> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn subscribe(&self) -> watch::Receiver<usize> {
        self.changed.subscribe()
    }

    /// Delivers `event` with `data` to each of `webhooks` subscribed to it whose rule matches.
    pub fn dispatch(self: &Arc<Self>, webhooks: &[Webhook], event: &str, data: &Value) {
        let envelope = json!({
            "event": event,
            "merchant": self.merchant_id,
            // In the store's time zone, as the service writes its dates.
            "created_at": crate::store::now_local(),
            "data": data,
        });
        let body = serde_json::to_vec(&envelope).unwrap_or_default();
        for webhook in webhooks.iter().filter(|w| w.event == event) {
            if webhook.version >= 2
                && let Some(rule_text) = &webhook.rule
            {
                match Rule::parse(rule_text) {
                    Ok(Some(rule)) if !rule.matches(data) => continue,
                    Err(_) => continue,
                    _ => {}
                }
            }
            let this = Arc::clone(self);
            let webhook = webhook.clone();
            let body = body.clone();
            let event = event.to_owned();
            tokio::spawn(async move { this.deliver(webhook, event, body).await });
        }
    }

    async fn deliver(self: Arc<Self>, webhook: Webhook, event: String, body: Vec<u8>) {
        let mut shutdown = self.shutdown.clone();
        for attempt in 1..=self.config.max_attempts.max(1) {
            let mut request = self
                .client
                .post(&webhook.url)
                .header("content-type", "application/json");
            for (name, value) in &webhook.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            match (webhook.strategy.as_deref(), &webhook.secret) {
                (Some("signature"), Some(secret)) => {
                    request = request
                        .header("X-Salla-Security-Strategy", "Signature")
                        .header(
                            "X-Salla-Signature",
                            signature(secret.expose_secret().as_bytes(), &body),
                        );
                }
                (Some("token"), Some(secret)) => {
                    request = request
                        .header("X-Salla-Security-Strategy", "Token")
                        .header("Authorization", secret.expose_secret());
                }
                _ => {}
            }
            let outcome = request.body(body.clone()).send().await;
            let (status, error) = match outcome {
                Ok(response) => (Some(response.status().as_u16()), None),
                Err(error) => (None, Some(error.without_url().to_string())),
            };
            let delivered = matches!(status, Some(200 | 201));
            self.record(DeliveryAttempt {
                webhook_id: webhook.id,
                event: event.clone(),
                url: webhook.url.clone(),
                attempt,
                status,
                error,
                delivered,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            if delivered || attempt == self.config.max_attempts {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(self.config.retry_delay) => {}
                _ = shutdown.changed() => return,
            }
        }
    }

    fn record(&self, attempt: DeliveryAttempt) {
        let count = {
            let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
            if log.len() >= LOG_SIZE {
                log.remove(0);
            }
            log.push(attempt);
            log.len()
        };
        self.changed.send_replace(count);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn signature_is_hex_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2.
        assert_eq!(
            super::signature(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
