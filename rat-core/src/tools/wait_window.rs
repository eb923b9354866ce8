//! `wait_window`: the tool's entry, its input ([`WaitWindow`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{TerminalCheck, WaitWindow, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Waits for a window's command to finish, or for its screen to settle (`docs/design/terminals.md`,
/// wait_window).
#[derive(Debug)]
pub struct WaitWindowTool;

impl Tool for WaitWindowTool {
    const NAME: &'static str = "wait_window";
    const TITLE: &'static str = "Wait for a window";
    const ANNOTATIONS: Annotations = Annotations::READ_ONLY;
    const WAIT: Wait = Wait::Always;
    type Input = WaitWindow;

    fn description(check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::wait_window_description(check)
    }

    async fn run<'a>(input: WaitWindow, call: &'a Call<'a>) -> ToolResult {
        let work = call.terminals().wait_window(input, call.cancel.clone());
        call.within(Self::NAME, work).await
    }
}
