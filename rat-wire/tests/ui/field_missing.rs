// A tool written into the table without one of its fields (here its annotations): the table
// does not compile, and says what each entry gives.

rat_wire::tool_table! {
    ListWindows {
        name: "list_windows",
        title: "List windows",
        input: rat_wire::input::ListWindows,
        annotations: rat_wire::tool::Annotations::READ_ONLY,
        wait: rat_wire::tool::Wait::Never,
    },
    ReadWindow {
        name: "read_window",
        title: "Read a window",
        input: rat_wire::input::ReadWindow,
        wait: rat_wire::tool::Wait::Never,
    },
}

fn main() {}
