//! No import circles: within each crate of the workspace, no module imports, through others, a
//! module that imports it (ARCHITECTURE.md, "No import circles").
//!
//! A module's imports are the `crate::…` and `super::…` paths of its file (in `use` items, in
//! code and in macro bodies; a `#[cfg(test)] mod tests` is left out), each resolved to the
//! longest module it names. A module and its own ancestors or descendants are not a circle: a
//! parent declares its children, and children use what their parent holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The modules of the crate whose sources are in `src`: module path (`engine::crud`, `""` for the
/// root) to file.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the sources") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .expect("below src")
                .with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                parts.clear();
            }
            out.insert(parts.join("::"), path);
        }
    }
    out
}

/// Every `crate::…`/`super::…` path in `tokens`, as segments from the crate root (a `super` is
/// resolved against `parent`, the module `super` names); `mod tests { … }` is skipped.
fn paths(tokens: TokenStream, parent: &[String], out: &mut Vec<Vec<String>>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Ident(id) if id == "mod" => {
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(_))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                    && name == "tests"
                {
                    i += 3;
                    continue;
                }
            }
            TokenTree::Ident(id) if id == "crate" || id == "super" => {
                let mut base: Vec<String> = if id == "crate" {
                    Vec::new()
                } else {
                    parent.to_vec()
                };
                let mut j = i + 1;
                loop {
                    let colons = matches!(
                        (tokens.get(j), tokens.get(j + 1)),
                        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                            if a.as_char() == ':' && b.as_char() == ':'
                    );
                    if !colons {
                        break;
                    }
                    match tokens.get(j + 2) {
                        Some(TokenTree::Ident(next)) => {
                            base.push(next.to_string());
                            j += 3;
                        }
                        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => {
                            // `use crate::{a, b::c}`: each item from here.
                            for item in split_commas(group.stream()) {
                                let mut one = base.clone();
                                one.extend(leading_idents(&item));
                                out.push(one);
                            }
                            j += 3;
                            break;
                        }
                        _ => break,
                    }
                }
                out.push(base);
                i = j;
                continue;
            }
            TokenTree::Group(group) => paths(group.stream(), parent, out),
            _ => {}
        }
        i += 1;
    }
}

fn split_commas(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(Vec::new()),
            _ => out.last_mut().expect("one item at least").push(token),
        }
    }
    out
}

/// `a::b::C` of an item of a use group (a nested group is not followed).
fn leading_idents(item: &[TokenTree]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = item;
    while let Some(TokenTree::Ident(id)) = rest.first() {
        out.push(id.to_string());
        match rest {
            [_, TokenTree::Punct(a), TokenTree::Punct(b), tail @ ..]
                if a.as_char() == ':' && b.as_char() == ':' =>
            {
                rest = tail;
            }
            _ => break,
        }
    }
    out
}

/// The import graph of the crate in `src`: module to the modules it imports (not its ancestors
/// or descendants).
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).expect("read a source file");
        let tokens: TokenStream = text
            .parse()
            .unwrap_or_else(|e| panic!("{} does not lex: {e}", file.display()));
        let parts: Vec<String> = if module.is_empty() {
            Vec::new()
        } else {
            module.split("::").map(str::to_owned).collect()
        };
        let parent = &parts[..parts.len().saturating_sub(1)];
        let mut found = Vec::new();
        paths(tokens, parent, &mut found);
        let related = |a: &str, b: &str| {
            a == b
                || a.is_empty()
                || b.is_empty()
                || a.starts_with(&format!("{b}::"))
                || b.starts_with(&format!("{a}::"))
        };
        let targets: BTreeSet<String> = found
            .iter()
            .filter_map(|path| {
                (1..=path.len())
                    .rev()
                    .map(|k| path[..k].join("::"))
                    .find(|candidate| modules.contains_key(candidate))
            })
            .filter(|target| !related(module, target))
            .collect();
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju: finishing order on the graph, then components on the reversed graph.
    fn finish<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<&'a str>,
        order: &mut Vec<&'a str>,
    ) {
        if !seen.insert(node) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            finish(next, graph, seen, order);
        }
        order.push(node);
    }
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for node in graph.keys() {
        finish(node, graph, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            reversed.entry(to.as_str()).or_default().push(from.as_str());
        }
    }
    let mut assigned: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in order.iter().rev() {
        if assigned.contains(start) {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![start];
        assigned.insert(start);
        while let Some(node) = stack.pop() {
            component.push(node.to_owned());
            for &prev in reversed.get(node).into_iter().flatten() {
                if assigned.insert(prev) {
                    stack.push(prev);
                }
            }
        }
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

/// Every crate's `src` folder.
fn crate_sources() -> Vec<PathBuf> {
    let root = workspace();
    let mut out = vec![root.join("xtask/src"), root.join("tests/src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        out.push(entry.expect("a crate").path().join("src"));
    }
    out.retain(|src| src.is_dir());
    out.sort();
    out
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut found = Vec::new();
    for src in crate_sources() {
        let graph = imports(&src);
        for circle in circles(&graph) {
            let edges: Vec<String> = circle
                .iter()
                .map(|m| {
                    let inside: Vec<&str> = graph[m]
                        .iter()
                        .filter(|t| circle.contains(t))
                        .map(String::as_str)
                        .collect();
                    format!(
                        "{} -> {}",
                        if m.is_empty() { "<root>" } else { m },
                        inside.join(", ")
                    )
                })
                .collect();
            found.push(format!("{}:\n  {}", src.display(), edges.join("\n  ")));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn a_circle_is_found_and_parents_are_not_one() {
    let dir = std::env::temp_dir().join(format!("layering-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("engine")).expect("a scratch crate");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    write("lib.rs", "mod a; mod b; mod c; mod engine;");
    // a -> b through a use group, b -> a through a macro body: a circle.
    write(
        "a.rs",
        "use crate::{b::Thing, c};\n/// crate::c::in_a_comment\nfn f() {}",
    );
    write("b.rs", "macro_rules! m { () => { $crate::a::f() } }");
    // c only imports (a comment and a test module do not count).
    write(
        "c.rs",
        "// crate::a::x\n#[cfg(test)]\nmod tests { use crate::b::Thing; }",
    );
    // A child using its parent, and the parent using the child, are not a circle.
    write(
        "engine/mod.rs",
        "mod crud; fn go() { crud::run(super::c::X) }",
    );
    write(
        "engine/crud.rs",
        "use super::go; use crate::engine::go as again;",
    );
    let graph = imports(&dir);
    assert_eq!(circles(&graph), vec![vec!["a".to_owned(), "b".to_owned()]]);
    assert!(graph["c"].is_empty(), "{:?}", graph["c"]);
    assert_eq!(graph["engine"], BTreeSet::from(["c".to_owned()]));
    let _ = std::fs::remove_dir_all(&dir);
}
