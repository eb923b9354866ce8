//! `list_windows`: the tool's entry, its input ([`ListWindows`]) and description read from the
//! terminals, its work done by [`crate::terminals::Terminals`] within the call's deadline.

use crate::result::{ReadBudget, ToolResult};
use crate::terminals::{ListWindows, TerminalCheck, texts};
use crate::tool::{Annotations, Call, Tool, Wait};

/// Lists the session's windows (`docs/design/terminals.md`, list_windows).
#[derive(Debug)]
pub struct ListWindowsTool;

impl Tool for ListWindowsTool {
    const NAME: &'static str = "list_windows";
    const TITLE: &'static str = "List windows";
    const ANNOTATIONS: Annotations = Annotations::READ_ONLY;
    const WAIT: Wait = Wait::Never;
    type Input = ListWindows;

    fn description(check: &TerminalCheck, _budget: ReadBudget) -> String {
        texts::list_windows_description(check)
    }

    async fn run<'a>(_input: ListWindows, call: &'a Call<'a>) -> ToolResult {
        call.within(Self::NAME, call.terminals().list_windows())
            .await
    }
}
