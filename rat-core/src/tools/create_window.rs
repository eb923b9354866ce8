//! `create_window`: the tool's entry, its input ([`CreateWindow`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{CreateWindow, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Creates a window running bash (`docs/design/terminals.md`, create_window).
#[derive(Debug)]
pub struct CreateWindowTool;

impl Tool for CreateWindowTool {
    const NAME: &'static str = "create_window";
    const TITLE: &'static str = "Create a window";
    const ANNOTATIONS: Annotations = Annotations::CREATES;
    const WAIT: Wait = Wait::Never;
    type Input = CreateWindow;

    fn description(check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::create_window_description(check)
    }

    async fn run<'a>(input: CreateWindow, call: &'a Call<'a>) -> ToolResult {
        call.within(Self::NAME, call.terminals().create_window(input))
            .await
    }
}
