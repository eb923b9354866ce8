//! The layers inside each crate, as docs/ARCHITECTURE.md declares them ("Layers inside the
//! crates"), checked against the code: every `crate::MODULE` a source file names (in a `use` or
//! a path, outside comments) must be in the file's own layer or one below it, the modules of a
//! crate must import each other without a circle, at the top and inside every module (the
//! children of one module, each with what is under it, import each other without a circle: a
//! module and its own children may name each other), and no source file under a crate's `src/`
//! may be longer than 600 lines. Fails naming the file and the import, so that an arrow pointing up
//! is found where it is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file under `src/` may be.
const MAX_LINES: usize = 600;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// One crate's declared layers: module name to layer number (0 at the bottom).
type Layers = BTreeMap<String, usize>;

/// The ```layers block of docs/ARCHITECTURE.md: `CRATE: a b < c < d e`, one line a crate.
fn declared() -> BTreeMap<String, Layers> {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/ARCHITECTURE.md has a ```layers block");
    let mut crates = BTreeMap::new();
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let (name, layers) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("a layers line is `CRATE: a b < c`, not {line:?}"));
        let mut modules = Layers::new();
        for (n, layer) in layers.split('<').enumerate() {
            for module in layer.split_whitespace() {
                let again = modules.insert(module.to_string(), n);
                assert!(again.is_none(), "{name}: `{module}` is in two layers");
            }
        }
        crates.insert(name.trim().to_string(), modules);
    }
    crates
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a source file belongs to (`client` for `src/client/tasks.rs`), `None`
/// for the crate's root (`lib.rs`, `main.rs`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code of `text` without its comments (line comments, doc comments included): a doc link
/// to another module is no import.
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first names after each `crate::` in `code`: `crate::a::B` gives `a`, `crate::{a::B, c}`
/// gives `a` and `c`. `$crate::` (a macro's own crate) is left out.
fn named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b == b'$' || b == b'_' || b.is_ascii_alphanumeric()) {
            continue;
        }
        if code[from..].starts_with('{') {
            // The items at the first depth, each up to its comma: `a::B`, `c`, `d::{E, F}`.
            let mut depth = 0usize;
            let mut items = vec![String::new()];
            for c in code[from..].chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => items.push(String::new()),
                    _ => {}
                }
                if depth == 1 && c != '{' && c != ',' {
                    items.last_mut().expect("one item at least").push(c);
                }
            }
            for item in items {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = code[from..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// What the crate root re-exports, name to module: `pub use client::{Client, ...}` makes
/// `crate::Client` an import of `client`.
fn reexports(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for root in ["lib.rs", "main.rs"] {
        let Ok(text) = std::fs::read_to_string(src.join(root)) else {
            continue;
        };
        let text = code(&text);
        for statement in text.split(';') {
            let Some(rest) = statement.trim().strip_prefix("pub use ") else {
                continue;
            };
            let Some((module, items)) = rest.split_once("::") else {
                continue;
            };
            let items = items.trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',') {
                let name = item.rsplit("::").next().unwrap_or("").trim();
                let name = name.rsplit(" as ").next().unwrap_or(name).trim();
                if !name.is_empty() {
                    out.insert(name.to_string(), module.trim().to_string());
                }
            }
        }
    }
    out
}

/// The crates of the workspace that have a `src/`.
fn crates() -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root()).unwrap() {
        let path = entry.unwrap().path();
        if path.join("Cargo.toml").is_file() && path.join("src").is_dir() {
            out.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

/// A circle in `graph`, as the modules along it, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(found) = visit(node, graph, &mut Vec::new(), &mut done) {
            return Some(found);
        }
    }
    None
}

#[test]
fn every_import_points_down_and_no_module_circle() {
    let declared = declared();
    let mut wrong = Vec::new();
    for name in crates() {
        let Some(layers) = declared.get(&name) else {
            wrong.push(format!(
                "crate {name} has no line in docs/ARCHITECTURE.md's ```layers block"
            ));
            continue;
        };
        let src = root().join(&name).join("src");
        let reexports = reexports(&src);
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in sources(&src) {
            let Some(module) = module_of(&src, &file) else {
                continue;
            };
            let shown = file.strip_prefix(root()).unwrap().display().to_string();
            let Some(&layer) = layers.get(&module) else {
                wrong.push(format!(
                    "{shown}: module `{module}` of {name} is in no layer of docs/ARCHITECTURE.md"
                ));
                continue;
            };
            let text = std::fs::read_to_string(&file).unwrap();
            for target in named(&code(&text)) {
                let target = match layers.contains_key(&target) {
                    true => target,
                    // A name of the crate's root: what it re-exports of a module of its own,
                    // or its own item, or another crate's.
                    false => match reexports.get(&target) {
                        Some(module) if layers.contains_key(module) => module.clone(),
                        _ => continue,
                    },
                };
                if target == module {
                    continue;
                }
                graph
                    .entry(module.clone())
                    .or_default()
                    .insert(target.clone());
                if layers[&target] > layer {
                    wrong.push(format!(
                        "{shown}: `{module}` (layer {layer}) imports `crate::{target}` (layer {}): an arrow pointing up",
                        layers[&target]
                    ));
                }
            }
        }
        if let Some(found) = circle(&graph) {
            wrong.push(format!(
                "crate {name}: its modules import each other in a circle: {}",
                found.join(" -> ")
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// The module path of a source file: `["client", "tasks"]` for `src/client/tasks.rs` or
/// `src/client/tasks/mod.rs`, empty for the crate's root.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    if path.len() == 1 && (path[0] == "lib" || path[0] == "main") {
        path.clear();
    }
    path
}

/// The paths of the `use` trees in `code`, each expanded: `use a::{b::C, d as e};` gives
/// `a::b::C` and `a::d`.
fn use_paths(code: &str) -> Vec<Vec<String>> {
    uses(code).into_iter().map(|(_, path)| path).collect()
}

/// [`use_paths`], each with whether its `use` is public (`pub`, `pub(crate)`, ...): a
/// re-export.
fn uses(code: &str) -> Vec<(bool, Vec<String>)> {
    fn expand(tree: &str) -> Vec<Vec<String>> {
        let tree = tree.trim();
        if let Some(open) = tree.find('{').filter(|_| tree.ends_with('}')) {
            let prefix: Vec<String> = segments(&tree[..open]);
            let inner = &tree[open + 1..tree.len() - 1];
            let mut items = vec![String::new()];
            let mut depth = 0usize;
            for c in inner.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(String::new());
                        continue;
                    }
                    _ => {}
                }
                items.last_mut().expect("one item at least").push(c);
            }
            let mut out = Vec::new();
            for item in items.iter().filter(|i| !i.trim().is_empty()) {
                for tail in expand(item) {
                    out.push(prefix.iter().cloned().chain(tail).collect());
                }
            }
            return out;
        }
        let plain = tree.split(" as ").next().unwrap_or(tree);
        vec![segments(plain)]
    }
    fn segments(path: &str) -> Vec<String> {
        path.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + "use ".len();
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b == b'_' || b.is_ascii_alphanumeric()) {
            continue;
        }
        let Some(end) = code[from..].find(';') else {
            break;
        };
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let public = code[line_start..start].trim_start().starts_with("pub");
        out.extend(
            expand(&code[from..from + end])
                .into_iter()
                .map(|path| (public, path)),
        );
    }
    out
}

/// The paths in `code` that start at `crate::`, `super::` or `self::`, in a `use` or inline;
/// other paths name a module's own children or another crate.
fn rooted_paths(code: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = use_paths(code)
        .into_iter()
        .filter(|p| {
            p.first()
                .is_some_and(|f| ["crate", "super", "self"].contains(&f.as_str()))
        })
        .collect();
    let bytes = code.as_bytes();
    for root in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            let before = start.checked_sub(1).map(|i| bytes[i]);
            if before
                .is_some_and(|b| b == b'$' || b == b'_' || b == b':' || b.is_ascii_alphanumeric())
            {
                continue;
            }
            let path: String = code[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            );
        }
    }
    out
}

/// `path` as written in the module `at`, from the crate's root (`super::x` in `a::b` is `a::x`).
fn absolute(at: &[String], path: &[String]) -> Vec<String> {
    match path.first().map(String::as_str) {
        Some("crate") => path[1..].to_vec(),
        Some("self") => at.iter().chain(&path[1..]).cloned().collect(),
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let kept = at.len().saturating_sub(ups);
            at[..kept].iter().chain(&path[ups..]).cloned().collect()
        }
        _ => at.iter().chain(path).cloned().collect(),
    }
}

#[test]
fn no_circle_inside_any_module() {
    let mut wrong = Vec::new();
    for name in crates() {
        let src = root().join(&name).join("src");
        let files: BTreeMap<Vec<String>, String> = sources(&src)
            .into_iter()
            .map(|f| {
                let text = code(&std::fs::read_to_string(&f).unwrap());
                (module_path(&src, &f), text)
            })
            .collect();
        // What each module re-exports: (module, name) to the module the name comes from.
        let mut reexports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
        let module_of = |path: &[String]| -> Option<Vec<String>> {
            (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|m| files.contains_key(m))
        };
        for (module, text) in &files {
            for (_, path) in uses(text).into_iter().filter(|(public, _)| *public) {
                let full = absolute(module, &path);
                if let (Some(last), Some(from)) = (full.last(), module_of(&full))
                    && &from != module
                {
                    reexports.insert((module.clone(), last.clone()), from);
                }
            }
        }
        let resolve = |full: &[String]| -> Option<Vec<String>> {
            let mut module = module_of(full)?;
            // One hop through a re-export: `super::Terminals` is `tools`' when the parent
            // re-exports it from there.
            if let Some(next) = full.get(module.len())
                && let Some(from) = reexports.get(&(module.clone(), next.clone()))
            {
                module = from.clone();
            }
            Some(module)
        };
        // Per module, the import graph of its children.
        let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for (module, text) in &files {
            for path in rooted_paths(text) {
                let Some(target) = resolve(&absolute(module, &path)) else {
                    continue;
                };
                let common = module
                    .iter()
                    .zip(&target)
                    .take_while(|(a, b)| a == b)
                    .count();
                if common < module.len() && common < target.len() {
                    graphs
                        .entry(module[..common].to_vec())
                        .or_default()
                        .entry(module[common].clone())
                        .or_default()
                        .insert(target[common].clone());
                }
            }
        }
        for (parent, graph) in &graphs {
            if let Some(found) = circle(graph) {
                let inside = match parent.is_empty() {
                    true => "the crate's root".to_string(),
                    false => format!("`{}`", parent.join("::")),
                };
                wrong.push(format!(
                    "crate {name}: the modules inside {inside} import each other in a circle: {}",
                    found.join(" -> ")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn no_source_file_is_longer_than_600_lines() {
    let mut long = Vec::new();
    for name in crates() {
        for file in sources(&root().join(&name).join("src")) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > MAX_LINES {
                let shown = file.strip_prefix(root()).unwrap().display().to_string();
                long.push(format!("{shown}: {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "source files over {MAX_LINES} lines (split them by what they do):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_import_reader_sees_every_form() {
    assert_eq!(named("use crate::a::B;"), ["a"]);
    assert_eq!(named("use crate::{a::B, c, d::{E, F}};"), ["a", "c", "d"]);
    assert_eq!(
        named("$crate::tool::x(); other_crate::z;"),
        Vec::<String>::new()
    );
    assert_eq!(named(&code("// crate::a\nlet x = crate::b::f();")), ["b"]);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "a"]);
    assert_eq!(
        use_paths("use super::{a::B, c as d};\npub(crate) use crate::e::{f::{G, H}};"),
        [
            vec!["super", "a", "B"],
            vec!["super", "c"],
            vec!["crate", "e", "f", "G"],
            vec!["crate", "e", "f", "H"],
        ]
    );
    assert_eq!(
        rooted_paths("let x = super::super::a::f(); use b::C;"),
        [vec!["super", "super", "a", "f"]]
    );
    let at = ["x".to_string(), "y".to_string()];
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(absolute(&at, &path("super::z::W")), ["x", "z", "W"]);
    assert_eq!(absolute(&at, &path("self::z")), ["x", "y", "z"]);
    assert_eq!(absolute(&at, &path("crate::q")), ["q"]);
}
