//! `write_file`: the tool's entry, its input ([`WriteFile`]) and description read from
//! [`crate::files`], which does the work and bounds it by the call's time.

use crate::files::{self, WriteFile};
use crate::result::{ReadBudget, ToolResult};
use crate::terminals::TerminalCheck;
use crate::tool::{Annotations, Call, Tool, Wait};
use crate::tools::TOOL_TIMEOUT;

/// Writes a file whole (`docs/design/files.md`, write_file).
#[derive(Debug)]
pub struct WriteFileTool;

impl Tool for WriteFileTool {
    const NAME: &'static str = "write_file";
    const TITLE: &'static str = "Write a file";
    const ANNOTATIONS: Annotations = Annotations::REPLACES;
    const WAIT: Wait = Wait::Never;
    type Input = WriteFile;

    fn description(_check: &TerminalCheck, _budget: ReadBudget) -> String {
        files::write_file_description()
    }

    async fn run<'a>(mut input: WriteFile, call: &'a Call<'a>) -> ToolResult {
        if let Err(refused) = call.restore(&mut input.content, Self::NAME, "content") {
            return refused;
        }
        // The file tools bound their own work (a stuck file system is reported as such).
        let journal = call.session.journal.clone();
        files::write_file_noted(input, TOOL_TIMEOUT, journal).await
    }
}
