//! `read_window`: the tool's entry, its input ([`ReadWindow`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{ReadWindow, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Reads a window's screen and history (`docs/design/terminals.md`, read_window).
#[derive(Debug)]
pub struct ReadWindowTool;

impl Tool for ReadWindowTool {
    const NAME: &'static str = "read_window";
    const TITLE: &'static str = "Read a window";
    const ANNOTATIONS: Annotations = Annotations::READ_ONLY;
    const WAIT: Wait = Wait::Never;
    type Input = ReadWindow;

    fn description(_check: &TerminalCheck, budget: ReadBudget) -> String {
        texts::read_window_description(budget)
    }

    async fn run<'a>(input: ReadWindow, call: &'a Call<'a>) -> ToolResult {
        call.within(Self::NAME, call.terminals().read_window(input))
            .await
    }
}
