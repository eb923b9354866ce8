// A tool added to the table, and its handler forgotten: a dispatch written as ratd's (one arm
// per tool, no `_` arm) does not compile, and names the tool left out.
use rat_wire::input::{ListWindows, ReadWindow};
use rat_wire::tool::{Annotations, Wait};

rat_wire::tool_table! {
    ListWindows {
        name: "list_windows",
        title: "List windows",
        input: ListWindows,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Never,
    },
    ReadWindow {
        name: "read_window",
        title: "Read a window",
        input: ReadWindow,
        annotations: Annotations::READ_ONLY,
        wait: Wait::Never,
    },
}

fn dispatch(tool: Tool) -> &'static str {
    match tool {
        Tool::ListWindows => "the windows",
    }
}

fn main() {
    let _ = dispatch(Tool::ALL[0]);
}
