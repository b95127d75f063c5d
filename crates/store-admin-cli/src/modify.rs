//! The body of an update that changes some fields and keeps the others (`store_admin::modify`):
//! what the user gave (`--body`, converted from the read shape when it is a record as `get -o
//! json` prints it, then the flags), completed from the record as it is when a required field is
//! missing, read first. The record is read only then: a body with every required field costs no
//! read.

use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use store_admin::modify::Pairing;

use crate::body::{BodyArg, BodySpec, base_object, check_and_build, flags_object};
use crate::error::CliError;

/// Builds the typed body of `pairing`'s update: `--body` (in the write shape or the read shape),
/// the `fields` flags and `extra` over it, and, when a required field is still missing, the
/// record `read` answers (converted) under them all. The checks are [`crate::body::build`]'s.
pub async fn build<T, R>(
    arg: &BodyArg,
    fields: &impl Serialize,
    extra: Map<String, Value>,
    spec: &BodySpec,
    pairing: &Pairing,
    read: R,
) -> Result<T, CliError>
where
    T: DeserializeOwned,
    R: Future<Output = Result<Result<Value, serde_json::Error>, store_admin::Error>>,
{
    let mut given = pairing.write_shape(&base_object(arg)?);
    given.extend(flags_object(fields)?);
    given.extend(extra);
    if pairing.missing(&given).is_empty() {
        return check_and_build(given, arg, spec);
    }
    let record = match read.await? {
        Ok(Value::Object(record)) => record,
        Ok(_) | Err(_) => {
            return Err(CliError::other(format!(
                "{}: the record read is not a JSON object",
                pairing.get
            )));
        }
    };
    let mut body = pairing.body_from_record(&record);
    body.extend(given);
    check_and_build(body, arg, spec)
}
