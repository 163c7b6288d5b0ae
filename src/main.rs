//! The `racewatch` binary: everything happens in [`racewatch::cli`].

fn main() -> std::process::ExitCode {
    racewatch::cli::main()
}
