//! One function per command group: flags onto the generated builders, the response to the printer.

use std::num::NonZeroU64;

use serde_json::{Map, Value, json};
use store_admin::prelude::*;
use store_admin::{PageOptions, Paginate, StoreAdmin, types};

use crate::body;
use crate::cli::*;
use crate::error::CliError;
use crate::output::{Printer, Record, stderr_is_terminal};

/// What every command needs: the client, the printer and the paging settings.
pub struct Ctx {
    /// The client (to the service or the sandbox).
    pub admin: StoreAdmin,
    /// Where records go.
    pub printer: Printer,
    /// Pages fetched at once by `--all`.
    pub concurrency: usize,
}

/// Sets each builder parameter whose flag was given.
macro_rules! set {
    ($request:ident, $($name:ident = $value:expr),* $(,)?) => {
        $(
            if let Some(value) = $value {
                $request = $request.$name(value);
            }
        )*
    };
}

/// A paged list: one page (as asked), or with `--all` every page through the ergonomics crate's
/// concurrent pagination, streamed to the printer.
async fn paged<'a, R>(ctx: &'a Ctx, request: R, pages: PageArgs) -> Result<(), CliError>
where
    R: Paginate<'a>,
    R::Item: Record,
{
    if pages.all {
        let options = PageOptions::default()
            .per_page(pages.per_page.unwrap_or(60))
            .concurrency(ctx.concurrency);
        ctx.printer.stream(request.pages(options)).await?;
        return Ok(());
    }
    let mut request = request;
    if let Some(page) = pages.page {
        request = request.with_page(page);
    }
    if let Some(per_page) = pages.per_page.and_then(NonZeroU64::new) {
        request = request.with_per_page(per_page);
    }
    let response = request.send_page().await?;
    let parts = R::into_parts(response.into_inner());
    ctx.printer.list(&parts.items)?;
    if let Some(p) = parts.pagination
        && stderr_is_terminal()
        && p.total_pages > 1
    {
        eprintln!(
            "page {} of {} ({} records in all); --page N for another page, --all for every page",
            p.current_page, p.total_pages, p.total
        );
    }
    Ok(())
}

/// `products ...`
pub async fn products(ctx: &Ctx, command: ProductsCommand) -> Result<(), CliError> {
    let admin = &ctx.admin;
    match command {
        ProductsCommand::Quantities(a) => {
            let mut request = admin.list_product_quantities();
            set!(
                request,
                branch = a.branch,
                brands = a.brands,
                categories = a.categories,
                keyword = a.keyword,
                tags = a.tags,
            );
            paged(ctx, request, a.pages).await
        }
        ProductsCommand::Variant(VariantCommand::Get { variant }) => {
            let response = admin.get_product_variant().variant(variant).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        ProductsCommand::Option(OptionCommand::Create(a)) => {
            let mut extra = Map::new();
            if !a.values.is_empty() {
                let values: Vec<Value> = a
                    .values
                    .iter()
                    .map(|v| match v.split_once('=') {
                        Some((name, price)) => json!({"name": name, "price": price}),
                        None => json!({"name": v}),
                    })
                    .collect();
                extra.insert("values".into(), Value::Array(values));
            }
            let body: types::CreateProductOptionRequest = body::build(&a.body, &a.fields, extra)?;
            let response = admin
                .create_product_option()
                .product(a.product)
                .body(body)
                .send()
                .await?;
            ctx.printer.one(&response.into_inner().data)
        }
    }
}

/// `orders ...`
pub async fn orders(ctx: &Ctx, command: OrdersCommand) -> Result<(), CliError> {
    let admin = &ctx.admin;
    match command {
        OrdersCommand::List(a) => {
            let a = *a;
            let mut request = admin.list_orders();
            let payment_method = a.payment_method.map(|v| {
                v.into_iter()
                    .map(types::OrderPaymentMethod::from)
                    .collect::<Vec<_>>()
            });
            let source = a.source.map(|v| {
                v.into_iter()
                    .map(types::OrderSource::from)
                    .collect::<Vec<_>>()
            });
            let selling_channel: Option<Vec<types::ListOrdersSellingChannelItem>> = a
                .selling_channel
                .map(|v| serde_json::from_value(Value::from(v)))
                .transpose()
                .map_err(|e| CliError::usage(format!("--selling-channel: {e}")))?;
            let accounting_services: Option<types::ListOrdersAccountingServices> = a
                .accounting_services
                .map(|v| serde_json::from_value(Value::from(v)))
                .transpose()
                .map_err(|e| CliError::usage(format!("--accounting-services: {e}")))?;
            set!(
                request,
                assign_employee = a.assign_employee,
                branch = a.branch,
                city = a.city,
                country = a.country,
                coupon = a.coupon,
                created_by = a.created_by,
                customer_id = a.customer_id,
                expanded = a.expanded,
                from_date = a.from_date,
                keyword = a.keyword,
                payment_method = payment_method,
                product = a.product,
                reference_id = a.reference_id,
                selling_channel = selling_channel,
                shipping_app_id = a.shipping_app_id,
                sort_by = a.sort_by,
                source = source,
                status = a.status,
                tags = a.tags,
                to_date = a.to_date,
                unread = a.unread,
                accounting_services = accounting_services,
            );
            paged(ctx, request, a.pages).await
        }
        OrdersCommand::Get { id } => {
            let response = admin.get_order().order_id(id).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        OrdersCommand::Statuses => {
            let response = admin.list_order_statuses().send().await?;
            ctx.printer.list(&response.into_inner().data)
        }
        // The replaced operations stay reachable (with a warning printed to the user).
        #[allow(deprecated)]
        OrdersCommand::Shipments { order_id } => {
            let response = admin
                .list_order_shipments()
                .order_id(order_id)
                .send()
                .await?;
            ctx.printer.list(&response.into_inner().data)
        }
        // The replaced operations stay reachable (with a warning printed to the user).
        #[allow(deprecated)]
        OrdersCommand::UpdateShipment(a) => {
            let body: types::UpdateShipmentRequest = body::build(&a.body, &a.fields, Map::new())?;
            let response = admin
                .update_order_shipment()
                .order_id(a.order_id)
                .body(body)
                .send()
                .await?;
            ctx.printer.one(&response.into_inner().data)
        }
        // The replaced operations stay reachable (with a warning printed to the user).
        #[allow(deprecated)]
        OrdersCommand::CancelShipment { order_id } => {
            let response = admin
                .cancel_order_shipment()
                .order_id(order_id)
                .send()
                .await?;
            ctx.printer.one(&response.into_inner().data)
        }
    }
}

/// `reservations ...`
pub async fn reservations(ctx: &Ctx, command: ReservationsCommand) -> Result<(), CliError> {
    match command {
        ReservationsCommand::List { start, end } => {
            if end < start {
                return Err(CliError::usage(format!(
                    "--end {end} is before --start {start}"
                )));
            }
            let response = ctx
                .admin
                .list_reservations()
                .start(start)
                .end(end)
                .send()
                .await?;
            ctx.printer.list(&response.into_inner().data)
        }
    }
}

/// `shipments ...`
pub async fn shipments(ctx: &Ctx, command: ShipmentsCommand) -> Result<(), CliError> {
    let admin = &ctx.admin;
    let shipment = match command {
        ShipmentsCommand::List(a) => {
            let mut request = admin.list_shipments();
            set!(
                request,
                courier_slug = a.courier_slug,
                order_id = a.order_id,
                status = a.status,
            );
            return paged(ctx, request, a.pages).await;
        }
        ShipmentsCommand::Tracking { shipment_id } => {
            let response = admin
                .get_shipment_tracking()
                .shipment_id(shipment_id)
                .send()
                .await?;
            return ctx.printer.one(&response.into_inner().data);
        }
        ShipmentsCommand::Get { shipment_id } => {
            admin.get_shipment().shipment_id(shipment_id).send().await?
        }
        ShipmentsCommand::Create(a) => {
            let mut extra = Map::new();
            if !a.service_types.is_empty() {
                extra.insert("service_types".into(), json!(a.service_types));
            }
            let body: types::CreateShipmentRequest = body::build(&a.body, &a.fields, extra)?;
            admin.create_shipment().body(body).send().await?
        }
        ShipmentsCommand::Update(a) => {
            let mut extra = Map::new();
            if let Some(order_id) = a.order_id {
                extra.insert("order_id".into(), json!(order_id));
            }
            let body: types::UpdateShipmentRequest = body::build(&a.body, &a.fields, extra)?;
            admin
                .update_shipment()
                .shipment_id(a.shipment_id)
                .body(body)
                .send()
                .await?
        }
        ShipmentsCommand::Cancel { shipment_id } => {
            admin
                .cancel_shipment()
                .shipment_id(shipment_id)
                .send()
                .await?
        }
        ShipmentsCommand::Return { shipment_id } => {
            admin
                .return_shipment()
                .shipment_id(shipment_id)
                .send()
                .await?
        }
    };
    ctx.printer.one(&shipment.into_inner().data)
}

/// `shipping ...`
pub async fn shipping(ctx: &Ctx, command: ShippingCommand) -> Result<(), CliError> {
    let admin = &ctx.admin;
    match command {
        ShippingCommand::Companies(CompaniesCommand::List) => {
            let response = admin.list_shipping_companies().send().await?;
            ctx.printer.list(&response.into_inner().data)
        }
        ShippingCommand::Companies(CompaniesCommand::Get { company_id }) => {
            let response = admin
                .get_shipping_company()
                .company_id(company_id)
                .send()
                .await?;
            ctx.printer.one(&response.into_inner().data)
        }
        ShippingCommand::Rule(RuleCommand::Get { rule_id }) => {
            let response = admin.get_shipping_rule().rule_id(rule_id).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        ShippingCommand::Routes(RoutesCommand::List { pages }) => {
            paged(ctx, admin.list_shipping_routes(), pages).await
        }
        ShippingCommand::Routes(RoutesCommand::Get { route_id }) => {
            let response = admin.get_shipping_route().route_id(route_id).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
    }
}

/// `languages ...`
pub async fn languages(ctx: &Ctx, command: LanguagesCommand) -> Result<(), CliError> {
    match command {
        LanguagesCommand::Add(a) => {
            let mut extra = Map::new();
            if !a.locales.is_empty() {
                let locales: Vec<Value> = a
                    .locales
                    .iter()
                    .map(|iso| json!({"iso_code": iso}))
                    .collect();
                extra.insert("locales".into(), Value::Array(locales));
            }
            let body: types::AddLanguagesRequest = body::build(&a.body, &NoFields {}, extra)?;
            let response = ctx.admin.add_languages().body(body).send().await?;
            ctx.printer.list(&response.into_inner().data)
        }
    }
}

#[derive(serde::Serialize)]
struct NoFields {}

/// `categories ...`
pub async fn categories(ctx: &Ctx, command: CategoriesCommand) -> Result<(), CliError> {
    match command {
        CategoriesCommand::Create(a) => {
            let mut extra = Map::new();
            if let Some(app) = a.show_in_app {
                extra.insert("show_in".into(), json!({"app": app}));
            }
            let body: types::CreateCategoryRequest = body::build(&a.body, &a.fields, extra)?;
            let response = ctx.admin.create_category().body(body).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
    }
}

fn webhook_extra(extra: &WebhookExtra) -> Result<Map<String, Value>, CliError> {
    use secrecy::ExposeSecret;
    let mut map = Map::new();
    if let Some(secret) = &extra.secret {
        map.insert(
            "secret".into(),
            Value::String(secret.expose_secret().to_string()),
        );
    }
    if !extra.headers.is_empty() {
        let headers = extra
            .headers
            .iter()
            .map(|h| body::header_line(h, "--header").map(|(k, v)| json!({"key": k, "value": v})))
            .collect::<Result<Vec<_>, _>>()?;
        map.insert("headers".into(), Value::Array(headers));
    }
    Ok(map)
}

/// `webhooks list|events|subscribe|update|unsubscribe` (verify and listen need no client).
pub async fn webhooks(ctx: &Ctx, command: WebhooksCommand) -> Result<(), CliError> {
    let admin = &ctx.admin;
    match command {
        WebhooksCommand::List { pages } => paged(ctx, admin.list_webhooks(), pages).await,
        WebhooksCommand::Events => {
            let response = admin.list_webhook_events().send().await?;
            ctx.printer.list(&response.into_inner().data)
        }
        WebhooksCommand::Subscribe(a) => {
            let body: types::SubscribeWebhookRequest =
                body::build(&a.body, &a.fields, webhook_extra(&a.extra)?)?;
            let response = admin.subscribe_webhook().body(body).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        WebhooksCommand::Update(a) => {
            let body: types::UpdateWebhookRequest =
                body::build(&a.body, &a.fields, webhook_extra(&a.extra)?)?;
            let response = admin.update_webhook().id(a.id).body(body).send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        WebhooksCommand::Unsubscribe(a) => {
            let mut request = admin.unsubscribe_webhooks();
            set!(request, id = a.id, url = a.url);
            let response = request.send().await?;
            ctx.printer.one(&response.into_inner().data)
        }
        WebhooksCommand::Verify(_) | WebhooksCommand::Listen(_) => Err(CliError::other(
            "internal: webhooks verify and listen run without a client",
        )),
    }
}
