//! The few command-line shapes the document cannot say, flattened into generated commands (the
//! xtask names them in its `EXTRAS` list, with the parameters and body fields each takes over):
//! repeatable flags that build arrays of objects, a secret read from the environment, "one of
//! --id or --url", a period whose end may not come before its start.

use chrono::NaiveDate;
use clap::Args;
use secrecy::ExposeSecret;
use serde_json::{Map, Value, json};
use store_admin::builder;

use crate::body;
use crate::error::CliError;
use crate::global::enum_values;

/// Hand-written flags of one operation's command: they may set parameters of the request and
/// give body fields (laid over `--body`, like the generated flags).
pub trait Extra<R>: Sized {
    /// The request with the parameters set, and the body fields.
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError>;
}

/// `products create-option --value NAME[=PRICE]`.
#[derive(Args)]
pub struct OptionValues {
    /// A value of the option, `NAME` or `NAME=PRICE` (repeatable; replaces `values` of --body).
    #[arg(long = "value", value_name = "NAME[=PRICE]")]
    pub values: Vec<String>,
}

impl<R> Extra<R> for OptionValues {
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError> {
        let mut extra = Map::new();
        if !self.values.is_empty() {
            let values: Vec<Value> = self
                .values
                .iter()
                .map(|v| match v.split_once('=') {
                    Some((name, price)) => json!({"name": name, "price": price}),
                    None => json!({"name": v}),
                })
                .collect();
            extra.insert("values".into(), Value::Array(values));
        }
        Ok((request, extra))
    }
}

/// `languages add --locale ISO`.
#[derive(Args)]
pub struct Locales {
    /// ISO code of a language to add, e.g. `fr` (repeatable; replaces `locales` of --body).
    #[arg(long = "locale", value_name = "ISO_CODE")]
    pub locales: Vec<String>,
}

impl<R> Extra<R> for Locales {
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError> {
        let mut extra = Map::new();
        if !self.locales.is_empty() {
            let locales: Vec<Value> = self
                .locales
                .iter()
                .map(|iso| json!({"iso_code": iso}))
                .collect();
            extra.insert("locales".into(), Value::Array(locales));
        }
        Ok((request, extra))
    }
}

/// `shipments create --service-type TYPE`.
#[derive(Args)]
pub struct ServiceTypes {
    /// A service type (repeatable; replaces `service_types` of --body).
    #[arg(long = "service-type", value_name = "TYPE")]
    pub service_types: Vec<String>,
}

impl<R> Extra<R> for ServiceTypes {
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError> {
        let mut extra = Map::new();
        if !self.service_types.is_empty() {
            extra.insert("service_types".into(), json!(self.service_types));
        }
        Ok((request, extra))
    }
}

/// `categories create --show-in-app BOOL`.
#[derive(Args)]
pub struct ShowIn {
    /// Show the category in the store's mobile application (`show_in.app`).
    #[arg(long, value_name = "BOOL")]
    pub show_in_app: Option<bool>,
}

impl<R> Extra<R> for ShowIn {
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError> {
        let mut extra = Map::new();
        if let Some(app) = self.show_in_app {
            extra.insert("show_in".into(), json!({"app": app}));
        }
        Ok((request, extra))
    }
}

/// `webhooks subscribe|update`: the security strategy, its secret (never echoed, also from the
/// environment) and custom headers.
#[derive(Args)]
pub struct WebhookSecurity {
    /// How deliveries prove their origin.
    #[arg(long, value_name = "STRATEGY",
          value_parser = enum_values(crate::generated_sets::SECURITY_STRATEGY))]
    pub security_strategy: Option<String>,
    /// The secret of the security strategy (required with `signature`): --secret-file PATH or
    /// STORE_ADMIN_WEBHOOK_SECRET; never on the command line.
    #[command(flatten)]
    pub secret: crate::webhook::SecretArg,
    /// A custom header sent with each delivery, `Name: value` (repeatable; replaces `headers` of --body).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
}

impl<R> Extra<R> for WebhookSecurity {
    fn apply(self, request: R) -> Result<(R, Map<String, Value>), CliError> {
        let mut map = Map::new();
        if let Some(strategy) = self.security_strategy {
            map.insert("security_strategy".into(), Value::String(strategy));
        }
        if let Some(secret) = &self.secret.secret()? {
            map.insert(
                "secret".into(),
                Value::String(secret.expose_secret().to_string()),
            );
        }
        if !self.headers.is_empty() {
            let headers = self
                .headers
                .iter()
                .map(|h| {
                    body::header_line(h, "--header").map(|(k, v)| json!({"key": k, "value": v}))
                })
                .collect::<Result<Vec<_>, _>>()?;
            map.insert("headers".into(), Value::Array(headers));
        }
        Ok((request, map))
    }
}

/// `webhooks unsubscribe`: exactly one of `--id` and `--url`.
#[derive(Args)]
#[group(id = "target", required = true, multiple = false, args = ["id", "url"])]
pub struct UnsubscribeTarget {
    /// The id of the webhook to deactivate.
    #[arg(long, value_name = "ID")]
    pub id: Option<i64>,
    /// Deactivate every webhook registered to this URL.
    #[arg(long)]
    pub url: Option<String>,
}

impl<'a> Extra<builder::UnsubscribeWebhooks<'a>> for UnsubscribeTarget {
    fn apply(
        self,
        mut request: builder::UnsubscribeWebhooks<'a>,
    ) -> Result<(builder::UnsubscribeWebhooks<'a>, Map<String, Value>), CliError> {
        if let Some(id) = self.id {
            request = request.id(id);
        }
        if let Some(url) = self.url {
            request = request.url(url);
        }
        Ok((request, Map::new()))
    }
}

/// A period of days whose end is not before its start (`--start`, `--end`).
#[derive(Args)]
pub struct Period {
    /// First day of the period.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub start: NaiveDate,
    /// Last day of the period.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub end: NaiveDate,
}

impl<'a> Extra<builder::ListReservations<'a>> for Period {
    fn apply(
        self,
        request: builder::ListReservations<'a>,
    ) -> Result<(builder::ListReservations<'a>, Map<String, Value>), CliError> {
        if self.end < self.start {
            return Err(CliError::usage(format!(
                "--end {} is before --start {}",
                self.end, self.start
            )));
        }
        Ok((request.start(self.start).end(self.end), Map::new()))
    }
}
