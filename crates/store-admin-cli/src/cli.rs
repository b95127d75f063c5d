//! The command tree: global options, one command group per resource, one command per operation of
//! the document, plus `api` and the webhook receiver tools.
//!
//! The tree is written with clap's derive API over the generated builders (see the crate README for
//! why progenitor's `Generator::cli` is not used). What the document already says is not repeated:
//! [`command`] sets each operation command's `about` from the document's summary and adds its
//! `operationId`, method, path, scopes and deprecation from [`store_admin::OPERATIONS`], through the
//! [`OPERATION_COMMANDS`] table. Tests check that every operation of the document has a command and
//! that every parameter and body field of the document has a flag.

use std::num::{NonZeroU32, NonZeroU64};
use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use secrecy::SecretString;
use serde::Serialize;
use store_admin::{LIVE_BASE_URL, OperationMeta, types};
use store_admin_mock::FaultConfig;

/// Which operation each command calls: the command path (words after `store-admin`) and the
/// document's `operationId`. Every operation of the document appears exactly once.
pub const OPERATION_COMMANDS: &[(&str, &str)] = &[
    ("products quantities", "list_product_quantities"),
    ("products variant get", "get_product_variant"),
    ("products option create", "create_product_option"),
    ("orders list", "list_orders"),
    ("orders get", "get_order"),
    ("orders statuses", "list_order_statuses"),
    ("orders shipments", "list_order_shipments"),
    ("orders update-shipment", "update_order_shipment"),
    ("orders cancel-shipment", "cancel_order_shipment"),
    ("reservations list", "list_reservations"),
    ("shipments list", "list_shipments"),
    ("shipments get", "get_shipment"),
    ("shipments create", "create_shipment"),
    ("shipments update", "update_shipment"),
    ("shipments cancel", "cancel_shipment"),
    ("shipments return", "return_shipment"),
    ("shipments tracking", "get_shipment_tracking"),
    ("shipping companies list", "list_shipping_companies"),
    ("shipping companies get", "get_shipping_company"),
    ("shipping rule get", "get_shipping_rule"),
    ("shipping routes list", "list_shipping_routes"),
    ("shipping routes get", "get_shipping_route"),
    ("languages add", "add_languages"),
    ("categories create", "create_category"),
    ("webhooks list", "list_webhooks"),
    ("webhooks events", "list_webhook_events"),
    ("webhooks subscribe", "subscribe_webhook"),
    ("webhooks update", "update_webhook"),
    ("webhooks unsubscribe", "unsubscribe_webhooks"),
];

/// The command path of an operation, e.g. `shipments list` for `list_shipments`.
pub fn command_for(operation_id: &str) -> Option<&'static str> {
    OPERATION_COMMANDS
        .iter()
        .find(|(_, id)| *id == operation_id)
        .map(|(path, _)| *path)
}

/// The clap command of the whole tree, each operation command decorated from the document.
pub fn command() -> clap::Command {
    let mut root = Cli::command();
    for (path, operation_id) in OPERATION_COMMANDS {
        let Some(meta) = OperationMeta::find(operation_id) else {
            continue;
        };
        let words: Vec<&str> = path.split(' ').collect();
        root = decorate(root, &words, meta);
    }
    root
}

fn decorate(cmd: clap::Command, words: &[&str], meta: &'static OperationMeta) -> clap::Command {
    match words {
        [] => {
            let mut about = meta.summary.to_string();
            if meta.deprecated && !about.contains("replaced") {
                about.push_str(" [deprecated]");
            }
            let mut details = format!(
                "Operation: {} ({} {})\nScopes (any one): {}",
                meta.operation_id,
                meta.method,
                meta.path,
                meta.scopes.join(", ")
            );
            if let Some(new) = meta.replaced_by {
                let instead = command_for(new).unwrap_or(new);
                details.push_str(&format!(
                    "\nDeprecated: the service replaced it with {new}; use `store-admin {instead}`."
                ));
            }
            cmd.about(about).after_help(details)
        }
        [first, rest @ ..] => {
            let first = first.to_string();
            cmd.mut_subcommand(first, |sub| decorate(sub, rest, meta))
        }
    }
}

/// `store-admin`: the store administration API from the command line.
#[derive(Parser)]
#[command(
    name = "store-admin",
    version,
    about = "The store administration API (/admin/v2) from the command line.",
    long_about = "The store administration API (/admin/v2) from the command line.\n\n\
        Try it with no credentials against the embedded sandbox store:\n  \
        store-admin --sandbox orders list",
    after_help = "Exit codes: 0 success, 1 other failure (or an invalid webhook delivery), \
        2 usage, 3 the service refused the request (4xx), 4 the service was unreachable or \
        failed (5xx) after retries.",
    max_term_width = 100
)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How output is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Pretty JSON: the record, or an array of records.
    Json,
    /// One compact JSON record per line (streams with --all).
    Ndjson,
    /// Aligned columns for people (the default on a terminal).
    Table,
    /// Comma-separated values with a header line (streams with --all).
    Csv,
}

/// Options shared by every command.
#[derive(Args)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Base URL of the API, ending in /admin/v2.
    #[arg(long, env = "STORE_ADMIN_BASE_URL", hide_env_values = true, default_value = LIVE_BASE_URL,
          global = true, value_parser = parse_base_url)]
    pub base_url: String,

    /// Bearer access token (never echoed). Not needed with --sandbox.
    #[arg(long, env = "STORE_ADMIN_TOKEN", hide_env_values = true, global = true)]
    pub token: Option<SecretString>,

    /// Output format [default: table on a terminal, json otherwise].
    ///
    /// Tables escape control characters. CSV cells beginning with =, +, -, @, tab or carriage
    /// return are prefixed with ' so that spreadsheets show them as text instead of running them
    /// as formulas (OWASP's advice against CSV injection).
    #[arg(long, short = 'o', value_enum, global = true)]
    pub output: Option<Format>,

    /// Retries of a failed call (429, 5xx, broken connections) after the first attempt.
    #[arg(long, default_value_t = 4, value_name = "N", global = true)]
    pub retries: u32,

    /// Client-side rate limit in requests per minute (Plus plan 120, Pro 360, Special 720).
    #[arg(long, value_name = "PER_MINUTE", global = true)]
    pub rate_limit: Option<NonZeroU32>,

    /// Pages fetched at once by --all.
    #[arg(long, default_value_t = 4, value_name = "N", global = true,
          value_parser = clap::value_parser!(u16).range(1..=32))]
    pub concurrency: u16,

    /// Timeout of one attempt, in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS", global = true,
          value_parser = positive_seconds)]
    pub timeout: f64,

    /// Timeout of a whole call, retries included, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS", global = true,
          value_parser = positive_seconds)]
    pub operation_timeout: f64,

    /// Talk to an embedded mock store with seeded data instead of the service (no token needed).
    #[arg(long, global = true)]
    pub sandbox: bool,

    /// Faults the sandbox injects, as JSON, e.g. '{"errors":{"rate":0.1},"drop_connection":{"rate":0.05}}'
    /// (implies --sandbox).
    #[arg(long, value_name = "JSON", global = true, value_parser = parse_faults)]
    pub sandbox_faults: Option<FaultConfig>,

    /// Seed of the sandbox's data (the same seed gives the same store).
    #[arg(long, default_value_t = 1, value_name = "N", global = true)]
    pub sandbox_seed: u64,

    /// Scopes of the sandbox's token, comma-separated (default: every scope; implies --sandbox).
    #[arg(long, value_name = "S,...", value_delimiter = ',', global = true)]
    pub sandbox_scopes: Option<Vec<String>>,

    /// Log retries and calls on standard error (-vv for more).
    #[arg(long, short = 'v', action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// `--base-url`: an absolute http(s) URL with a host and no query or fragment (they would be
/// mangled by every path joined below it).
fn parse_base_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text).map_err(|e| format!("{text:?} is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the base URL must be http or https, not {}: e.g. https://api.salla.dev/admin/v2",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{text:?} has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?}: a base URL takes no query string or fragment (give the path only, ending in /admin/v2)"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a base URL takes no user name or password: use --token".to_string());
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// `--page`: a page number, from 1.
fn parse_page(text: &str) -> Result<NonZeroU64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("pages are numbered from 1".to_string()),
        Ok(n) => NonZeroU64::new(n).ok_or_else(|| "pages are numbered from 1".to_string()),
        Err(_) => Err(format!("{text:?} is not a page number (1, 2, 3, ...)")),
    }
}

fn parse_faults(text: &str) -> Result<FaultConfig, String> {
    let faults: FaultConfig = serde_json::from_str(text).map_err(|e| {
        format!("not a fault configuration ({e}); e.g. '{{\"errors\":{{\"rate\":0.1}}}}'")
    })?;
    faults.validate().map_err(|e| e.to_string())?;
    Ok(faults)
}

fn parse_method(text: &str) -> Result<http::Method, String> {
    let upper = text.to_ascii_uppercase();
    match upper.as_str() {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => {
            http::Method::from_bytes(upper.as_bytes()).map_err(|e| e.to_string())
        }
        _ => Err(format!(
            "{text:?} is not an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS)"
        )),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

/// The command groups.
#[derive(Subcommand)]
pub enum Command {
    /// Products: stock quantities, variants, options.
    #[command(subcommand)]
    Products(ProductsCommand),
    /// Orders and their statuses.
    #[command(subcommand)]
    Orders(OrdersCommand),
    /// Reservations made through orders.
    #[command(subcommand)]
    Reservations(ReservationsCommand),
    /// Shipments: list, create, update, cancel, return, track.
    #[command(subcommand)]
    Shipments(ShipmentsCommand),
    /// Shipping companies, rules and routes.
    #[command(subcommand)]
    Shipping(ShippingCommand),
    /// The store's languages.
    #[command(subcommand)]
    Languages(LanguagesCommand),
    /// Product categories.
    #[command(subcommand)]
    Categories(CategoriesCommand),
    /// Webhooks: manage subscriptions, verify and receive deliveries.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Send a request to any path of the API, like `gh api`.
    Api(ApiArgs),
}

/// Page selection of a paged list.
#[derive(Args, Debug, Clone, Copy)]
pub struct PageArgs {
    /// The page to return, from 1.
    #[arg(long, value_name = "N", conflicts_with = "all", value_parser = parse_page)]
    pub page: Option<NonZeroU64>,
    /// Items per page, 1 to 60 [default: 15, or 60 with --all].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=60))]
    pub per_page: Option<u64>,
    /// Every page, fetched concurrently, printed in order as they arrive.
    #[arg(long)]
    pub all: bool,
}

// ---------------------------------------------------------------------------------------------
// products

/// `products ...`
#[derive(Subcommand)]
pub enum ProductsCommand {
    /// List product quantities.
    Quantities(ListProductQuantitiesArgs),
    /// Product variants (SKUs).
    #[command(subcommand)]
    Variant(VariantCommand),
    /// Product options.
    #[command(subcommand)]
    Option(OptionCommand),
}

/// `products quantities`
#[derive(Args)]
pub struct ListProductQuantitiesArgs {
    /// Only the stock of this branch (branch id).
    #[arg(long, value_name = "ID")]
    pub branch: Option<i64>,
    /// Brand ids or names (comma-separated or repeated); any of them matches.
    #[arg(long, value_name = "BRAND", value_delimiter = ',')]
    pub brands: Option<Vec<String>>,
    /// Category ids or names (comma-separated or repeated); any of them matches.
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    pub categories: Option<Vec<String>>,
    /// Free text matched against product names and SKUs.
    #[arg(long)]
    pub keyword: Option<String>,
    /// Tag ids or names (comma-separated or repeated); any of them matches.
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,
    /// Page selection.
    #[command(flatten)]
    pub pages: PageArgs,
}

/// `products variant ...`
#[derive(Subcommand)]
pub enum VariantCommand {
    /// Get product variant details.
    Get {
        /// The variant (SKU) id.
        variant: String,
    },
}

/// `products option ...`
#[derive(Subcommand)]
pub enum OptionCommand {
    /// Create a product option.
    Create(CreateProductOptionArgs),
}

/// `products option create`
#[derive(Args)]
pub struct CreateProductOptionArgs {
    /// The product id.
    pub product: i64,
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: ProductOptionFields,
    /// A value of the option, `NAME` or `NAME=PRICE` (repeatable; replaces `values` of --body).
    #[arg(long = "value", value_name = "NAME[=PRICE]")]
    pub values: Vec<String>,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// Scalar body fields of `create_product_option`.
#[derive(Args, Serialize)]
pub struct ProductOptionFields {
    /// The option's name, for example `size`.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How values are displayed (`text`, `image`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_type: Option<String>,
    /// Whether the customer must choose a value.
    #[arg(long, value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// When the option is shown (`always`, `on_condition`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<String>,
    /// Id of the other option the visibility condition looks at.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility_condition_option: Option<i64>,
    /// Comparison operator of the visibility condition, for example `=`.
    #[arg(long, value_name = "OP")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility_condition_type: Option<String>,
    /// Id of the option value the visibility condition compares with.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility_condition_value: Option<i64>,
}

/// `--body FILE|-`: the request body as JSON; flags override its fields.
#[derive(Args, Debug, Clone)]
pub struct BodyArg {
    /// The request body as a JSON file (`-` for standard input); flags override its fields.
    #[arg(long, value_name = "FILE|-")]
    pub body: Option<PathBuf>,
    /// Go on when the body has fields the API document does not know (they are dropped with a
    /// warning); without it such a body is refused, as the field is usually a typo.
    #[arg(long)]
    pub allow_unknown_fields: bool,
}

// ---------------------------------------------------------------------------------------------
// orders

/// `orders ...`
#[derive(Subcommand)]
pub enum OrdersCommand {
    /// List orders.
    List(Box<ListOrdersArgs>),
    /// Get order details.
    Get {
        /// The order id.
        id: i64,
    },
    /// List order statuses.
    Statuses,
    /// List the shipments of an order (deprecated).
    Shipments {
        /// The order id.
        order_id: i64,
    },
    /// Update the shipment of an order (deprecated).
    UpdateShipment(Box<UpdateOrderShipmentArgs>),
    /// Cancel the shipment of an order (deprecated).
    CancelShipment {
        /// The order id.
        order_id: i64,
    },
}

/// `orders list`
#[derive(Args)]
pub struct ListOrdersArgs {
    /// Only orders assigned to one of these employees (ids, comma-separated or repeated).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub assign_employee: Option<Vec<i64>>,
    /// Only orders of these branches (ids).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub branch: Option<Vec<i64>>,
    /// Only orders shipped to this city.
    #[arg(long)]
    pub city: Option<String>,
    /// Only orders shipped to this country (name or code).
    #[arg(long, value_name = "ID")]
    pub country: Option<i64>,
    /// Only orders that used this discount code.
    #[arg(long)]
    pub coupon: Option<String>,
    /// Only orders created by this employee (id).
    #[arg(long, value_name = "ID")]
    pub created_by: Option<i64>,
    /// Only orders of this customer.
    #[arg(long, value_name = "ID")]
    pub customer_id: Option<i64>,
    /// Return each order with its full details (deprecated by the service).
    #[arg(long, value_name = "BOOL")]
    pub expanded: Option<bool>,
    /// Only orders created on or after this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub from_date: Option<chrono::NaiveDate>,
    /// Free text search (a tag name, a shipping number...).
    #[arg(long)]
    pub keyword: Option<String>,
    /// Only orders paid with this method (`bank`, `cod`, `mada`...).
    #[arg(long, value_delimiter = ',')]
    pub payment_method: Option<Vec<String>>,
    /// Only orders containing a product with this name.
    #[arg(long)]
    pub product: Option<String>,
    /// Only the order with this reference number.
    #[arg(long, value_name = "N")]
    pub reference_id: Option<i64>,
    /// Only orders sold through this channel.
    #[arg(long, value_delimiter = ',')]
    pub selling_channel: Option<Vec<String>>,
    /// Only orders shipped through these shipping applications (ids).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub shipping_app_id: Option<Vec<i64>>,
    /// Sort order, `<attribute>-asc` or `<attribute>-desc`.
    #[arg(long, value_name = "ORDER")]
    pub sort_by: Option<String>,
    /// Only orders from this source (`store`, `dashboard`, `api`...).
    #[arg(long, value_delimiter = ',')]
    pub source: Option<Vec<String>>,
    /// Only orders whose status id is one of these (see `orders statuses`).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub status: Option<Vec<i64>>,
    /// Only orders carrying one of these tags (ids).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub tags: Option<Vec<i64>>,
    /// Only orders created on or before this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub to_date: Option<chrono::NaiveDate>,
    /// Only orders the store owner has not opened yet.
    #[arg(long, value_name = "BOOL")]
    pub unread: Option<bool>,
    /// Only orders sent to this accounting service (`qoyod`, `daftra`, `zoho_books`).
    #[arg(long, value_name = "SERVICE")]
    pub accounting_services: Option<String>,
    /// Page selection.
    #[command(flatten)]
    pub pages: PageArgs,
}

/// `orders update-shipment`
#[derive(Args)]
pub struct UpdateOrderShipmentArgs {
    /// The order id.
    pub order_id: i64,
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: ShipmentUpdateFields,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// Scalar body fields of `update_shipment` and `update_order_shipment`.
#[derive(Args, Serialize)]
pub struct ShipmentUpdateFields {
    /// The shipping company's number for the shipment.
    #[arg(long, value_name = "NUMBER")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment_number: Option<String>,
    /// The new status slug (`in_transit`, `delivered`...).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// A note about the status change, kept in the history.
    #[arg(long, value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_note: Option<String>,
    /// The tracking number.
    #[arg(long, value_name = "NUMBER")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_number: Option<String>,
    /// Address of the tracking page.
    #[arg(long, value_name = "URL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_link: Option<String>,
    /// Address of the label PDF.
    #[arg(long, value_name = "URL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pdf_label: Option<String>,
    /// What the shipment costs the merchant.
    #[arg(long, value_name = "AMOUNT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Name of the carrier actually delivering.
    #[arg(long, value_name = "NAME")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_company_name: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// reservations

/// `reservations ...`
#[derive(Subcommand)]
pub enum ReservationsCommand {
    /// List order reservations.
    List {
        /// First day of the period.
        #[arg(long, value_name = "YYYY-MM-DD")]
        start: chrono::NaiveDate,
        /// Last day of the period.
        #[arg(long, value_name = "YYYY-MM-DD")]
        end: chrono::NaiveDate,
    },
}

// ---------------------------------------------------------------------------------------------
// shipments

/// `shipments ...`
#[derive(Subcommand)]
pub enum ShipmentsCommand {
    /// List shipments.
    List(ListShipmentsArgs),
    /// Get shipment details.
    Get {
        /// The shipment id.
        shipment_id: i64,
    },
    /// Create a shipment.
    Create(Box<CreateShipmentArgs>),
    /// Update a shipment.
    Update(UpdateShipmentArgs),
    /// Cancel a shipment.
    Cancel {
        /// The shipment id.
        shipment_id: i64,
    },
    /// Return a shipment.
    Return {
        /// The shipment id.
        shipment_id: i64,
    },
    /// Get shipment tracking.
    Tracking {
        /// The shipment id.
        shipment_id: i64,
    },
}

/// `shipments list`
#[derive(Args)]
pub struct ListShipmentsArgs {
    /// Only the shipments of the shipping company with this slug (e.g. `dhl-express`).
    #[arg(long, value_name = "SLUG")]
    pub courier_slug: Option<String>,
    /// Only the shipments of this order.
    #[arg(long, value_name = "ID")]
    pub order_id: Option<i64>,
    /// Only shipments in this status.
    #[arg(long)]
    pub status: Option<String>,
    /// Page selection.
    #[command(flatten)]
    pub pages: PageArgs,
}

/// `shipments create`
#[derive(Args)]
pub struct CreateShipmentArgs {
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: CreateShipmentFields,
    /// A service type (repeatable; replaces `service_types` of --body).
    #[arg(long = "service-type", value_name = "TYPE")]
    pub service_types: Vec<String>,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// Scalar body fields of `create_shipment`; `packages`, `ship_from`, `ship_to`, `cash_on_delivery`
/// and `policy_options` come from --body.
#[derive(Args, Serialize)]
pub struct CreateShipmentFields {
    /// The shipping company id (see `shipping companies list`).
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub courier_id: Option<i64>,
    /// `shipment` to send to the customer, `return` to bring items back.
    #[arg(long, value_name = "TYPE",
          value_parser = enum_values::<types::CreateShipmentRequestShipmentType>())]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipment_type: Option<String>,
    /// `cod` (cash on delivery) or `pre_paid`.
    #[arg(long, value_name = "METHOD",
          value_parser = enum_values::<types::CreateShipmentRequestPaymentMethod>())]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment_method: Option<String>,
    /// The order to ship.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_id: Option<i64>,
    /// What the shipment contains.
    #[arg(long, value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Instructions for the courier.
    #[arg(long, value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remarks: Option<String>,
    /// The shipment's id at the shipping company.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// A second id at the shipping company.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_additional_id: Option<String>,
    /// Name of the carrier actually delivering.
    #[arg(long, value_name = "NAME")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_company_name: Option<String>,
    /// Replace a pending shipment of the same order instead of failing.
    #[arg(long, value_name = "BOOL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overwrite_exists_pending: Option<bool>,
}

/// `shipments update`
#[derive(Args)]
pub struct UpdateShipmentArgs {
    /// The shipment id.
    pub shipment_id: i64,
    /// The order shipped.
    #[arg(long, value_name = "ID")]
    pub order_id: Option<i64>,
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: ShipmentUpdateFields,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

// ---------------------------------------------------------------------------------------------
// shipping

/// `shipping ...`
#[derive(Subcommand)]
pub enum ShippingCommand {
    /// Shipping companies.
    #[command(subcommand)]
    Companies(CompaniesCommand),
    /// Shipping rules.
    #[command(subcommand)]
    Rule(RuleCommand),
    /// Shipping routes.
    #[command(subcommand)]
    Routes(RoutesCommand),
}

/// `shipping companies ...`
#[derive(Subcommand)]
pub enum CompaniesCommand {
    /// List shipping companies.
    List,
    /// Get shipping company details.
    Get {
        /// The shipping company id.
        company_id: i64,
    },
}

/// `shipping rule ...`
#[derive(Subcommand)]
pub enum RuleCommand {
    /// Get shipping rule details.
    Get {
        /// The shipping rule id.
        rule_id: i64,
    },
}

/// `shipping routes ...`
#[derive(Subcommand)]
pub enum RoutesCommand {
    /// List shipping routes.
    List {
        /// Page selection.
        #[command(flatten)]
        pages: PageArgs,
    },
    /// Get shipping route details.
    Get {
        /// The shipping route id.
        route_id: i64,
    },
}

// ---------------------------------------------------------------------------------------------
// languages, categories

/// `languages ...`
#[derive(Subcommand)]
pub enum LanguagesCommand {
    /// Add languages.
    Add(AddLanguagesArgs),
}

/// `languages add`
#[derive(Args)]
pub struct AddLanguagesArgs {
    /// ISO code of a language to add, e.g. `fr` (repeatable; replaces `locales` of --body).
    #[arg(long = "locale", value_name = "ISO_CODE")]
    pub locales: Vec<String>,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// `categories ...`
#[derive(Subcommand)]
pub enum CategoriesCommand {
    /// Create a category.
    Create(CreateCategoryArgs),
}

/// `categories create`
#[derive(Args)]
pub struct CreateCategoryArgs {
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: CategoryFields,
    /// Show the category in the store's mobile application (`show_in.app`).
    #[arg(long, value_name = "BOOL")]
    pub show_in_app: Option<bool>,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// Scalar body fields of `create_category`.
#[derive(Args, Serialize)]
pub struct CategoryFields {
    /// The category name.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The parent category id, for a sub-category.
    #[arg(long, value_name = "ID")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<i64>,
    /// The visibility, `active` or `hidden`.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Address of the category image.
    #[arg(long, value_name = "URL")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The page title for search engines.
    #[arg(long, value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_title: Option<String>,
    /// The page description for search engines.
    #[arg(long, value_name = "TEXT")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_description: Option<String>,
    /// The page's address slug.
    #[arg(long, value_name = "SLUG")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_url: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// webhooks

/// `webhooks ...`
#[derive(Subcommand)]
pub enum WebhooksCommand {
    /// List active webhooks.
    List {
        /// Page selection.
        #[command(flatten)]
        pages: PageArgs,
    },
    /// List webhook events.
    Events,
    /// Register a webhook.
    Subscribe(SubscribeWebhookArgs),
    /// Update a webhook.
    Update(UpdateWebhookArgs),
    /// Deactivate webhooks.
    Unsubscribe(UnsubscribeArgs),
    /// Check the signature of a delivery (headers and raw body) with the webhook's secret.
    Verify(VerifyArgs),
    /// Run a receiver that verifies each delivery and prints its event.
    Listen(ListenArgs),
}

/// `webhooks subscribe`
#[derive(Args)]
pub struct SubscribeWebhookArgs {
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: WebhookFields,
    /// Body fields that need more than a scalar flag.
    #[command(flatten)]
    pub extra: WebhookExtra,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// `webhooks update`
#[derive(Args)]
pub struct UpdateWebhookArgs {
    /// The webhook id.
    pub id: i64,
    /// Body fields as flags.
    #[command(flatten)]
    pub fields: WebhookFields,
    /// Body fields that need more than a scalar flag.
    #[command(flatten)]
    pub extra: WebhookExtra,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
}

/// Scalar body fields of `subscribe_webhook` and `update_webhook`.
#[derive(Args, Serialize)]
pub struct WebhookFields {
    /// A name for people.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The event to subscribe to (see `webhooks events`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Where to send the event.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The webhook version, 2 (the default) or 1.
    #[arg(long, value_name = "N")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<NonZeroU64>,
    /// A condition on the event data (version 2), e.g. "status = `active`".
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// How deliveries prove their origin.
    #[arg(long, value_name = "STRATEGY",
          value_parser = enum_values::<types::SecurityStrategyInner>())]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_strategy: Option<String>,
}

/// Webhook body fields that need more than a scalar flag.
#[derive(Args)]
pub struct WebhookExtra {
    /// The secret of the security strategy (never echoed; required with `signature`).
    #[arg(long, env = "STORE_ADMIN_WEBHOOK_SECRET", hide_env_values = true)]
    pub secret: Option<SecretString>,
    /// A custom header sent with each delivery, `Name: value` (repeatable; replaces `headers` of --body).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
}

/// `webhooks unsubscribe`
#[derive(Args)]
#[group(id = "target", required = true, multiple = false, args = ["id", "url"])]
pub struct UnsubscribeArgs {
    /// The id of the webhook to deactivate.
    #[arg(long, value_name = "ID")]
    pub id: Option<i64>,
    /// Deactivate every webhook registered to this URL.
    #[arg(long)]
    pub url: Option<String>,
}

/// `webhooks verify`
#[derive(Args)]
pub struct VerifyArgs {
    /// The webhook's secret (never echoed).
    #[arg(long, env = "STORE_ADMIN_WEBHOOK_SECRET", hide_env_values = true)]
    pub secret: SecretString,
    /// A file of the delivery's headers, one `Name: value` a line (a request line is skipped).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    pub headers: Option<PathBuf>,
    /// A header of the delivery, `Name: value` (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME: VALUE",
        conflicts_with = "request"
    )]
    pub header: Vec<String>,
    /// The delivery's raw body, byte for byte (`-` for standard input).
    #[arg(long, value_name = "FILE|-", required_unless_present = "request")]
    pub body: Option<PathBuf>,
    /// The whole delivery as received: headers, a blank line, the raw body (`-` for standard input).
    #[arg(long, value_name = "FILE|-", conflicts_with = "body")]
    pub request: Option<PathBuf>,
}

/// `webhooks listen`
#[derive(Args)]
pub struct ListenArgs {
    /// The port to listen on (0 picks a free one, printed on standard error).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// The webhook's secret (never echoed).
    #[arg(long, env = "STORE_ADMIN_WEBHOOK_SECRET", hide_env_values = true)]
    pub secret: SecretString,
    /// Stop after this many valid deliveries.
    #[arg(long, value_name = "N")]
    pub max_events: Option<NonZeroU64>,
}

// ---------------------------------------------------------------------------------------------
// api

/// `api METHOD PATH`
#[derive(Args)]
#[command(after_help = "Examples:\n  \
    store-admin --sandbox api GET /orders -f per_page=5\n  \
    store-admin --sandbox api POST /languages --body langs.json\n  \
    store-admin --sandbox api DELETE /webhooks/unsubscribe -f id=7")]
pub struct ApiArgs {
    /// The HTTP method.
    #[arg(value_parser = parse_method)]
    pub method: http::Method,
    /// The path below the base URL, e.g. `/orders?per_page=5` or `/shipments/12`.
    pub path: String,
    /// A field `key=value`: a query parameter for GET and DELETE, else a JSON body field; the
    /// value is read as JSON when it parses (numbers, true, false, null, arrays), else as text.
    #[arg(long = "field", short = 'f', value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// A field `key=value` whose value is always text.
    #[arg(long = "raw-field", short = 'F', value_name = "KEY=VALUE")]
    pub raw_fields: Vec<String>,
    /// The body as a JSON file.
    #[command(flatten)]
    pub body: BodyArg,
    /// Print the response status line and headers on standard error.
    #[arg(long, short = 'i')]
    pub include: bool,
}

/// The values of a generated string enum, read from its JSON schema, as clap's possible values.
pub fn enum_values<T: schemars::JsonSchema>() -> PossibleValuesParser {
    let schema = schemars::schema_for!(T);
    let values: Vec<String> = schema
        .schema
        .enum_values
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    PossibleValuesParser::new(values)
}
