//! The `bluff` binary: see `bluff --help`.

fn main() -> std::process::ExitCode {
    bluff::cli::main()
}
