//! Debug aid: print hunkgen's shaped tree of a Java/Python file, one node per line.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: syntax_outline FILE [named]");
        std::process::exit(2);
    };
    let shape = if args.get(2).map(String::as_str) == Some("named") {
        hunkgen::syntax::TreeShape::Named
    } else {
        hunkgen::syntax::TreeShape::JavaParser
    };
    let Some(lang) = hunkgen::syntax::Lang::from_path(path) else {
        eprintln!("{path}: unknown language");
        std::process::exit(2);
    };
    let src = match std::fs::read(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let f = hunkgen::syntax::parse_file(lang, &src, shape);
    print!("{}", f.outline());
    println!("diameter {} errors {}", f.diameter(), f.error_count());
}
