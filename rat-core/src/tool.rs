//! What a tool is: one type implementing [`Tool`] (its name, title, annotations, wait, input
//! type, description and run), in a file of its own under `tools/`, listed once in
//! [`crate::tools::TOOLS`]. Nothing else names a tool: the catalog, the check of the
//! arguments, the deadline and ratd read them from the table (`docs/design/tools.md`, Adding a
//! tool).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use rat_wire::tool::Wait;

use crate::files::journal::Journal;
use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{TerminalCheck, Terminals, texts};

/// A tool: everything about it but the line of the table that lists it. A type missing an item
/// does not compile, the compiler naming the item (`tests/ui/`).
pub trait Tool: 'static {
    /// The name clients call.
    const NAME: &'static str;
    /// A human title, for clients to display.
    const TITLE: &'static str;
    /// Its annotations.
    const ANNOTATIONS: Annotations;
    /// How long its calls wait for a terminal, on top of a plain call's time.
    const WAIT: Wait;
    /// Its arguments: serde reads them (after [`crate::arguments::check`]), schemars writes
    /// the schema clients get, its doc comments the descriptions of the properties.
    type Input: DeserializeOwned + JsonSchema + Send;
    /// What the agent reads of it, worded after the startup check and stating the read budget.
    fn description(check: &TerminalCheck, budget: ReadBudget) -> String;
    /// Runs it with `input`, on what `call` gives.
    fn run<'a>(
        input: Self::Input,
        call: &'a Call<'a>,
    ) -> impl Future<Output = ToolResult> + Send + 'a;
}

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

/// What the calls of one client run on: its terminals (its tmux session), the read budget and
/// the journal of the file tools, and the count of the calls that wait.
#[derive(Debug, Clone)]
pub struct Session {
    /// The terminals of the client's session.
    pub terminals: Terminals,
    /// The most a read returns, header included.
    pub read_budget: ReadBudget,
    /// The writes in progress (`crate::files::journal`), when it could be opened.
    pub journal: Option<Arc<Journal>>,
    /// The calls that wait, counted while they run (ratd's status line shows them).
    pub waits: Arc<AtomicUsize>,
}

/// One call, as a tool's run sees it: the session, the cancellation (the request's end, ratd's
/// stop) and the call's deadline.
#[derive(Debug)]
pub struct Call<'a> {
    /// The session of the client calling.
    pub session: &'a Session,
    /// Fires when the request ends: a wait ends at once.
    pub cancel: CancellationToken,
    /// The call's time: [`crate::tools::TOOL_TIMEOUT`] plus its wait.
    pub limit: Duration,
}

impl Call<'_> {
    /// The terminals of the session.
    pub fn terminals(&self) -> &Terminals {
        &self.session.terminals
    }

    /// `text` (send_text's text, write_file's content) with the session's placeholders
    /// replaced by their values, or the refusal to answer when one is unknown: then nothing is
    /// sent or written (`docs/design/secrets.md`, The way back).
    pub fn restore(&self, text: &mut String, tool: &str, what: &str) -> Result<(), ToolResult> {
        let Some(vault) = self.session.terminals.vault() else {
            return Ok(());
        };
        match vault.restore(text) {
            Ok(std::borrow::Cow::Owned(restored)) => *text = restored,
            Ok(std::borrow::Cow::Borrowed(_)) => {}
            Err(unknown) => return Err(unknown.refusal(tool, what)),
        }
        Ok(())
    }

    /// The one deadline of a terminal tool's call: `work`'s result, or tmux not answering
    /// within the call's time (the file tools bound their own work).
    pub async fn within(&self, tool: &str, work: impl Future<Output = ToolResult>) -> ToolResult {
        tokio::time::timeout(self.limit, work)
            .await
            .unwrap_or_else(|_| not_answering(tool, self.limit))
    }
}

/// The text of a call tmux did not answer within its time (beyond it, tmux is stuck, and the
/// answer says so: `docs/design/transport.md`, Timeouts).
pub fn not_answering(tool: &str, limit: Duration) -> ToolResult {
    ToolResult::failed(
        // The words of rat-core's own timeout of a tmux command.
        texts::NOT_ANSWERING,
        format!("{tool}: no answer from tmux within {} s", limit.as_secs()),
    )
}

/// A call's future, its arguments read.
pub(crate) type Running<'a> =
    Pin<Box<dyn Future<Output = Result<ToolResult, ToolResult>> + Send + 'a>>;

/// A [`Tool`] as the table holds it: its constants, and its functions with the input type
/// read in.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The name clients call.
    pub name: &'static str,
    /// A human title.
    pub title: &'static str,
    /// Its annotations.
    pub annotations: Annotations,
    /// How its calls wait.
    pub wait: Wait,
    pub(crate) description: fn(&TerminalCheck, ReadBudget) -> String,
    pub(crate) schema: fn() -> Map<String, Value>,
    pub(crate) run: for<'a> fn(Map<String, Value>, &'a Call<'a>) -> Running<'a>,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Entry {
    /// What the agent reads of it, worded after `check` and stating `budget`.
    pub fn description(&self, check: &TerminalCheck, budget: ReadBudget) -> String {
        (self.description)(check, budget)
    }
}

/// The entry of the table for `T`.
pub const fn entry<T: Tool>() -> Entry {
    Entry {
        name: T::NAME,
        title: T::TITLE,
        annotations: T::ANNOTATIONS,
        wait: T::WAIT,
        description: T::description,
        schema: schema_of::<T::Input>,
        run: run::<T>,
    }
}

/// `arguments`, checked already, read into `T`'s input, then `T` run.
fn run<'a, T: Tool>(arguments: Map<String, Value>, call: &'a Call<'a>) -> Running<'a> {
    Box::pin(async move {
        let input = crate::arguments::read::<T::Input>(T::NAME, arguments)?;
        Ok(T::run(input, call).await)
    })
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
