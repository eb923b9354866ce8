//! The inputs of the tools: their JSON schemas come from these types (schemars), their doc
//! comments becoming the descriptions of the properties (`docs/design/tools.md`, Inputs, shared
//! with rat).
//!
//! The `window` argument of the four tools taking one carries `"x-mcp-header": "Window"`: from
//! protocol 2026-07-28 on, the client mirrors it into the `Mcp-Param-Window` HTTP header
//! (SEP-2243), which `rat` computes from the same schemas ([`crate::tool::input_schemas`]).
//!
//! A field no input has is refused, naming it (serde's `unknown field`), and the schemas say
//! so (`additionalProperties: false`, which schemars writes for `deny_unknown_fields`): a
//! misspelt optional argument silently ignored would do what the agent did not ask.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The default of `wait_window`'s `max_seconds`.
pub const DEFAULT_WAIT_SECONDS: u32 = 20;
/// The most `wait_window` waits: a harness cutting calls at 60 s must get the answer first.
pub const MAX_WAIT_SECONDS: u32 = 50;

/// Input of `list_windows`: nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListWindows {}

/// Input of `create_window`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWindow {
    /// The name of the window: letters, digits, '_' and '-', up to 32 characters, not digits only.
    pub name: String,
}

/// Input of `close_window`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseWindow {
    /// The name of the window.
    pub name: String,
}

/// Input of `send_text`. `enter` is required, with no default: the agent decides every time
/// whether the text runs, and forgetting it fails validation instead of silently leaving a
/// command unrun (false) or running text meant to wait (true).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendText {
    /// The name of the window.
    #[schemars(extend("x-mcp-header" = "Window"))]
    pub window: String,
    /// The text to paste, as is: new lines included, nothing added. No control character but tab and new line (keys go through send_keys).
    pub text: String,
    /// true presses Enter after the text, running it at a prompt; false leaves it on the command line, or answers a program without Enter.
    pub enter: bool,
    /// Seconds to wait for what it runs to finish, 0 to 50; 0 or absent returns at once. The answer is then wait_window's, with what the command printed.
    #[serde(default)]
    #[schemars(range(min = 0, max = 50), extend("default" = 0))]
    pub wait_seconds: u32,
}

/// Input of `send_keys`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendKeys {
    /// The name of the window.
    #[schemars(extend("x-mcp-header" = "Window"))]
    pub window: String,
    /// The key names, pressed in order.
    pub keys: Vec<String>,
    /// Seconds to wait for what it runs to finish, 0 to 50; 0 or absent returns at once. The answer is then wait_window's, with what the command printed.
    #[serde(default)]
    #[schemars(range(min = 0, max = 50), extend("default" = 0))]
    pub wait_seconds: u32,
}

/// Input of `read_window`. The rows are unsigned, so that the schema refuses a negative number;
/// any count is taken, clamped to the history there is (the schema tells no bound above, and a
/// count beyond 32 bits reads as the most a `u32` holds).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadWindow {
    /// The name of the window.
    #[schemars(extend("x-mcp-header" = "Window"))]
    pub window: String,
    /// Rows of history to include above the screen (0 by default).
    #[serde(default, deserialize_with = "any_count")]
    #[schemars(schema_with = "any_count_schema", extend("default" = 0))]
    pub scrollback_rows: Option<u32>,
}

/// Reads a count of any size, saturated at `u32::MAX`: more rows than tmux keeps read as all
/// of them.
fn any_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let count: Option<u64> = Option::deserialize(d)?;
    Ok(count.map(|c| u32::try_from(c).unwrap_or(u32::MAX)))
}

/// The schema of a count with no bound above: a whole number, 0 or more.
fn any_count_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "minimum": 0})
}

/// Input of `wait_window`: `max_seconds` bounded by the schema, 20 by default.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitWindow {
    /// The name of the window.
    #[schemars(extend("x-mcp-header" = "Window"))]
    pub window: String,
    /// The most seconds to wait, from 1 to 50 (20 by default).
    #[serde(default)]
    #[schemars(with = "u32", range(min = 1, max = 50), extend("default" = 20))]
    pub max_seconds: Option<u32>,
}

/// A send's `wait_seconds`, or `Err` with it when over 50: the schema bounds it, but not
/// every client validates arguments against it.
pub fn checked_send_wait(seconds: u32) -> Result<u32, u32> {
    if seconds <= MAX_WAIT_SECONDS {
        Ok(seconds)
    } else {
        Err(seconds)
    }
}

impl SendText {
    /// The wait asked for, in seconds, brought within 0 to 50 (for deadlines).
    pub fn seconds(&self) -> u32 {
        self.wait_seconds.min(MAX_WAIT_SECONDS)
    }
}

impl SendKeys {
    /// The wait asked for, in seconds, brought within 0 to 50 (for deadlines).
    pub fn seconds(&self) -> u32 {
        self.wait_seconds.min(MAX_WAIT_SECONDS)
    }
}

impl WaitWindow {
    /// The wait asked for, in seconds: `max_seconds` or 20, brought within 1 to 50. For bounds
    /// such as an embedder's deadline: a `max_seconds` out of range is refused by rat-core's
    /// `Terminals::wait_window`, which waits for nothing then.
    pub fn seconds(&self) -> u32 {
        self.max_seconds
            .unwrap_or(DEFAULT_WAIT_SECONDS)
            .clamp(1, MAX_WAIT_SECONDS)
    }

    /// The wait asked for, in seconds (`max_seconds` or 20), or `Err` with the `max_seconds`
    /// given when it is out of 1 to 50: the schema bounds it, but not every client validates
    /// arguments against it, and a wait silently shortened or lengthened misleads.
    pub fn checked_seconds(&self) -> Result<u32, u32> {
        match self.max_seconds {
            None => Ok(DEFAULT_WAIT_SECONDS),
            Some(s) if (1..=MAX_WAIT_SECONDS).contains(&s) => Ok(s),
            Some(s) => Err(s),
        }
    }
}

/// The input of write_file: `{path, content}`, both required (the content may be empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct WriteFile {
    /// absolute, or starting with ~/ for the home directory
    pub path: String,
    /// the whole content of the file, written as is: nothing is added
    pub content: String,
}

/// The input of read_file: `{path, start_line, max_lines, line_numbers}`, only the path
/// required. `start_line` 0 is no start (lines count from 1, and a schema can not tell 0 from a
/// missing number), and so is `max_lines` 0; `max_lines` is unsigned, so that the schema refuses
/// a negative number.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct ReadFile {
    /// absolute, or starting with ~/ for the home directory
    pub path: String,
    /// the first line to read, from 1 (the default, and 0 the same); negative counts from the end: -100 for the last 100 lines
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub start_line: Option<i64>,
    /// the most lines to read; 0 or absent reads all
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub max_lines: Option<u64>,
    /// prefix each line with its number and a tab, as cat -n does: to refer to lines, not to write the content back
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub line_numbers: Option<bool>,
}
