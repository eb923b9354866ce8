//! The startup check run (`docs/design/terminals.md`, The startup check): a terminal started as
//! every terminal is, four lines typed in it, what its prompts recorded read back.

use std::time::{Duration, Instant};

use tmux_cc::{Client, Command};

use crate::terminals::check::TerminalCheck;

use super::*;

/// The session of the startup check: longer than any client name can be, so no client's.
const CHECK_SESSION: &str = "rat-startup-check-of-the-terminals";

impl Controller {
    /// The startup check (`docs/design/terminals.md`, The startup check), 10 seconds at most: a
    /// terminal is started as every terminal is (a session of its own on rat's server, login bash,
    /// the terminals' environment, `TERM` and `TMUX` included), then four lines are typed in it:
    ///
    /// 1. `unset HISTFILE` (an interactive bash saves its history when it exits);
    /// 2. `false`: the hook must record `1`;
    /// 3. `false | true`, after saving what the hook recorded: it must record `1 0`;
    /// 4. a line printing both, whether bracketed paste is on at the prompt (`bind -v`, as
    ///    readline reports it), and what `PROMPT_COMMAND` became, for the log.
    ///
    /// Typed rather than given with `-c`, each line makes bash show its prompt, running
    /// `PROMPT_COMMAND` as in any terminal: what is checked is what the prompt ends up with,
    /// whoever set it (a startup file assigning `PROMPT_COMMAND` replaces rat's hook: no
    /// prompt; one prepending a command, starship-style, loses the statuses). A check that can
    /// not run (a startup file blocking, which blocks every terminal too) is taken as nothing
    /// holding. The outcome is kept: it words the texts of `list_windows` and `wait_window`.
    pub async fn check_terminals(&self) -> TerminalCheck {
        let started = Instant::now();
        let outcome = match tokio::time::timeout(CHECK_TIMEOUT, self.run_check()).await {
            Ok(Ok(check)) => check,
            Ok(Err(problem)) => TerminalCheck::not_run(problem, started.elapsed()),
            Err(_) => TerminalCheck::not_run(
                "bash showed no answer within 10 s: a startup file may block, and blocks every terminal too",
                started.elapsed(),
            ),
        };
        let outcome = TerminalCheck {
            duration: started.elapsed(),
            ..outcome
        };
        if let Ok(client) = self.inner.client().await {
            let _ = client
                .reply(&Command::new("kill-session").args(["-t", &format!("={CHECK_SESSION}")]))
                .await;
        }
        *self.inner.check.write().unwrap_or_else(|e| e.into_inner()) = outcome.clone();
        outcome
    }

    async fn run_check(&self) -> Result<TerminalCheck, String> {
        let client = self
            .inner
            .client()
            .await
            .map_err(|_| "the tmux server is not running".to_string())?;
        let home = self.inner.config.home.to_string_lossy().into_owned();
        let target = format!("={CHECK_SESSION}:");
        // Builtins named as such and `\command`: a startup file's aliases or functions (echo,
        // bind, grep) must not change what the check reads.
        let script = "unset HISTFILE\n(exit 1)\n__rat_c1=${__rat_st-}; (exit 1) | (exit 0)\n\
            builtin echo \"RAT-CHECK[${__rat_c1-}][${__rat_st-}][$(builtin bind -v 2>/dev/null | \\command \\grep -c '^set enable-bracketed-paste on')]\"; \
            builtin echo \"RAT-PC[${PROMPT_COMMAND-}]\"\n";
        let replies = client
            .input(&[
                new_terminal_session(CHECK_SESSION, None, &home),
                Command::new("set-buffer").args(["-b", "rat-check", "--", script]),
                // Typed (no -p): each new line is Enter, so each line gets a prompt of its own.
                Command::new("paste-buffer").args(["-b", "rat-check", "-t", &target, "-r", "-d"]),
            ])
            .await
            .map_err(|e| format!("could not start the check's terminal: {e}"))?;
        if let Some(failed) = replies.iter().find(|r| !r.success) {
            return Err(format!(
                "could not start the check's terminal: {}",
                lines(failed).join(" ")
            ));
        }
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let reply = client
                .reply(
                    &Command::new("capture-pane").args(["-p", "-J", "-S", "-200", "-t", &target]),
                )
                .await
                .map_err(|e| format!("could not read the check's terminal: {e}"))?;
            let screen = lines(&reply);
            let Some(line) = screen.iter().find(|l| l.starts_with("RAT-CHECK[")) else {
                continue;
            };
            let fields: Vec<&str> = line
                .trim_end()
                .trim_start_matches("RAT-CHECK[")
                .trim_end_matches(']')
                .split("][")
                .collect();
            let prompt_command = screen
                .iter()
                .find_map(|l| l.strip_prefix("RAT-PC["))
                .map(|pc| pc.trim_end().trim_end_matches(']').to_string());
            let [first, second, paste] = fields[..] else {
                return Err(format!("unexpected answer of the check: {line:?}"));
            };
            // The hook ran (its variables are set): its records must reach ratd too.
            let recorded = self.check_pane_recorded(&client, &target).await;
            return Ok(TerminalCheck {
                ran: true,
                bracketed_paste: paste != "0" && !paste.is_empty(),
                prompts: !second.is_empty() && recorded,
                statuses: first == "1" && second == "1,0",
                prompt_command,
                problem: None,
                duration: Duration::ZERO,
            });
        }
    }

    /// Whether a prompt of the check's pane reached ratd, waiting a second at most for the
    /// record of its last prompt (written before bash printed the line that ended the check).
    async fn check_pane_recorded(&self, client: &Client, target: &str) -> bool {
        let Ok(reply) = client
            .reply(&Command::new("list-panes").args(["-t", target, "-F", "#{pane_id}"]))
            .await
        else {
            return false;
        };
        let Some(pane) = lines(&reply)
            .first()
            .and_then(|id| id.strip_prefix('%'))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            return false;
        };
        let prompts = self.inner.current_server().prompts;
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if prompts.pane(pane).prompt.is_some() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
}
