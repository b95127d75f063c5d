//! Shared by the examples: talk to the service named by `STORE_ADMIN_BASE_URL` and
//! `STORE_ADMIN_TOKEN`, or, when they are not set, to the embedded mock store on 127.0.0.1.

use store_admin::StoreAdmin;
use store_admin_mock::{MockConfig, MockServer};

/// The client, and the mock store it talks to when no real service was named (keep it alive).
pub async fn connect() -> Result<(StoreAdmin, Option<MockServer>), Box<dyn std::error::Error>> {
    if let (Ok(base_url), Ok(token)) = (
        std::env::var("STORE_ADMIN_BASE_URL"),
        std::env::var("STORE_ADMIN_TOKEN"),
    ) {
        let admin = StoreAdmin::builder()
            .with_base_url(base_url)
            .with_token(token)
            .build()?;
        return Ok((admin, None));
    }
    let server = MockServer::start(MockConfig::new().token_all_scopes("example-token")).await?;
    eprintln!(
        "(no STORE_ADMIN_BASE_URL: using the embedded mock store at {})",
        server.base_url()
    );
    let admin = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token("example-token")
        .build()?;
    Ok((admin, Some(server)))
}
