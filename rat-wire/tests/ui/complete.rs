// A table whose every entry gives every field compiles, and derives the rest.
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

fn main() {
    assert_eq!(Tool::NAMES, ["list_windows", "read_window"]);
    assert_eq!(Tool::from_name("read_window"), Some(Tool::ReadWindow));
    assert_eq!(Tool::ReadWindow.title(), "Read a window");
    assert!(Tool::ListWindows.input_schema().contains_key("properties"));
}
