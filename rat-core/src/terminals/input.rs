//! The inputs of the terminal tools, read by their files in `crate::tools` and taken by the
//! terminal methods of [`super::Terminals`]: their JSON schemas come from these types
//! (schemars), their doc comments becoming the descriptions of the properties
//! (`docs/design/tools.md`, Inputs). `rat` reads the same schemas from `rat-wire`, generated
//! from the table of tools (`crate::tools`).
//!
//! The `window` argument of the four tools taking one carries `"x-mcp-header": "Window"`: from
//! protocol 2026-07-28 on, the client mirrors it into the `Mcp-Param-Window` HTTP header
//! (SEP-2243).
//!
//! A field no input has is refused, naming it, and the schemas say so
//! (`additionalProperties: false`, which schemars writes for `deny_unknown_fields`): a
//! misspelt optional argument silently ignored would do what the agent did not ask.

use schemars::JsonSchema;
use serde::Deserialize;

pub use rat_wire::tool::{DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS};

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
    /// The text to send, as is: new lines included, nothing added. No control character but tab and new line (keys go through send_keys).
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
/// any count is taken, clamped to the history there is (the schema gives no bound above, and a
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
    /// Instead of the screen (scrollback_rows then unused): rows of the output of the window's last command, or of the one running, by number as wait_window's answers and their hints number them: row 1 is the command's first output row, from and to both included. A to past the last row reads to the last one; a from past it, or after to, is refused; so is a window where no command's rows are known from the shell's marks (scrollback_rows reads the history there). Rows over the read budget: the last ones asked are shown, and the call reading the others is named.
    #[serde(default)]
    #[schemars(schema_with = "row_range_schema")]
    pub output_rows: Option<RowRange>,
}

/// Rows of a command's output by number, both included: read_window's `output_rows`. The
/// arguments' check (`crate::arguments`) refuses `from` after `to`, and numbers below 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowRange {
    /// The first row, from 1.
    pub from: u64,
    /// The last row, at least `from`.
    pub to: u64,
}

/// The schema of [`RowRange`], inline: an object of two whole numbers from 1.
fn row_range_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "from": {"type": "integer", "minimum": 1, "description": "The first row, from 1."},
            "to": {
                "type": "integer",
                "minimum": 1,
                "description": "The last row, not before from; past the last row, reads to it."
            }
        },
        "required": ["from", "to"]
    })
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
