//! The terminals: the controller over tmux-cc, the startup check and the seven terminal tools (ratd-design.txt, Tools, Terminals). Under construction (issue 3).
