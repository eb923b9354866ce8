//! A tmux command with its arguments, quoted into one control-mode line.

use crate::quote::{QuoteError, command_line};

/// One tmux command: a name and its arguments as bytes, sent as ONE line (one command per
/// line: after a failed command, the rest of a `;`-joined line gives no reply at all in tmux
/// 3.3a, which would misalign replies).
///
/// Every argument is quoted by [`crate::quote::quote_arg`] (byte for byte: `$`, `~`, `#`, `;`,
/// `{}` are never special), so a flag is passed as its own argument (`"-t"`, then the target),
/// and data after `"--"` when it may start with `-`.
///
/// ```
/// let cmd = tmux_cc::Command::new("send-keys").arg("-t").arg("=work:=build").arg("--").arg("Enter");
/// assert_eq!(cmd.line().unwrap(), b"send-keys '-t' '=work:=build' '--' 'Enter'");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    name: String,
    args: Vec<Vec<u8>>,
}

impl Command {
    /// A command named `name` (e.g. `capture-pane`), no arguments yet.
    pub fn new(name: impl Into<String>) -> Command {
        Command {
            name: name.into(),
            args: Vec::new(),
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl AsRef<[u8]>) -> Command {
        self.args.push(arg.as_ref().to_vec());
        self
    }

    /// Appends arguments.
    pub fn args<I, A>(mut self, args: I) -> Command
    where
        I: IntoIterator<Item = A>,
        A: AsRef<[u8]>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_vec()));
        self
    }

    /// Appends `flag` then `value` when `value` is `Some`.
    pub fn opt(self, flag: &str, value: Option<impl AsRef<[u8]>>) -> Command {
        match value {
            Some(value) => self.arg(flag).arg(value),
            None => self,
        }
    }

    /// Appends `flag` when `on`.
    pub fn flag(self, flag: &str, on: bool) -> Command {
        if on { self.arg(flag) } else { self }
    }

    /// The command's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments, unquoted.
    pub fn arguments(&self) -> &[Vec<u8>] {
        &self.args
    }

    /// The command line, without its LF.
    ///
    /// # Errors
    /// A NUL byte in an argument, or a name that is not a tmux command name.
    pub fn line(&self) -> Result<Vec<u8>, QuoteError> {
        let args: Vec<&[u8]> = self.args.iter().map(Vec::as_slice).collect();
        command_line(&self.name, &args)
    }
}
