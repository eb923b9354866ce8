//! The table of tools, and the one entry point of a call ([`call`]).
//!
//! A tool is a type implementing [`Tool`], in a file of its own here, and a
//! line of `TABLE` ([`TOOLS`]). Everything else is read from the table: the names and the
//! order clients list the tools in, the catalog (`crate::catalog`), the schemas the arguments are checked
//! against, the waits, and `rat-wire/src/tools.json`, what rat knows of the tools (a test
//! fails when it disagrees: `tests/wire.rs`). ratd names no tool (`docs/design/tools.md`,
//! Adding a tool).

use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::arguments;
use crate::result::ToolResult;
use crate::tool::{Call, Entry, Session, Tool, entry};

pub mod close_window;
pub mod create_window;
pub mod list_windows;
pub mod read_file;
pub mod read_window;
pub mod send_keys;
pub mod send_text;
pub mod wait_window;
pub mod write_file;

/// The tools, in the order clients list them in.
const TABLE: &[Entry] = &[
    entry::<list_windows::ListWindowsTool>(),
    entry::<create_window::CreateWindowTool>(),
    entry::<close_window::CloseWindowTool>(),
    entry::<send_text::SendTextTool>(),
    entry::<send_keys::SendKeysTool>(),
    entry::<read_window::ReadWindowTool>(),
    entry::<wait_window::WaitWindowTool>(),
    entry::<write_file::WriteFileTool>(),
    entry::<read_file::ReadFileTool>(),
];

/// Every tool, in the order clients list them in.
pub static TOOLS: &[Entry] = TABLE;

/// The names of the tools, in the order of [`TOOLS`]. Fixed, with no tenant prefix: harnesses
/// prefix them with the server name of their own configuration.
pub const NAMES: &[&str] = &names::<{ TABLE.len() }>(TABLE);

const fn names<const N: usize>(table: &[Entry]) -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = table[i].name;
        i += 1;
    }
    names
}

/// How long a tool call may take, plus its wait (`docs/design/transport.md`, Timeouts): tmux
/// answers in milliseconds, beyond this it is stuck. The file tools bound their work by it.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// The tool named `name`, if there is one: the one place a name is resolved.
pub fn find(name: &str) -> Option<&'static Entry> {
    TOOLS.iter().find(|tool| tool.name == name)
}

static SCHEMAS: LazyLock<Vec<Map<String, Value>>> =
    LazyLock::new(|| TOOLS.iter().map(|tool| (tool.schema)()).collect());

/// The input schema of `tool`, made once: what a call's arguments are checked against on every
/// call, and what clients get.
pub fn schema(tool: &Entry) -> &'static Map<String, Value> {
    let index = TOOLS.iter().position(|t| t.name == tool.name);
    &SCHEMAS[index.unwrap_or_default()]
}

/// Runs `tool` with `arguments` in `session`: the one way into a tool. The arguments come in
/// here, checked once against the tool's schema (a refusal worded once, by
/// [`crate::arguments`]); the call's deadline is its wait plus [`TOOL_TIMEOUT`], the wait
/// counted in `session.waits` while it runs; `cancel` fires when the request ends (rmcp
/// cancels the request's context) or ratd stops, and ends a wait at once. The result goes out
/// here.
pub async fn call(
    tool: &'static Entry,
    arguments: Map<String, Value>,
    session: &Session,
    cancel: CancellationToken,
) -> ToolResult {
    let schema = schema(tool);
    let arguments = match arguments::check(tool.name, schema, arguments) {
        Ok(arguments) => arguments,
        Err(refused) => return refused,
    };
    // A call that waits (wait_window, a send asked to wait) is a wait: its deadline sized by
    // its wait, counted among the waits in flight. The wait is read as rat reads it for its
    // own deadline.
    let wait = Duration::from_secs(u64::from(tool.wait.seconds(schema, &arguments)));
    let _wait = (!wait.is_zero()).then(|| Counted::new(&session.waits));
    let call = Call {
        session,
        cancel,
        limit: TOOL_TIMEOUT + wait,
    };
    let (Ok(mut result) | Err(mut result)) = (tool.run)(arguments, &call).await;
    // Every answer masked (docs/design/secrets.md); read_window's before its budget's cut, in
    // the terminals, as are the rows of the answers that wait.
    if tool.name != read_window::ReadWindowTool::NAME
        && let Some(vault) = session.terminals.vault()
    {
        vault.mask_result(&mut result);
    }
    result
}

/// One more in a count while it lives.
#[derive(Debug)]
pub struct Counted<'a>(&'a AtomicUsize);

impl<'a> Counted<'a> {
    /// Adds one to `counter`, taken off when dropped.
    pub fn new(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Self(counter)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
