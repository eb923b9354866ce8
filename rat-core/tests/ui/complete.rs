// A complete tool: its entry is made, as the table makes it.
use rat_core::result::{ReadBudget, ToolResult};
use rat_core::terminals::{ListWindows, TerminalCheck};
use rat_core::tool::{Annotations, Call, Tool, Wait};

struct Hostname;

impl Tool for Hostname {
    const NAME: &'static str = "hostname";
    const TITLE: &'static str = "Host name";
    const ANNOTATIONS: Annotations = Annotations::READ_ONLY;
    const WAIT: Wait = Wait::Never;
    type Input = ListWindows;

    fn description(_check: &TerminalCheck, _budget: ReadBudget) -> String {
        "The host name.".into()
    }

    async fn run<'a>(_input: ListWindows, _call: &'a Call<'a>) -> ToolResult {
        ToolResult::ok("host")
    }
}

fn main() {
    let entry = rat_core::tool::entry::<Hostname>();
    assert_eq!(entry.name, "hostname");
}
