//! The inputs of the terminal tools, defined with the table of tools in `rat-wire` (what
//! rat and ratd share on the wire): their JSON schemas come from these types, their doc comments
//! becoming the descriptions of the properties (`docs/design/tools.md`, Inputs).

pub use rat_wire::input::{
    CloseWindow, CreateWindow, DEFAULT_WAIT_SECONDS, ListWindows, MAX_WAIT_SECONDS, ReadWindow,
    SendKeys, SendText, WaitWindow, checked_send_wait,
};
