//! The defaults ratd and its clients share (the endpoint path, the default port) and the `--server`/`--bundle` flags shared by rat and `rat-tool check`. Under construction (issue 5).
