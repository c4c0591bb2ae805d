//! The `hunkgen` binary: parse the command line, run the library, map errors to exit codes.

fn main() {
    let cli = hunkgen::cli::parse();
    if let Err(err) = hunkgen::cli::run(cli) {
        // A closed pipe (`hunkgen stats ... | head`) is not an error.
        if err
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        {
            std::process::exit(0);
        }
        // One line: the error and those causes whose text it does not already contain.
        let mut line = err.to_string();
        for cause in err.chain().skip(1) {
            let text = cause.to_string();
            if !line.contains(&text) {
                line = format!("{line}: {text}");
            }
        }
        eprintln!("error: {}", line.replace('\n', " "));
        std::process::exit(1);
    }
}
