//! The table of tools: each tool once, with its name, title, input type (whose schema clients
//! get), annotations and wait. Everything else about a tool is derived from the table or matched
//! on [`Tool`] exhaustively, so that a tool added here and forgotten elsewhere does not compile
//! (`docs/design/tools.md`, Adding a tool).
//!
//! The order of the table is the order clients list the tools in.

use std::sync::LazyLock;
use std::time::Duration;

use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::input::{
    CloseWindow, CreateWindow, ListWindows, MAX_WAIT_SECONDS, ReadFile, ReadWindow, SendKeys,
    SendText, WaitWindow, WriteFile,
};

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

impl Annotations {
    /// Reads only: list_windows, read_window, wait_window, read_file.
    pub const READ_ONLY: Self = Self::new(true, false, false, false);
    /// Creates what is missing, and nothing more when called again: create_window.
    pub const CREATES: Self = Self::new(false, false, true, false);
    /// Destroys, and nothing more when called again: close_window, write_file.
    pub const REPLACES: Self = Self::new(false, true, true, false);
    /// An input to a terminal, which can reach anything: send_text, send_keys.
    pub const INPUT: Self = Self::new(false, true, false, true);

    const fn new(read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> Self {
        Self {
            read_only,
            destructive,
            idempotent,
            open_world,
        }
    }
}

/// How long a call of a tool may wait for a terminal, read from its arguments: the time its
/// deadline gets on top of a plain call's (ratd's, and rat's for the HTTP request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// It never waits.
    Never,
    /// It waits `wait_seconds` when asked: 0 when absent, 50 at most (send_text, send_keys).
    WhenAsked,
    /// It always waits: `max_seconds`, 20 when absent, within 1 to 50 (wait_window).
    Always,
}

impl Wait {
    /// The seconds a call with `arguments` waits. Arguments that do not read (a mistyped
    /// `wait_seconds`, a wait_window call with no window) get the longest wait: ratd refuses
    /// them at once anyway, and a deadline too short would cut an answer.
    pub fn seconds(self, arguments: &Map<String, Value>) -> u32 {
        match self {
            Wait::Never => 0,
            Wait::WhenAsked => match arguments.get("wait_seconds") {
                None => 0,
                Some(seconds) => seconds.as_u64().map_or(MAX_WAIT_SECONDS, |s| {
                    u32::try_from(s.min(u64::from(MAX_WAIT_SECONDS))).unwrap_or(MAX_WAIT_SECONDS)
                }),
            },
            Wait::Always => serde_json::from_value::<WaitWindow>(Value::Object(arguments.clone()))
                .map_or(MAX_WAIT_SECONDS, |wait| wait.seconds()),
        }
    }
}

/// The input schema of `T`: JSON Schema 2020-12, inlined, without `$schema` nor `title`.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
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

/// Writes the table of tools: the enum [`Tool`] (one variant per entry), `Tool::ALL` and
/// `Tool::NAMES` in the table's order, and `name`, `title`, `annotations`, `wait`,
/// `input_schema` and `from_name`. Every entry gives every field, in this order:
///
/// ```text
/// VariantName {
///     name: "tool_name",
///     title: "A title",
///     input: InputType,          // serde + schemars: the schema clients get
///     annotations: Annotations::READ_ONLY,
///     wait: Wait::Never,
/// }
/// ```
///
/// Public so that the test of a half-registered tool (`tests/ui/`) can write a table of its
/// own; rat has one table, this module's.
#[macro_export]
macro_rules! tool_table {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            name: $name:literal,
            title: $title:literal,
            input: $input:ty,
            annotations: $annotations:expr,
            wait: $wait:expr $(,)?
        }
    ),+ $(,)?) => {
        /// A tool, one variant per entry of the table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tool {
            $($(#[$doc])* $variant,)+
        }

        impl Tool {
            /// Every tool, in the table's order (the order clients list them in).
            pub const ALL: &'static [Tool] = &[$(Tool::$variant,)+];

            /// The names of the tools, in the table's order.
            pub const NAMES: &'static [&'static str] = &[$($name,)+];

            /// The tool's name, as clients call it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Tool::$variant => $name,)+
                }
            }

            /// A human title, for clients to display.
            pub const fn title(self) -> &'static str {
                match self {
                    $(Tool::$variant => $title,)+
                }
            }

            /// Its annotations.
            pub const fn annotations(self) -> $crate::tool::Annotations {
                match self {
                    $(Tool::$variant => $annotations,)+
                }
            }

            /// How its calls wait.
            pub const fn wait(self) -> $crate::tool::Wait {
                match self {
                    $(Tool::$variant => $wait,)+
                }
            }

            /// The JSON schema of its arguments (an object schema), made from its input type.
            pub fn input_schema(self) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                match self {
                    $(Tool::$variant => $crate::tool::schema_of::<$input>(),)+
                }
            }

            /// The tool named `name`, if there is one.
            pub fn from_name(name: &str) -> ::std::option::Option<Tool> {
                match name {
                    $($name => ::std::option::Option::Some(Tool::$variant),)+
                    _ => ::std::option::Option::None,
                }
            }
        }
    };
    ($($anything:tt)*) => {
        ::std::compile_error!(
            "each tool of the table gives `name`, `title`, `input`, `annotations` and `wait`, in \
             that order: `Variant { name: \"...\", title: \"...\", input: Type, annotations: ..., \
             wait: ... }`"
        );
    };
}

tool_table! {
    /// Lists the session's windows.
    ListWindows {
        name: "list_windows",
        title: "List windows",
        input: ListWindows,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Never,
    },
    /// Creates a window running bash.
    CreateWindow {
        name: "create_window",
        title: "Create a window",
        input: CreateWindow,
        annotations: Annotations::CREATES,
        wait: Wait::Never,
    },
    /// Closes a window.
    CloseWindow {
        name: "close_window",
        title: "Close a window",
        input: CloseWindow,
        annotations: Annotations::REPLACES,
        wait: Wait::Never,
    },
    /// Pastes text into a window, Enter after it or not.
    SendText {
        name: "send_text",
        title: "Send text",
        input: SendText,
        annotations: Annotations::INPUT,
        wait: Wait::WhenAsked,
    },
    /// Presses keys in a window.
    SendKeys {
        name: "send_keys",
        title: "Send keys",
        input: SendKeys,
        annotations: Annotations::INPUT,
        wait: Wait::WhenAsked,
    },
    /// Reads a window's screen and history.
    ReadWindow {
        name: "read_window",
        title: "Read a window",
        input: ReadWindow,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Never,
    },
    /// Waits for a window's command to finish, or for its screen to settle.
    WaitWindow {
        name: "wait_window",
        title: "Wait for a window",
        input: WaitWindow,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Always,
    },
    /// Writes a file whole.
    WriteFile {
        name: "write_file",
        title: "Write a file",
        input: WriteFile,
        annotations: Annotations::REPLACES,
        wait: Wait::Never,
    },
    /// Reads a text file, or some of its lines.
    ReadFile {
        name: "read_file",
        title: "Read a file",
        input: ReadFile,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Never,
    },
}

static SCHEMAS: LazyLock<Vec<(&'static str, Map<String, Value>)>> = LazyLock::new(|| {
    Tool::ALL
        .iter()
        .map(|tool| (tool.name(), tool.input_schema()))
        .collect()
});

/// The input schema of `tool`, made once: what a call's arguments are checked against on every
/// call, borrowed rather than built again.
pub fn schema(tool: Tool) -> &'static Map<String, Value> {
    let index = Tool::ALL
        .iter()
        .position(|t| *t == tool)
        .unwrap_or_default();
    &SCHEMAS[index].1
}

/// The input schema of each tool, in the table's order, made once. They depend on nothing
/// ratd finds at startup: `rat` computes headers from them (an argument carrying
/// `x-mcp-header`).
pub fn input_schemas() -> Vec<(&'static str, Map<String, Value>)> {
    SCHEMAS.clone()
}

/// The time a `tools/call` of `name` with `arguments` waits for a terminal, on top of a plain
/// call's time (see [`Wait::seconds`]); nothing for a name that is no tool.
pub fn call_wait(name: &str, arguments: &Map<String, Value>) -> Duration {
    Tool::from_name(name).map_or(Duration::ZERO, |tool| {
        Duration::from_secs(u64::from(tool.wait().seconds(arguments)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_variants_agree() {
        assert_eq!(Tool::ALL.len(), Tool::NAMES.len());
        for (tool, name) in Tool::ALL.iter().zip(Tool::NAMES) {
            assert_eq!(tool.name(), *name);
            assert_eq!(Tool::from_name(name), Some(*tool));
        }
        assert_eq!(Tool::from_name("list_window"), None);
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
