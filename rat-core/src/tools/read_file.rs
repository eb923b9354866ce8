//! `read_file`: the tool's entry, its input ([`ReadFile`]) and description read from
//! [`crate::files`], which does the work and bounds it by the call's time.

use crate::files::{self, ReadFile};
use crate::result::{ReadBudget, ToolResult};
use crate::terminals::TerminalCheck;
use crate::tool::{Annotations, Call, Tool, Wait};
use crate::tools::TOOL_TIMEOUT;

/// Reads a text file, or some of its lines (`docs/design/files.md`, read_file).
#[derive(Debug)]
pub struct ReadFileTool;

impl Tool for ReadFileTool {
    const NAME: &'static str = "read_file";
    const TITLE: &'static str = "Read a file";
    const ANNOTATIONS: Annotations = Annotations::READ_ONLY;
    const WAIT: Wait = Wait::Never;
    type Input = ReadFile;

    fn description(_check: &TerminalCheck, budget: ReadBudget) -> String {
        files::read_file_description(budget)
    }

    async fn run<'a>(input: ReadFile, call: &'a Call<'a>) -> ToolResult {
        // The file tools bound their own work (a stuck file system is reported as such).
        let session = call.session;
        let journal = session.journal.as_deref();
        files::read_file_noted(input, session.read_budget, TOOL_TIMEOUT, journal).await
    }
}
