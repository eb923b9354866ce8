//! `send_keys`: the tool's entry, its input ([`SendKeys`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{SendKeys, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Presses keys in a window (`docs/design/terminals.md`, send_keys).
#[derive(Debug)]
pub struct SendKeysTool;

impl Tool for SendKeysTool {
    const NAME: &'static str = "send_keys";
    const TITLE: &'static str = "Send keys";
    const ANNOTATIONS: Annotations = Annotations::INPUT;
    const WAIT: Wait = Wait::WhenAsked;
    type Input = SendKeys;

    fn description(check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::send_keys_description(check)
    }

    async fn run<'a>(input: SendKeys, call: &'a Call<'a>) -> ToolResult {
        let work = call.terminals().send_keys_with(input, call.cancel.clone());
        call.within(Self::NAME, work).await
    }
}
