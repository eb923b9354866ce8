//! rat-tool: generates and inspects the certificate bundles of rat, and checks a running ratd
//! as a harness reaches it (`docs/design/bundles.md`).
//!
//! ```text
//! rat-tool bundle generate --tenant NAME --client NAME [--client NAME...] --output DIR
//! rat-tool bundle inspect DIR [DIR...]
//! rat-tool check --server HOST:PORT --bundle DIR      (the flags of rat, declared once)
//! rat-tool config --server HOST:PORT --bundle DIR [--harness NAME]   (the harness entry)
//! ```
//!
//! Glue only: the bundles are `rat_wire::mtls`, the flags `rat_wire::connect`; `check` is an
//! rmcp client over reqwest with the client configuration of the bundle.
#![forbid(unsafe_code)]

mod bundle;
mod check;
mod config;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The exit statuses, as `--help` documents them.
const EXIT_HELP: &str = "\
Exit status:
  0  everything passed (or the bundle was written)
  1  a check failed, or the bundle could not be written (the output says which and why)
  2  the command line is invalid";

/// The exit statuses of `rat-tool config`, as its `--help` documents them.
const CONFIG_EXIT_HELP: &str = "\
Exit status:
  0  the configuration was printed
  1  the client directory can not be used, or the configuration could not be written
  2  the command line is invalid";

/// Makes rat certificate bundles, inspects them, and checks a running ratd.
#[derive(Debug, Parser)]
#[command(name = "rat-tool", version, after_help = EXIT_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate and inspect the certificate bundle of a tenant.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Check a running ratd from a client directory, as a harness reaches it.
    ///
    /// Takes the flags of rat: copy the command line of a harness to check it. Checks step by
    /// step, stopping at the first failure: the files of the client directory, the network,
    /// TLS, MCP, the tools; then gives its verdict. It calls no tool, leaving nothing behind on
    /// the server.
    #[command(after_help = EXIT_HELP)]
    Check(CheckArgs),
    /// Print the harness configuration of a client directory: the "mcpServers" entry starting
    /// rat with these flags, and the direct URL with the files to present.
    ///
    /// Takes the flags of rat. The entry names rat next to this rat-tool, and the client
    /// directory, by absolute paths; the directory is checked first, as rat checks it. With
    /// --harness, the entry in that harness's own file and format. The configuration alone
    /// goes to stdout (for > FILE or | jq), the notes around it to stderr.
    #[command(after_help = CONFIG_EXIT_HELP)]
    Config(ConfigArgs),
}

/// The flags of `rat-tool check`.
#[derive(Debug, clap::Args)]
struct CheckArgs {
    #[command(flatten)]
    server: rat_wire::connect::ServerArgs,
    /// After the verdict, print the MCP instructions and each tool's description, as agents
    /// read them.
    #[arg(long)]
    verbose: bool,
}

/// The flags of `rat-tool config`.
#[derive(Debug, clap::Args)]
struct ConfigArgs {
    #[command(flatten)]
    server: rat_wire::connect::ServerArgs,
    /// The harness to write the configuration for, in its own file and format; without it,
    /// the "mcpServers" JSON most harnesses read, and the direct URL.
    #[arg(long, value_name = "NAME", value_enum)]
    harness: Option<config::Harness>,
}

#[derive(Debug, Subcommand)]
enum BundleCommand {
    /// Generate the bundle of a tenant: a CA, a certificate for ratd, one per client.
    ///
    /// Each certificate names its side: the server one the tenant, each client one its
    /// session. The CA key is never written: adding a client, or replacing a key, is
    /// generating a new bundle. The output directory must not exist.
    #[command(after_help = EXIT_HELP)]
    Generate {
        /// The tenant ratd serves with the bundle (letters, digits, '_', '-', up to 32).
        #[arg(long, value_name = "NAME")]
        tenant: String,
        /// A client of the tenant, which is its session (repeat for each client).
        #[arg(long = "client", value_name = "NAME", required = true)]
        clients: Vec<String>,
        /// The directory to write the bundle to, which must not exist (parents are created).
        #[arg(long, value_name = "DIR")]
        output: PathBuf,
    },
    /// Check bundle directories as ratd and rat do, and whether they belong to one bundle.
    ///
    /// Prints one line per check of each directory, then its side, its name, the CA
    /// fingerprint and the validity left; given several directories, whether they are of one
    /// bundle.
    #[command(after_help = EXIT_HELP)]
    Inspect {
        /// The directory of a side: DIR/server or DIR/clients/NAME.
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = std::io::stdout().lock();
    let result = match cli.command {
        Command::Bundle(BundleCommand::Generate {
            tenant,
            clients,
            output,
        }) => bundle::generate(&mut out, &tenant, &clients, &output),
        Command::Bundle(BundleCommand::Inspect { dirs }) => bundle::inspect(&mut out, &dirs),
        Command::Config(args) => {
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            config::config(
                &mut out,
                &mut std::io::stderr(),
                &args.server,
                args.harness,
                terminal,
            )
        }
        Command::Check(args) => {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    eprintln!("rat-tool: cannot start the async runtime: {e}");
                    return ExitCode::FAILURE;
                }
            };
            runtime.block_on(check::check(&mut out, &args.server, args.verbose))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rat-tool: {e}");
            ExitCode::FAILURE
        }
    }
}
