//! The tools as MCP sees them: the table of tools ([`crate::tools::TOOLS`]: names, titles,
//! input schemas, annotations, waits, descriptions) and the MCP instructions
//! (`docs/design/tools.md`).
//!
//! Schemas are built once (ratd serves the same ones to every request) and do not depend on the
//! startup check, so `rat` computes the `Mcp-Param-Window` header from the same schemas, which
//! rat-wire holds, without asking ratd. Descriptions and instructions do depend on it: they
//! take the [`TerminalCheck`].

use serde_json::{Map, Value};

use crate::result::ReadBudget;
use crate::terminals::TerminalCheck;
use crate::terminals::check::Degradation;
use crate::terminals::texts;
use crate::tools::{TOOLS, schema};

pub use crate::tool::Annotations;

/// The names of the tools, in the order [`tools`] gives them. Fixed, with no tenant prefix:
/// harnesses prefix them with the server name of their own configuration.
pub const TOOL_NAMES: &[&str] = crate::tools::NAMES;

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

/// Every tool, in the order of [`TOOL_NAMES`], its description worded after `check` and
/// stating `budget`.
pub fn tools(check: &TerminalCheck, budget: ReadBudget) -> Vec<ToolDef> {
    TOOLS
        .iter()
        .map(|tool| ToolDef {
            name: tool.name,
            title: Some(tool.title.to_string()),
            description: tool.description(check, budget),
            input_schema: schema(tool).clone(),
            annotations: tool.annotations,
        })
        .collect()
}

/// The input schema of each tool, in the order of [`TOOL_NAMES`], made once.
pub fn input_schemas() -> Vec<(&'static str, Map<String, Value>)> {
    TOOLS
        .iter()
        .map(|tool| (tool.name, schema(tool).clone()))
        .collect()
}

/// The MCP instructions for `host` (the machine ratd runs on), worded after `check`.
pub fn instructions(host: &str, check: &TerminalCheck) -> String {
    texts::instructions(host, check)
}

/// The key of rat's entry in the MCP `capabilities.experimental` ratd sends at initialize.
pub const CAPABILITY: &str = "rat";

/// rat's entry in the MCP `capabilities.experimental` of a ratd whose terminals `check` found:
/// `{"degradations": [NAME, ...]}`, each a [`Degradation::name`], in a fixed order.
pub fn capability(check: &TerminalCheck) -> serde_json::Map<String, serde_json::Value> {
    let names = check
        .degradations()
        .into_iter()
        .map(|d| serde_json::Value::from(d.name()))
        .collect();
    let mut entry = serde_json::Map::new();
    entry.insert("degradations".into(), serde_json::Value::Array(names));
    entry
}

/// What the terminals lose, read back from rat's entry of the capabilities ratd sent (see
/// [`capability`]): one line each, what is lost and the fix; a name this build does not know is
/// given as it came. Empty when nothing is lost.
pub fn degradations(capability: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    let Some(serde_json::Value::Array(names)) = capability.get("degradations") else {
        return Vec::new();
    };
    names
        .iter()
        .map(|name| {
            let name = name.as_str().unwrap_or_default();
            match Degradation::from_name(name) {
                Some(lost) => texts::degradation(lost).to_string(),
                None => format!("terminals: {name} (a degradation this rat-tool does not know)"),
            }
        })
        .collect()
}
