// A tool whose file forgot its run: the compiler names the missing item.
use rat_core::result::ReadBudget;
use rat_core::terminals::{ListWindows, TerminalCheck};
use rat_core::tool::{Annotations, Tool, Wait};

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
}

fn main() {
    let _ = rat_core::tool::entry::<Hostname>();
}
