#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod app;
mod config;
mod delivery;
mod error;
mod faults;
mod model;
mod oauth;
mod paging;
mod routes;
mod rules;
mod server;
mod store;
mod validate;
pub use validate::openapi_to_json_schema;

pub use app::API_PREFIX;
pub use config::{ALL_SCOPES, DEFAULT_TOKEN, DeliveryConfig, MockConfig, MockToken};
pub use delivery::{DeliveryAttempt, signature};
pub use error::{ApiError, INVALID_TOKEN_MESSAGE, MISSING_SCOPE_PREFIX, NOT_FOUND_MESSAGE};
pub use faults::{
    ChanceFault, ErrorFault, FaultConfig, FaultConfigError, LatencyFault, RateLimitFault,
    SlowBodyFault,
};
pub use oauth::{DEFAULT_ACCESS_TOKEN_LIFETIME, TOKEN_PATH};
pub use paging::{DEFAULT_PER_PAGE, MAX_PER_PAGE};
pub use routes::IMPLEMENTED;
pub use rules::{Rule, RuleError};
pub use server::{MockServer, StartError};
