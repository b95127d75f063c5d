#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod auth;
mod config;
mod delivery;
mod document;
mod drift;
mod engine;
mod error;
mod events;
mod fake;
mod faults;
mod formats;
mod http;
mod journal;
mod language;
mod laravel;
mod oauth;
mod overrides;
mod paging;
mod pattern;
mod respond;
mod rules;
mod seed;
mod server;
mod shape;
mod snapshot;
mod state;
mod store;
mod yaml;

pub use auth::{DEFAULT_TOKEN, MockToken};
pub use config::{DEFAULT_ACCESS_TOKEN_LIFETIME, DeliveryConfig, Limits, MockConfig};
pub use delivery::{DeliveryAttempt, signature};
pub use document::API_PREFIX;
pub use document::{DocumentError, openapi_to_json_schema, read_yaml};
pub use drift::{DEFAULT_PROXY_ANSWER_BYTES, ERRORS_KEPT, OperationDrift, PATHS_KEPT};
pub use error::{
    ApiError, INVALID_TOKEN_MESSAGE, MISSING_SCOPE_PREFIX, NOT_FOUND_MESSAGE, NOT_FOUND_MESSAGE_AR,
};
pub use faults::{
    ChanceFault, CorruptRecordsFault, ErrorFault, FaultConfig, FaultConfigError, LatencyFault,
    RateLimitFault, SlowBodyFault, TotalPagesFault,
};
pub use journal::{JOURNAL_CAPACITY, JournalEntry};
pub use language::{Lang, Text};
pub use oauth::{AUTHORIZE_PATH, TOKEN_PATH};
pub use paging::{DEFAULT_PER_PAGE, MAX_PER_PAGE};
pub use rules::{Rule, RuleError};
pub use server::{MockServer, StartError};
pub use snapshot::{SnapshotError, StoreSnapshot};
pub use state::RequestCounts;
