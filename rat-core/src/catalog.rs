//! The nine tools as MCP sees them: names, titles, input schemas, descriptions, annotations, and
//! the MCP instructions (`docs/design/tools.md`).
//!
//! Schemas are built once (ratd serves the same ones to every request) and do not depend on the
//! startup check, so `rat` computes the `Mcp-Param-Window` header from [`input_schemas`] without
//! asking ratd. Descriptions and instructions do depend on it: they take the
//! [`TerminalCheck`]. The file tools' descriptions come from [`crate::files`].

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::files;
use crate::terminals::texts;
use crate::terminals::{
    CloseWindow, CreateWindow, ListWindows, ReadWindow, SendKeys, SendText, TerminalCheck,
    WaitWindow,
};
use crate::tools::ReadBudget;

/// The names of the nine tools, in the order [`tools`] gives them. Fixed, with no tenant prefix:
/// harnesses prefix them with the server name of their own configuration.
pub const TOOL_NAMES: [&str; 9] = [
    "list_windows",
    "create_window",
    "close_window",
    "send_text",
    "send_keys",
    "read_window",
    "wait_window",
    "write_file",
    "read_file",
];

/// MCP's tool annotations, every hint set explicitly: the specification reads a missing destructive
/// or open world hint as true (`docs/design/tools.md`, Annotations). Only the inputs reach beyond
/// rat (what runs in a terminal can reach anything).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// `readOnlyHint`: the tool changes nothing (list_windows may create the session, which is
    /// plumbing hidden from agents).
    pub read_only: bool,
    /// `destructiveHint`: the tool may destroy something (close_window, an input, a file
    /// replaced).
    pub destructive: bool,
    /// `idempotentHint`: calling it again with the same arguments changes nothing more.
    pub idempotent: bool,
    /// `openWorldHint`: the tool reaches beyond rat's terminals and files.
    pub open_world: bool,
}

/// A tool as listed to clients.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The tool's name, one of [`TOOL_NAMES`].
    pub name: &'static str,
    /// A human title, for clients to display.
    pub title: Option<String>,
    /// What the agent reads, worded after the startup check.
    pub description: String,
    /// The JSON schema of its arguments (an object schema).
    pub input_schema: Map<String, Value>,
    /// Its annotations.
    pub annotations: Annotations,
}

/// The input schema of `T`: JSON Schema 2020-12, inlined, without `$schema` nor `title`.
fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut map = match schema.to_value() {
        Value::Object(map) => map,
        other => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("object".into()));
            map.insert("x-unexpected".into(), other);
            map
        }
    };
    map.remove("title");
    map.remove("$schema");
    map.remove("description");
    if !map.contains_key("properties") {
        map.insert("properties".into(), Value::Object(Map::new()));
    }
    map
}

static SCHEMAS: LazyLock<Vec<(&'static str, Map<String, Value>)>> = LazyLock::new(|| {
    vec![
        ("list_windows", schema_of::<ListWindows>()),
        ("create_window", schema_of::<CreateWindow>()),
        ("close_window", schema_of::<CloseWindow>()),
        ("send_text", schema_of::<SendText>()),
        ("send_keys", schema_of::<SendKeys>()),
        ("read_window", schema_of::<ReadWindow>()),
        ("wait_window", schema_of::<WaitWindow>()),
        ("write_file", schema_of::<files::WriteFile>()),
        ("read_file", schema_of::<files::ReadFile>()),
    ]
});

/// The input schema of each tool, in the order of [`TOOL_NAMES`]. They do not depend on the
/// check: `rat` computes headers from them (an argument carrying `x-mcp-header`).
pub fn input_schemas() -> Vec<(&'static str, Map<String, Value>)> {
    SCHEMAS.clone()
}

fn annotations(name: &str) -> Annotations {
    let (read_only, destructive, idempotent, open_world) = match name {
        "list_windows" | "read_window" | "wait_window" | "read_file" => (true, false, false, false),
        "create_window" => (false, false, true, false),
        "close_window" => (false, true, true, false),
        "send_text" | "send_keys" => (false, true, false, true),
        "write_file" => (false, true, true, false),
        _ => (false, true, false, true),
    };
    Annotations {
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

fn title(name: &str) -> &'static str {
    match name {
        "list_windows" => "List windows",
        "create_window" => "Create a window",
        "close_window" => "Close a window",
        "send_text" => "Send text",
        "send_keys" => "Send keys",
        "read_window" => "Read a window",
        "wait_window" => "Wait for a window",
        "write_file" => "Write a file",
        "read_file" => "Read a file",
        _ => "",
    }
}

/// The nine tools, in the order of [`TOOL_NAMES`], their descriptions worded after `check` and
/// stating `budget`.
pub fn tools(check: &TerminalCheck, budget: ReadBudget) -> Vec<ToolDef> {
    SCHEMAS
        .iter()
        .map(|(name, schema)| {
            let description = match *name {
                "list_windows" => texts::list_windows_description(check),
                "create_window" => texts::create_window_description(check),
                "close_window" => texts::close_window_description(),
                "send_text" => texts::send_text_description(check),
                "send_keys" => texts::send_keys_description(check),
                "read_window" => texts::read_window_description(budget),
                "wait_window" => texts::wait_window_description(check),
                "write_file" => files::write_file_description(),
                _ => files::read_file_description(budget),
            };
            ToolDef {
                name,
                title: Some(title(name).to_string()),
                description,
                input_schema: schema.clone(),
                annotations: annotations(name),
            }
        })
        .collect()
}

/// The MCP instructions for `host` (the machine ratd runs on), worded after `check`.
pub fn instructions(host: &str, check: &TerminalCheck) -> String {
    texts::instructions(host, check)
}

/// What the terminals lose, read back from instructions ratd sent (see
/// [`texts::degradations`]).
pub fn degradations(instructions: &str) -> Vec<&'static str> {
    texts::degradations(instructions)
}
