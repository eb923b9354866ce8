//! The terminal tools against a real tmux and a real bash, in one test binary (one link, one
//! run): a private socket and a home directory per test, set up by `common`.
//!
//! - `basic`: waits, statuses, the check, startup files, windows and their lifecycle.
//! - `detached`: what a closed window leaves running, as an agent leaves it.
//! - `exact`: odd characters, the cursor, full-screen mode, long key lists, closed windows.
//! - `frameworks`: the prompt frameworks users have (`scripts/test` installs them).
//! - `locale`: non-ASCII text whatever ratd's locale.
//! - `model`: waits and statuses against ground truth over random sequences
//!   (`RAT_MODEL_SEQUENCES`, `RAT_MODEL_SEED`).
//! - `output`: what a wait's answer carries of what the command printed.
//! - `paste`: send_text into running programs: a line typed as keys (vim, less, REPLs),
//!   lines pasted, and what the answer tells of a program with bracketed paste on.
//! - `secrets`: secrets printed by real commands masked in every answer, the round trips of
//!   their placeholders, the outputs of a real session untouched.
//! - `keys_tmux`: send_keys' key names against tmux itself.
//! - `shells`: the shell's own state as an agent meets it: errexit, stopped jobs, shells
//!   that end, nested shells.
//! - `transcript`: each command's rows from its marks against ground truth over random
//!   commands (`RAT_TRANSCRIPT_SEQUENCES`, `RAT_TRANSCRIPT_SEED`).

mod answers;
mod basic;
mod common;
mod detached;
mod exact;
mod frameworks;
mod keys_tmux;
mod locale;
mod marks;
mod model;
mod output;
mod paste;
mod rows;
mod secrets;
mod shells;
mod transcript;
