//! What every tool returns, and the read budget shared by `read_window` and `read_file`.
//!
//! The design: `docs/design/tools.md` (results, errors, the read budget, logs). A tool is a plain
//! async function returning a [`ToolResult`]: the text the agent reads, how the call ended
//! ([`Outcome`], which decides MCP's `isError` and the log level), and the facts a log line may
//! carry ([`ToolResult::log`]), never the content of a text input, keys or a file.

use std::fmt;

/// How a tool call ended. Decides `isError` (set on a result whose action was not done; a
/// message reports an outcome the agent may act upon) and the log level (warning for a failure
/// the agent did not cause): `docs/design/tools.md`, Results, errors and isError.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Done as asked. `isError` false; logged `ok`.
    Ok,
    /// Not an error, but not what was asked either (nothing to close, a window that already
    /// exists, empty text without Enter). `isError` false; logged `message`.
    Message,
    /// Not done because of the agent's input or the state it asked about (a bad name, a control
    /// character, a missing window). `isError` true; logged `error` at info level.
    Refused {
        /// For the log line only, never shown to the agent: why, in a few words.
        cause: String,
    },
    /// Not done for a reason the agent did not cause (tmux not answering, an I/O error of the
    /// system, an internal error). `isError` true; logged `error` at warning level.
    Failed {
        /// For the log line only: the underlying error, with its chain.
        cause: String,
    },
}

impl Outcome {
    /// MCP's `isError` for this outcome.
    pub fn is_error(&self) -> bool {
        matches!(self, Outcome::Refused { .. } | Outcome::Failed { .. })
    }
}

/// The result of one tool call: the text for the agent and what a log line may show of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The whole text the agent reads (a header line between brackets when there is something
    /// to say, then the content), exactly as it goes into the MCP result's one text content.
    pub text: String,
    /// How the call ended.
    pub outcome: Outcome,
    /// Facts for the log line, as `key=value` pairs in order: sizes, counts, paths, whether Enter
    /// was pressed (`docs/design/status-and-logs.md`). NEVER the content of a text input, keys or a file.
    pub log: Vec<(&'static str, String)>,
}

impl ToolResult {
    /// A result done as asked.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            outcome: Outcome::Ok,
            log: Vec::new(),
        }
    }
    /// A message: not an error, not what was asked either.
    pub fn message(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            outcome: Outcome::Message,
            log: Vec::new(),
        }
    }
    /// Refused because of the agent's input; `cause` goes to the log only.
    pub fn refused(text: impl Into<String>, cause: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            outcome: Outcome::Refused {
                cause: cause.into(),
            },
            log: Vec::new(),
        }
    }
    /// Failed for a reason the agent did not cause; `cause` goes to the log only.
    pub fn failed(text: impl Into<String>, cause: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            outcome: Outcome::Failed {
                cause: cause.into(),
            },
            log: Vec::new(),
        }
    }
    /// Adds a fact for the log line (never content).
    pub fn with_log(mut self, key: &'static str, value: impl fmt::Display) -> Self {
        self.log.push((key, value.to_string()));
        self
    }

    /// Adds `wait_seconds` to the log line of a send that waits; a send that does not (0, the
    /// default) logs as before.
    pub fn with_wait_log(self, wait_seconds: u32) -> Self {
        if wait_seconds == 0 {
            self
        } else {
            self.with_log("wait_seconds", wait_seconds)
        }
    }
}

/// The most a result of `read_window` or `read_file` holds, header included, in bytes
/// (`docs/design/tools.md`, Read budget). Set by ratd's `--read-budget`; 64 KiB by default, never
/// under 20 KiB (a screen of 4-byte characters, its line breaks and its longest header take
/// 19349 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReadBudget(usize);

impl ReadBudget {
    /// The smallest budget accepted: 20 KiB.
    pub const MIN: usize = 20 * 1024;
    /// The default budget: 64 KiB.
    pub const DEFAULT: ReadBudget = ReadBudget(64 * 1024);

    /// A budget of `bytes`, or an error saying the size read when it is under [`Self::MIN`].
    pub fn new(bytes: usize) -> Result<Self, BudgetTooSmall> {
        if bytes < Self::MIN {
            Err(BudgetTooSmall { bytes })
        } else {
            Ok(Self(bytes))
        }
    }
    /// The budget in bytes.
    pub fn bytes(self) -> usize {
        self.0
    }
}

impl Default for ReadBudget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for ReadBudget {
    /// In the largest binary unit it is a whole number of (`64 KiB`, `1 MiB`, `1 GiB`), else
    /// `N bytes`: the form the descriptions state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (unit, size) in [("GiB", 1usize << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
            if self.0.is_multiple_of(size) {
                return write!(f, "{} {unit}", self.0 / size);
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// A read budget under 20 KiB was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the read budget must be at least 20 KiB (20480 bytes): {bytes} bytes were given")]
pub struct BudgetTooSmall {
    /// The size asked for, in bytes.
    pub bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::ReadBudget;

    #[test]
    fn budgets_read_in_their_largest_whole_unit() {
        let shown = |bytes| ReadBudget::new(bytes).unwrap().to_string();
        assert_eq!(shown(64 * 1024), "64 KiB");
        assert_eq!(shown(20 * 1024), "20 KiB");
        assert_eq!(shown(1536 * 1024), "1536 KiB");
        assert_eq!(shown(1 << 20), "1 MiB");
        assert_eq!(shown(1 << 30), "1 GiB");
        assert_eq!(shown(3 << 29), "1536 MiB");
        assert_eq!(shown(65_537), "65537 bytes");
    }
}
