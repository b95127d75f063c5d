//! Rendering the generated client: progenitor over the document (whole for a fixture, split by
//! area for the client), the item-level passes of [`crate::rewrite`], the `Operation` and
//! `PagedRequest` impls, and the facade's table of operations. [`crate::generate`] decides what is
//! rendered and writes it.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use openapiv3::{OpenAPI, Operation};
use proc_macro2::TokenStream;
use progenitor::{GenerationSettings, Generator, HooksMode, InterfaceStyle, TagStyle};
use quote::quote;

use crate::areas::{self, AREAS, area_dir};
use crate::document::{Document, code_header, header, part_header};
use crate::hand_written::{self, HandWritten};
use crate::model::{
    CORE_DIR, OPERATIONS, OperationMeta, Output, PagedOperation, generated_file, operation_table,
    paged_operations,
};
use crate::names::type_name;
use crate::{additive, lint, rewrite, setters, split};

/// Which crate a document is generated for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// The client's core: `Inner` handle and hooks that its `lib.rs` implements.
    Core,
    /// An area of the client: the same, named from outside the core.
    Area,
    /// A fixture: progenitor's defaults for the inner type and hooks, so it compiles alone.
    Fixture,
}

/// The progenitor settings used for a flavor.
pub fn settings(flavor: Flavor) -> GenerationSettings {
    let mut settings = GenerationSettings::new();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_derive("schemars::JsonSchema")
        .with_derive("PartialEq")
        .with_map_type("::std::collections::BTreeMap");
    match flavor {
        Flavor::Core => {
            settings
                .with_hooks(HooksMode::Expected)
                .with_inner_type(quote!(crate::Inner));
        }
        Flavor::Area => {
            settings
                .with_hooks(HooksMode::Expected)
                .with_inner_type(quote!(::store_admin_client_core::Inner));
        }
        Flavor::Fixture => {}
    }
    settings
}

/// Generated client code for a fixture document: header, then progenitor's output through
/// prettyplease, deprecated operations marked.
pub fn render_client(doc: &Document, flavor: Flavor, progenitor_version: &str) -> Result<String> {
    let tokens = generate_tokens(&doc.spec, &settings(flavor))
        .with_context(|| format!("generating from {}", doc.rel_path))?;
    let mut file: syn::File = syn::parse2(tokens)
        .with_context(|| format!("progenitor's output for {} does not parse", doc.rel_path))?;
    rewrite::mark_deprecated(&mut file, &operation_table(&doc.spec));
    Ok(format!(
        "{}// progenitor {progenitor_version}\n\n{}",
        header(doc),
        prettyplease::unparse(&file)
    ))
}

/// The type names of the schemas a request body reaches: the only types whose struct builders
/// anyone uses (the operation builders' `body_map`, code that builds a body).
pub fn request_types(doc: &Document) -> BTreeSet<String> {
    let mut roots = Vec::new();
    for (pointer, _, _, op) in lint::operations(&doc.spec) {
        if op.request_body.is_some() {
            roots.push(format!("{pointer}/requestBody"));
        }
    }
    split::reached_schemas(&doc.raw, &roots)
        .iter()
        .map(|s| type_name(s))
        .collect()
}

/// The type names of the schemas an answer, a parameter or a webhook event reaches: what the
/// client reads. A request type outside this set is only ever sent (see
/// [`rewrite::optional_without_default`]).
pub fn answer_types(doc: &Document) -> BTreeSet<String> {
    let mut roots = Vec::new();
    for (pointer, path, _, _) in lint::operations(&doc.spec) {
        roots.push(format!("{pointer}/responses"));
        roots.push(format!("{pointer}/parameters"));
        roots.push(format!("/paths/{}/parameters", lint::escape(path)));
    }
    for name in split::FORCED_CORE {
        roots.push(format!("/components/schemas/{name}"));
    }
    if let Some(schemas) = doc
        .raw
        .pointer("/components/schemas")
        .and_then(serde_json::Value::as_object)
    {
        for (name, schema) in schemas {
            if schema.get("x-webhook-events").is_some() {
                roots.push(format!("/components/schemas/{}", lint::escape(name)));
            }
        }
    }
    split::reached_schemas(&doc.raw, &roots)
        .iter()
        .map(|s| type_name(s))
        .collect()
}

/// The type names of the envelopes that a create answers (a `POST`'s 2xx), whose `data` is a
/// record that requires its `id` alone: the service documents create answers without the new
/// record's `id` (see `lenient::Created`).
pub fn created_envelopes(doc: &Document) -> BTreeSet<String> {
    use crate::document::Raw;
    use serde_json::Value;
    let raw = Raw(&doc.raw);
    let mut out = BTreeSet::new();
    for (pointer, _, method, _) in lint::operations(&doc.spec) {
        if method != "post" {
            continue;
        }
        let Some(responses) = doc
            .raw
            .pointer(&format!("{pointer}/responses"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (status, response) in responses {
            if !status.starts_with('2') {
                continue;
            }
            let response = raw.resolve(response);
            let Some(contents) = response.get("content").and_then(Value::as_object) else {
                continue;
            };
            for media in contents.values() {
                let Some(envelope) = media.get("schema") else {
                    continue;
                };
                let Some(name) = Raw::ref_name(envelope) else {
                    continue;
                };
                let Some(data) = raw.resolve(envelope).pointer("/properties/data") else {
                    continue;
                };
                let required = required_with_all_of(&raw, raw.resolve(data), 0);
                if required == ["id"] {
                    out.insert(type_name(&name));
                }
            }
        }
    }
    out
}

/// The names a schema requires, its `allOf` members' included (a record made of two), sorted.
fn required_with_all_of(
    raw: &crate::document::Raw<'_>,
    schema: &serde_json::Value,
    depth: usize,
) -> Vec<String> {
    let mut names: Vec<String> = crate::schema::required(schema).map(str::to_owned).collect();
    if depth < 8 {
        for member in schema
            .get("allOf")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            names.extend(required_with_all_of(raw, raw.resolve(member), depth + 1));
        }
    }
    names.sort();
    names.dedup();
    names
}

/// What every area's generation needs to know of the core and of the document.
struct Shared<'a> {
    doc: &'a Document,
    split: &'a split::Split,
    progenitor_version: &'a str,
    operations: &'a [OperationMeta],
    paged: &'a [PagedOperation],
    keep_builders: &'a BTreeSet<String>,
    /// The core's types, by name, with the traits each implements.
    core_types: &'a BTreeSet<String>,
    core_impls: &'a std::collections::BTreeMap<String, Vec<progenitor::TypeImpl>>,
    /// The core's records and text types (what the lenient pass reads).
    core_shapes: &'a rewrite::Shapes,
    /// The core's amounts, amount records and open value sets (what the setters convert into).
    core_kinds: &'a setters::Kinds,
}

/// The client split by area: the core's and each area's `generated.rs`, and the facade's
/// `generated_operations.rs`. The areas are generated in parallel: each needs only the core and
/// its own part of the document (an area's schemas reach no other area's).
pub fn render_split(doc: &Document, progenitor_version: &str) -> Result<Vec<Output>> {
    let mut laps = Laps::new();
    let hand = hand_written::hand_written(&doc.spec);
    let split = split::split(&doc.spec, &doc.raw, &hand);
    let operations = operation_table(&doc.spec);
    let paged = paged_operations(&doc.spec);
    let keep_builders = request_types(doc);
    laps.lap("split the document");
    let core_doc = split::core_document(&doc.spec, &split);
    let core_tokens = generate_tokens(&core_doc, &settings(Flavor::Core))
        .with_context(|| format!("generating the core of {}", doc.rel_path))?;
    let mut core_file: syn::File =
        syn::parse2(core_tokens).context("progenitor's output for the core does not parse")?;
    let (mut core_shapes, core_impls) = rewrite::type_facts(&core_file);
    core_shapes.inputs = keep_builders.clone();
    core_shapes.answers = answer_types(doc);
    core_shapes.created = created_envelopes(doc);
    // Before the primaries: a record whose other required fields may now be left out reads an
    // id alone as itself.
    rewrite::optional_without_default(&mut core_file, &core_shapes);
    let core_shapes = core_shapes.with_input_primaries(&core_file);
    let core_types: BTreeSet<String> = split.core.iter().map(|s| type_name(s)).collect();
    rewrite::prune_struct_builders(&mut core_file, &keep_builders);
    rewrite::lenient_fields(&mut core_file, &core_shapes, &quote!(crate::lenient))
        .context("the core's types")?;
    rewrite::gate_json_schema(&mut core_file);
    additive::non_exhaustive_records(&mut core_file);
    rewrite::expose_client_fields(&mut core_file)?;
    core_file.items.retain(|item| match item {
        syn::Item::Mod(m) => m.ident != "prelude" && !(m.ident == "builder" && only_uses(m)),
        syn::Item::Impl(i) => !(i.trait_.is_none() && i.items.is_empty()),
        _ => true,
    });
    // The setters that take what a developer has (their own items, after the passes above).
    let core_kinds = setters::kinds(&core_file, &setters::Kinds::default());
    setters::setters(&mut core_file, &quote!(crate));
    core_file.items.extend(setters::core_traits());
    core_file
        .items
        .extend(setters::conversions(&core_kinds, &quote!(crate)));
    // A union a value fits no branch of keeps the value (after the setters, which read the
    // unions' branches).
    crate::unions::fall_back(&mut core_file, &core_shapes).context("the core's unions")?;
    let core = Output {
        rel_path: generated_file(CORE_DIR),
        content: format!(
            "{}// progenitor {progenitor_version}\n\n{}",
            part_header(doc, "its shared schemas", &core_doc)?,
            prettyplease::unparse(&core_file)
        ),
    };
    laps.lap("the core");
    let shared = Shared {
        doc,
        split: &split,
        progenitor_version,
        operations: &operations,
        paged: &paged,
        keep_builders: &keep_builders,
        core_types: &core_types,
        core_impls: &core_impls,
        core_shapes: &core_shapes,
        core_kinds: &core_kinds,
    };
    let areas: Vec<Result<Output>> = std::thread::scope(|scope| {
        let handles: Vec<_> = split
            .areas
            .iter()
            .map(|part| {
                let shared = &shared;
                scope.spawn(move || render_area(shared, part))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("generating an area panicked")))
            })
            .collect()
    });
    laps.lap("the areas, in parallel");
    let mut outputs = vec![core];
    for area in areas {
        outputs.push(area?);
    }
    let builders: Vec<bool> = outputs
        .iter()
        .map(|o| o.content.contains("\n    pub mod builder {"))
        .collect();
    outputs.push(Output {
        rel_path: OPERATIONS.to_owned(),
        content: render_operations(doc, &operations, &hand, &builders)?,
    });
    laps.lap("operation table");
    laps.report();
    Ok(outputs)
}

/// One area's `generated.rs`: progenitor over the area's part of the document (core schemas
/// replaced by the core's types), then the rewrites.
fn render_area(shared: &Shared<'_>, part: &split::AreaPart) -> Result<Output> {
    let doc = shared.doc;
    let area_doc = split::area_document(&doc.spec, shared.split, part);
    let mut settings = settings(Flavor::Area);
    for name in shared.core_types {
        let impls = shared.core_impls.get(name).cloned().unwrap_or_default();
        settings.with_replacement(
            name,
            format!("::{}::types::{name}", rewrite::CORE),
            impls.into_iter(),
        );
    }
    let tokens = generate_tokens(&area_doc, &settings)
        .with_context(|| format!("generating the `{}` area of {}", part.name, doc.rel_path))?;
    let mut file: syn::File = syn::parse2(tokens)
        .with_context(|| format!("progenitor's output for `{}` does not parse", part.name))?;
    let bodies = rewrite::function_bodies(&file);
    let (area_shapes, _) = rewrite::type_facts(&file);
    if let Some(twice) = area_shapes
        .records
        .keys()
        .find(|t| shared.core_types.contains(*t))
    {
        bail!(
            "the `{}` area generated `{twice}`, a type of the core (type replacement missed it)",
            part.name
        );
    }
    // An area's types reach the core's and its own, never another area's.
    let shapes = shared.core_shapes.union(&area_shapes);
    rewrite::optional_without_default(&mut file, &shapes);
    let shapes = shapes.with_input_primaries(&file);
    rewrite::prune_struct_builders(&mut file, shared.keep_builders);
    rewrite::lenient_fields(
        &mut file,
        &shapes,
        &quote!(::store_admin_client_core::lenient),
    )
    .with_context(|| format!("the types of the `{}` area", part.name))?;
    rewrite::gate_json_schema(&mut file);
    additive::non_exhaustive_records(&mut file);
    rewrite::into_area(&mut file, &areas::trait_name(part.name), part.name)?;
    additive::seal_area_trait(&mut file, &areas::trait_name(part.name))?;
    rewrite::mark_deprecated(&mut file, shared.operations);
    rewrite::bodies_unchanged(&bodies, &file)
        .with_context(|| format!("the `{}` area", part.name))?;
    let operations = crate::operation_impls::operation_impls(&file)
        .with_context(|| format!("the builders of the `{}` area", part.name))?;
    // The setters that take what a developer has: this pass's own items, after the check above.
    let kinds = setters::kinds(&file, shared.core_kinds);
    let core = quote!(::store_admin_client_core);
    setters::setters(&mut file, &core);
    file.items.extend(setters::conversions(&kinds, &core));
    crate::unions::fall_back(&mut file, &shapes)
        .with_context(|| format!("the unions of the `{}` area", part.name))?;
    file.items.extend(operations);
    for p in shared.paged.iter().filter(|p| {
        shared
            .operations
            .iter()
            .any(|o| o.operation_id == p.operation_id && o.area == part.name)
    }) {
        file.items.push(paged_impl(p, shared.core_types));
    }
    Ok(Output {
        rel_path: generated_file(&area_dir(part.name)),
        content: format!(
            "{}// progenitor {}\n\n{}",
            part_header(doc, &format!("the `{}` area", part.name), &area_doc)?,
            shared.progenitor_version,
            prettyplease::unparse(&file)
        ),
    })
}

/// Where `generate` spends its time, printed to stderr when `XTASK_TIMINGS` is set.
struct Laps {
    last: Instant,
    totals: Vec<(&'static str, std::time::Duration)>,
}

impl Laps {
    fn new() -> Self {
        Self {
            last: Instant::now(),
            totals: Vec::new(),
        }
    }

    fn lap(&mut self, what: &'static str) {
        let now = Instant::now();
        let spent = now - self.last;
        self.last = now;
        match self.totals.iter_mut().find(|(w, _)| *w == what) {
            Some((_, total)) => *total += spent,
            None => self.totals.push((what, spent)),
        }
    }

    fn report(&self) {
        if std::env::var_os("XTASK_TIMINGS").is_some() {
            for (what, total) in &self.totals {
                eprintln!("{total:>10.2?}  {what}");
            }
        }
    }
}

/// Whether a module holds nothing but `use` items.
fn only_uses(m: &syn::ItemMod) -> bool {
    m.content
        .as_ref()
        .is_none_or(|(_, items)| items.iter().all(|i| matches!(i, syn::Item::Use(_))))
}

/// The `PagedRequest` impl of a paged list operation's builder, in its area's crate.
fn paged_impl(p: &PagedOperation, core_types: &BTreeSet<String>) -> syn::Item {
    let core = quote::format_ident!("{}", rewrite::CORE);
    let path = |schema: &str| {
        let name = quote::format_ident!("{}", type_name(schema));
        match core_types.contains(&name.to_string()) {
            true => quote!(::#core::types::#name),
            false => quote!(types::#name),
        }
    };
    let builder = quote::format_ident!("{}", p.builder);
    let response = path(&p.response);
    let item = path(&p.item);
    let operation_id = &p.operation_id;
    let pagination = if p.pagination_required {
        quote!(Some(response.pagination))
    } else {
        quote!(response.pagination)
    };
    let record_key = (!p.record_key.is_empty()).then(|| {
        let fields = &p.record_key;
        quote!(const RECORD_KEY: &'static [&'static str] = &[#(#fields),*];)
    });
    syn::parse_quote! {
        impl<'a> ::#core::PagedRequest<'a> for builder::#builder<'a> {
            type Item = #item;
            type Response = #response;
            const OPERATION_ID: &'static str = #operation_id;
            #record_key
            fn with_page(self, page: ::std::num::NonZeroU64) -> Self {
                self.page(page)
            }
            fn with_per_page(self, per_page: ::std::num::NonZeroU64) -> Self {
                self.per_page(per_page)
            }
            fn send_page(
                self,
            ) -> ::#core::BoxFuture<
                'a,
                Result<::#core::ResponseValue<Self::Response>, ::#core::Error<::#core::types::ErrorResponse>>,
            > {
                Box::pin(self.send())
            }
            fn into_parts(response: Self::Response) -> ::#core::PageParts<Self::Item> {
                ::#core::PageParts { items: response.data, pagination: #pagination }
            }
        }
    }
}

/// How progenitor failed: by panicking or by returning an error.
enum Failure {
    Panic(String),
    Error(String),
}

impl Failure {
    fn describe(&self, subject: &str) -> String {
        match self {
            Failure::Panic(m) => format!("progenitor panicked on {subject}: {m}"),
            Failure::Error(m) => format!("progenitor failed on {subject}: {m}"),
        }
    }
}

thread_local! {
    /// Set while this thread runs progenitor: its panics are caught and reported, not printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs progenitor once; panics are caught (and kept off stderr) and returned as failures.
fn try_generate(spec: &OpenAPI, settings: &GenerationSettings) -> Result<TokenStream, Failure> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        Generator::new(settings).generate_tokens(spec)
    }));
    QUIET.with(|q| q.set(false));
    match result {
        Ok(Ok(tokens)) => Ok(tokens),
        Ok(Err(e)) => Err(Failure::Error(e.to_string())),
        Err(payload) => Err(Failure::Panic(
            payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_owned()),
        )),
    }
}

/// Runs progenitor; on failure, names the operation that fails on its own.
pub fn generate_tokens(spec: &OpenAPI, settings: &GenerationSettings) -> Result<TokenStream> {
    let failure = match try_generate(spec, settings) {
        Ok(tokens) => return Ok(tokens),
        Err(failure) => failure,
    };
    let mut bare = spec.clone();
    bare.paths.paths.clear();
    if let Err(f) = try_generate(&bare, settings) {
        return Err(anyhow!(f.describe("the components (with no operation)")));
    }
    for (_, path, method, op) in lint::operations(spec) {
        if let Err(f) = try_generate(&only(spec, path, method), settings) {
            let id = op.operation_id.as_deref().unwrap_or("(no operationId)");
            let subject = format!("operation `{id}` ({} {path})", method.to_uppercase());
            return Err(anyhow!(f.describe(&subject)));
        }
    }
    Err(anyhow!(
        "{} (no single operation fails alone: look at how operations combine)",
        failure.describe("the document")
    ))
}

/// A copy of `spec` holding only the operation `method path`.
fn only(spec: &OpenAPI, path: &str, method: &str) -> OpenAPI {
    let mut copy = spec.clone();
    copy.paths.paths.retain(|p, _| p == path);
    for item in copy.paths.paths.values_mut() {
        if let openapiv3::ReferenceOr::Item(item) = item {
            let keep = |name: &str, slot: &mut Option<Operation>| {
                if name != method {
                    *slot = None;
                }
            };
            keep("get", &mut item.get);
            keep("put", &mut item.put);
            keep("post", &mut item.post);
            keep("delete", &mut item.delete);
            keep("options", &mut item.options);
            keep("head", &mut item.head);
            keep("patch", &mut item.patch);
            keep("trace", &mut item.trace);
        }
    }
    copy
}

/// The facade's `generated_operations.rs`: the `OPERATIONS` and `HAND_WRITTEN` tables, and the
/// modules that gather the areas enabled by cargo features (`types`, `builder`, `prelude`, the
/// area traits). `builders[i]` says whether the i-th file of [`crate::model::client_files`] has struct builders.
pub fn render_operations(
    doc: &Document,
    operations: &[OperationMeta],
    hand: &[HandWritten],
    builders: &[bool],
) -> Result<String> {
    let entries = operations.iter().map(|m| {
        let OperationMeta {
            operation_id,
            method,
            path,
            tag,
            area,
            scopes,
            deprecated,
            replaced_by,
            summary,
        } = m;
        let replaced_by = match replaced_by {
            Some(id) => quote!(Some(#id)),
            None => quote!(None),
        };
        quote! {
            OperationMeta {
                operation_id: #operation_id,
                method: #method,
                path: #path,
                tag: #tag,
                area: #area,
                scopes: &[#(#scopes),*],
                deprecated: #deprecated,
                replaced_by: #replaced_by,
                summary: #summary,
            }
        }
    });
    let hand_entries = hand.iter().map(|h| {
        let (id, reason) = (&h.operation_id, &h.reason);
        quote!(HandWritten { operation_id: #id, reason: #reason })
    });
    let core = quote::format_ident!("{}", rewrite::CORE);
    let crates: Vec<(String, proc_macro2::Ident, proc_macro2::Ident)> = AREAS
        .iter()
        .map(|a| {
            (
                a.name.to_owned(),
                quote::format_ident!("{}", areas::crate_name(a.name).replace('-', "_")),
                quote::format_ident!("{}", areas::trait_name(a.name)),
            )
        })
        .collect();
    let type_globs = crates.iter().map(|(area, krate, _)| {
        quote! {
            #[cfg(feature = #area)]
            pub use ::#krate::types::*;
        }
    });
    let core_builders = builders
        .first()
        .copied()
        .unwrap_or(false)
        .then(|| quote!(pub use ::#core::types::builder::*;));
    let builder_globs = crates
        .iter()
        .zip(builders.iter().skip(1))
        .filter(|(_, has)| **has)
        .map(|((area, krate, _), _)| {
            quote! {
                #[cfg(feature = #area)]
                pub use ::#krate::types::builder::*;
            }
        });
    let operation_builders = crates.iter().map(|(area, krate, _)| {
        quote! {
            #[cfg(feature = #area)]
            pub use ::#krate::builder::*;
        }
    });
    let traits: Vec<TokenStream> = crates
        .iter()
        .map(|(area, krate, name)| {
            quote! {
                #[cfg(feature = #area)]
                pub use ::#krate::#name;
            }
        })
        .collect();
    let doc_line = format!(" Every operation of `{}`, in document order.", doc.rel_path);
    let tokens = quote! {
        use crate::{HandWritten, OperationMeta};

        #[doc = #doc_line]
        pub const OPERATIONS: &[OperationMeta] = &[#(#entries),*];

        /// The operations progenitor cannot generate (see [`HandWritten`]), in document order.
        pub const HAND_WRITTEN: &[HandWritten] = &[#(#hand_entries),*];

        /// The document's schemas as types: the core's and those of every enabled area.
        pub mod types {
            pub use ::#core::types::*;
            #(#type_globs)*
            pub use ::#core::types::error;
            /// Builders of the request bodies' types.
            pub mod builder {
                #core_builders
                #(#builder_globs)*
            }
        }

        /// The builder of every operation of the enabled areas (`builder::ListOrders`).
        pub mod builder {
            #(#operation_builders)*
        }

        /// The `Client` and the traits that make every operation of the enabled areas its method.
        pub mod prelude {
            pub use ::#core::Client;
            #(#traits)*
        }

        #(#traits)*
    };
    let file: syn::File = syn::parse2(tokens).context("operation table does not parse")?;
    Ok(format!(
        "{}\n{}",
        code_header(doc)?,
        prettyplease::unparse(&file)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::*;
    use crate::model::{FIXTURES_DIR, client_files};

    fn fixture(name: &str) -> Document {
        let root = crate::document::workspace_root();
        Document::load(&root, &format!("{FIXTURES_DIR}/{name}.yaml")).expect("fixture loads")
    }

    fn generated(name: &str) -> String {
        let root = crate::document::workspace_root();
        let version = progenitor_version(&root).expect("Cargo.lock names progenitor");
        render_client(&fixture(name), Flavor::Fixture, &version).expect("fixture generates")
    }

    #[test]
    fn every_fixture_passes_the_lint() {
        for path in fixtures(&crate::document::workspace_root()).expect("fixtures listed") {
            let doc =
                Document::load(&crate::document::workspace_root(), &path).expect("fixture loads");
            doc.lint().expect("fixture passes the lint");
        }
    }

    fn split_outputs() -> Vec<Output> {
        let root = crate::document::workspace_root();
        let doc = crate::document::Document::load(&root, crate::document::SPEC).expect("loads");
        render_split(&doc, "test").expect("generates")
    }

    #[test]
    fn deprecated_operations_get_a_deprecated_attribute_naming_the_replacement() {
        let code: String = split_outputs().into_iter().map(|o| o.content).collect();
        assert!(
            code.contains(
                "#[deprecated(\n        note = \"replaced by `cancel_shipment` (POST /shipments/{shipment_id}/cancel); migrate to it\"\n    )]\n    fn cancel_order_shipment"
            ),
            "no #[deprecated] on cancel_order_shipment"
        );
        assert_eq!(
            code.matches("#[deprecated(").count(),
            3,
            "exactly the 3 replaced operations"
        );
    }

    #[test]
    fn the_split_writes_the_core_every_area_and_the_operation_table() {
        let outputs = split_outputs();
        let paths: Vec<&str> = outputs.iter().map(|o| o.rel_path.as_str()).collect();
        let mut expected: Vec<String> = client_files();
        expected.push(OPERATIONS.to_owned());
        assert_eq!(paths, expected);
        let area = |name: &str| {
            let path = generated_file(&area_dir(name));
            outputs
                .iter()
                .find(|o| o.rel_path == path)
                .map(|o| o.content.clone())
                .expect("area output")
        };
        let orders = area("orders");
        // Sealed, and the records non-exhaustive (`additive.rs`): additive changes stay minor.
        assert!(
            orders.contains("pub trait OrdersApi: sealed::Sealed {"),
            "{orders}"
        );
        assert!(orders.contains("impl Sealed for ::store_admin_client_core::Client {}"));
        assert!(orders.contains("#[non_exhaustive]\n    pub struct Order {"));
        assert!(orders.contains("impl OrdersApi for Client {"));
        assert!(!orders.contains("pub struct Client"));
        assert!(orders.contains("use ::store_admin_client_core::Client;"));
        // Bodies decode and stream as progenitor writes it: no function body is edited for it.
        assert!(orders.contains("ResponseValue::from_response(response).await"));
        let store = area("store");
        assert!(store.contains("Ok(ResponseValue::stream(response))"));
        // A schema only orders use is generated there; one two areas use is the core's.
        assert!(orders.contains("pub struct OrderList {"));
        assert!(orders.contains("::store_admin_client_core::types::ErrorResponse"));
        let core = &outputs[0].content;
        assert!(core.contains("pub struct ErrorResponse {"));
        assert!(core.contains("pub struct Client {"));
        assert!(!core.contains("pub struct OrderList {"));
    }

    #[test]
    fn struct_builders_are_kept_for_request_bodies_only() {
        let code: String = split_outputs().into_iter().map(|o| o.content).collect();
        assert!(code.contains(
            "pub struct AddLanguagesRequest {\n            locales: ::std::result::Result<"
        ));
        assert!(code.contains("pub fn builder() -> builder::AddLanguagesRequest"));
        assert!(!code.contains("pub fn builder() -> builder::OrderList"));
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(generated("shared_error"), generated("shared_error"));
    }

    #[test]
    fn header_names_the_document_and_its_sha256() {
        let code = generated("created_201");
        let first = code.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(
                "// Generated by `cargo xtask generate` from openapi/fixtures/created_201.yaml (sha256 "
            ),
            "{first}"
        );
        assert!(first.ends_with("). Do not edit."), "{first}");
        let hex = &first[first.find("sha256 ").map_or(0, |i| i + 7)..first.len() - 15];
        assert_eq!(hex.len(), 64, "{hex}");
        assert!(
            code.lines()
                .nth(1)
                .unwrap_or_default()
                .starts_with("// progenitor 0.15")
        );
    }

    /// A document on which progenitor 0.15.1 panics: two success responses with different bodies.
    const PANICS: &str = r##"
openapi: 3.0.3
info: { title: T, version: "1" }
paths:
  /fine:
    get:
      operationId: fine
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: string } } } }
  /orders:
    get:
      operationId: list_orders
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: string } } } }
        "201": { description: ok, content: { application/json: { schema: { type: integer } } } }
"##;

    #[test]
    fn progenitor_panic_is_reported_with_the_culprit_operation() {
        let doc = Document::parse("panics.yaml", PANICS.to_owned()).expect("parses");
        let error = generate_tokens(&doc.spec, &settings(Flavor::Fixture))
            .expect_err("progenitor panics on this document");
        let message = format!("{error:#}");
        assert!(
            message.starts_with("progenitor panicked on operation `list_orders` (GET /orders): "),
            "{message}"
        );
    }

    #[test]
    fn progenitor_error_is_reported_with_the_culprit_operation() {
        let doc = Document::parse(
            "error.yaml",
            PANICS.replace(
                r#"        "201": { description: ok, content: { application/json: { schema: { type: integer } } } }"#,
                "      parameters:\n        - { name: filter, in: query, style: deepObject, schema: { type: string } }",
            ),
        )
        .expect("parses");
        let error = generate_tokens(&doc.spec, &settings(Flavor::Fixture))
            .expect_err("progenitor rejects deepObject");
        assert_eq!(
            format!("{error:#}"),
            "progenitor failed on operation `list_orders` (GET /orders): unexpected or unhandled format in the OpenAPI document unsupported style of query parameter DeepObject"
        );
    }

    #[test]
    fn failure_that_no_single_operation_reproduces_names_the_document() {
        let doc = Document::parse(
            "duplicate.yaml",
            PANICS
                .replace("operationId: list_orders", "operationId: fine")
                .replace(
                    r#"        "201": { description: ok, content: { application/json: { schema: { type: integer } } } }"#,
                    "",
                ),
        )
        .expect("parses");
        let error = generate_tokens(&doc.spec, &settings(Flavor::Fixture))
            .expect_err("duplicate operationId fails");
        assert_eq!(
            format!("{error:#}"),
            "progenitor failed on the document: unexpected or unhandled format in the OpenAPI document duplicate operation ID: fine (no single operation fails alone: look at how operations combine)"
        );
    }

    /// One snapshot per fixture, so that a progenitor upgrade shows as a reviewable diff.
    macro_rules! fixture_snapshots {
        ($($name:ident),* $(,)?) => {
            $(
                #[test]
                fn $name() {
                    insta::assert_snapshot!(
                        concat!("fixture_", stringify!($name)),
                        generated(stringify!($name))
                    );
                }
            )*

            #[test]
            fn every_fixture_has_a_snapshot_test() {
                let listed: Vec<String> = fixtures(&crate::document::workspace_root())
                    .expect("fixtures listed")
                    .iter()
                    .map(|path| path.trim_start_matches("openapi/fixtures/").trim_end_matches(".yaml").to_owned())
                    .collect();
                let mut tested = vec![$(stringify!($name).to_owned()),*];
                tested.sort();
                assert_eq!(listed, tested);
            }
        };
    }

    mod snapshot {
        use super::*;

        fixture_snapshots!(
            accepted_202,
            array_query,
            created_201,
            deprecated,
            integer_or_string,
            nullable,
            shared_error,
        );
    }
}
