//! `close_window`: the tool's entry, its input ([`CloseWindow`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{CloseWindow, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Closes a window (`docs/design/terminals.md`, close_window).
#[derive(Debug)]
pub struct CloseWindowTool;

impl Tool for CloseWindowTool {
    const NAME: &'static str = "close_window";
    const TITLE: &'static str = "Close a window";
    const ANNOTATIONS: Annotations = Annotations::REPLACES;
    const WAIT: Wait = Wait::Never;
    type Input = CloseWindow;

    fn description(_check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::close_window_description()
    }

    async fn run<'a>(input: CloseWindow, call: &'a Call<'a>) -> ToolResult {
        call.within(Self::NAME, call.terminals().close_window(input))
            .await
    }
}
