//! Tests of the prompts' pure helpers.

use super::assigns_prompt_command;

#[test]
fn prompt_command_assigned() {
    for yes in [
        "PROMPT_COMMAND=",
        "export PROMPT_COMMAND='history -a'",
        "unset PROMPT_COMMAND",
        "unset -v PROMPT_COMMAND; ls",
        "x=1; PROMPT_COMMAND[0]=true",
    ] {
        assert!(assigns_prompt_command(yes), "{yes}");
    }
    for no in [
        "PROMPT_COMMAND+=';history -a'",
        "echo $PROMPT_COMMAND",
        "MY_PROMPT_COMMAND=1",
        "unset PROMPT_COMMAND_X",
        "ls",
    ] {
        assert!(!assigns_prompt_command(no), "{no}");
    }
}
