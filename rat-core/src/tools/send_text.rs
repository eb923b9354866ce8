//! `send_text`: the tool's entry, its input ([`SendText`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{SendText, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Pastes text into a window, Enter after it or not (`docs/design/terminals.md`, send_text).
#[derive(Debug)]
pub struct SendTextTool;

impl Tool for SendTextTool {
    const NAME: &'static str = "send_text";
    const TITLE: &'static str = "Send text";
    const ANNOTATIONS: Annotations = Annotations::INPUT;
    const WAIT: Wait = Wait::WhenAsked;
    type Input = SendText;

    fn description(check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::send_text_description(check)
    }

    async fn run<'a>(mut input: SendText, call: &'a Call<'a>) -> ToolResult {
        if let Err(refused) = call.restore(&mut input.text, Self::NAME, "text") {
            return refused;
        }
        let work = call.terminals().send_text_with(input, call.cancel.clone());
        call.within(Self::NAME, work).await
    }
}
