//! What rat, the bridge, must know of the tools, and nothing more: their names, their input
//! schemas and how long a call waits. Read from `tools.json`, which rat-core's table of tools
//! (`rat_core::tools::TOOLS`) writes: a rat-core test fails when the two disagree, and
//! `RAT_WRITE_WIRE=1 cargo test -p rat-core --test wire` writes the file again
//! (`docs/design/tools.md`, Adding a tool). rat links no tool code, so it can not build the
//! schemas from the input types: it reads them as data.
//!
//! The order of the file is the order clients list the tools in.

use std::sync::LazyLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The default of `wait_window`'s `max_seconds`.
pub const DEFAULT_WAIT_SECONDS: u32 = 20;
/// The most a call waits (`wait_window`'s `max_seconds`, a send's `wait_seconds`): a harness
/// cutting calls at 60 s must get the answer first.
pub const MAX_WAIT_SECONDS: u32 = 50;

/// How long a call of a tool may wait for a terminal, read from its arguments: the time its
/// deadline gets on top of a plain call's (ratd's, and rat's for the HTTP request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    /// It never waits.
    Never,
    /// It waits `wait_seconds` when asked: 0 when absent, 50 at most (send_text, send_keys).
    WhenAsked,
    /// It always waits: `max_seconds`, 20 when absent, within 1 to 50 (wait_window).
    Always,
}

impl Wait {
    /// The seconds a call with `arguments`, checked against `schema`, waits. Arguments that do
    /// not read (a mistyped `wait_seconds`, a wait_window call with no window) get the longest
    /// wait: ratd refuses them at once anyway, and a deadline too short would cut an answer.
    pub fn seconds(self, schema: &Map<String, Value>, arguments: &Map<String, Value>) -> u32 {
        let most = |s: u64| u32::try_from(s.min(u64::from(MAX_WAIT_SECONDS))).unwrap_or_default();
        match self {
            Wait::Never => 0,
            Wait::WhenAsked => match arguments.get("wait_seconds") {
                None => 0,
                Some(seconds) => seconds.as_u64().map_or(MAX_WAIT_SECONDS, most),
            },
            Wait::Always if !reads(schema, arguments) => MAX_WAIT_SECONDS,
            Wait::Always => match arguments.get("max_seconds") {
                None | Some(Value::Null) => DEFAULT_WAIT_SECONDS,
                Some(seconds) => seconds
                    .as_u64()
                    .map_or(MAX_WAIT_SECONDS, |s| most(s).max(1)),
            },
        }
    }
}

/// Whether `arguments` give every argument `schema` requires and none it lacks.
fn reads(schema: &Map<String, Value>, arguments: &Map<String, Value>) -> bool {
    let known = |name: &str| {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(name))
    };
    let required = schema.get("required").and_then(Value::as_array);
    required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|r| arguments.get(r).is_some_and(|v| !v.is_null()))
        && arguments.keys().all(|name| known(name))
}

/// One tool as rat knows it: a line of `tools.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTool {
    /// The name clients call.
    pub name: String,
    /// How its calls wait.
    pub wait: Wait,
    /// The JSON schema of its arguments (an object schema), as ratd serves it.
    pub input_schema: Map<String, Value>,
}

/// The text of `tools.json`, as rat-core's table wrote it.
pub const TOOLS_JSON: &str = include_str!("tools.json");

static TOOLS: LazyLock<Vec<WireTool>> = LazyLock::new(|| {
    // A test of this crate reads it: a file that does not read fails there first.
    serde_json::from_str(TOOLS_JSON).unwrap_or_default()
});

/// Every tool, in the order clients list them in.
pub fn tools() -> &'static [WireTool] {
    &TOOLS
}

/// The tool named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static WireTool> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// The names of the tools, in the order clients list them in.
pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|tool| tool.name.as_str()).collect()
}

/// The input schema of each tool, in the table's order. They depend on nothing ratd finds at
/// startup: `rat` computes headers from them (an argument carrying `x-mcp-header`).
pub fn input_schemas() -> Vec<(&'static str, Map<String, Value>)> {
    TOOLS
        .iter()
        .map(|tool| (tool.name.as_str(), tool.input_schema.clone()))
        .collect()
}

/// The time a `tools/call` of `name` with `arguments` waits for a terminal, on top of a plain
/// call's time (see [`Wait::seconds`]); nothing for a name that is no tool.
pub fn call_wait(name: &str, arguments: &Map<String, Value>) -> Duration {
    find(name).map_or(Duration::ZERO, |tool| {
        Duration::from_secs(u64::from(tool.wait.seconds(&tool.input_schema, arguments)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_file_reads() {
        let read: Vec<WireTool> = serde_json::from_str(TOOLS_JSON).expect("tools.json reads");
        assert!(!read.is_empty());
        assert_eq!(tools(), read);
        assert_eq!(find("list_window"), None);
    }

    #[test]
    fn waits_read_as_the_tools_read_them() {
        let wait = |name: &str, args: Value| match args {
            Value::Object(args) => call_wait(name, &args).as_secs(),
            _ => unreachable!("the arguments of a call are an object"),
        };
        assert_eq!(wait("wait_window", json!({"window": "main"})), 20);
        assert_eq!(
            wait("wait_window", json!({"window": "main", "max_seconds": 7})),
            7
        );
        assert_eq!(
            wait("wait_window", json!({"window": "main", "max_seconds": 0})),
            1
        );
        assert_eq!(
            wait("wait_window", json!({"window": "main", "max_seconds": 99})),
            50
        );
        assert_eq!(wait("wait_window", json!({"max_seconds": 5})), 50);
        assert_eq!(wait("send_text", json!({"window": "main"})), 0);
        assert_eq!(wait("send_keys", json!({"wait_seconds": 12})), 12);
        assert_eq!(wait("send_keys", json!({"wait_seconds": 80})), 50);
        assert_eq!(wait("send_text", json!({"wait_seconds": "5"})), 50);
        assert_eq!(wait("read_window", json!({"wait_seconds": 5})), 0);
        assert_eq!(wait("no_such_tool", json!({})), 0);
    }
}
