//! Debug aid: print hunkgen's shaped tree of a Java/Python file, one node per line.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `--time FILE…`: parse every file in both shapes and print the total time.
    if args.get(1).map(String::as_str) == Some("--time") {
        let files: Vec<Vec<u8>> = args[2..]
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .collect();
        let t = std::time::Instant::now();
        let (mut nodes, mut bytes) = (0, 0);
        for src in &files {
            for shape in [
                hunkgen::syntax::TreeShape::JavaParser,
                hunkgen::syntax::TreeShape::Named,
            ] {
                let f = hunkgen::syntax::parse_file(hunkgen::syntax::Lang::Java, src, shape);
                nodes += f.node_count();
            }
            bytes += src.len();
        }
        println!(
            "{} files, {bytes} bytes, {nodes} nodes, 2 shapes: {:?}",
            files.len(),
            t.elapsed()
        );
        let t = std::time::Instant::now();
        let mut p = tree_sitter::Parser::new();
        let lang: tree_sitter::Language = tree_sitter_java::LANGUAGE.into();
        if p.set_language(&lang).is_err() {
            return;
        }
        for src in &files {
            for _ in 0..2 {
                let _ = p.parse(src, None);
            }
        }
        println!("tree-sitter parse alone: {:?}", t.elapsed());
        return;
    }
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
    // `FILE --spans S:E…`: the oracle's output format (tests/oracle/JpOracle.java).
    if let Some(pos) = args.iter().position(|a| a == "--spans") {
        let spans: Vec<hunkgen::diff::Span> = args[pos + 1..]
            .iter()
            .filter_map(|a| {
                let (s, e) = a.split_once(':')?;
                Some(hunkgen::diff::Span {
                    start: s.parse().ok()?,
                    end: e.parse().ok()?,
                })
            })
            .collect();
        println!("diameter {}", f.diameter());
        let rule = hunkgen::syntax::AnchorRule::Covering;
        let anchors: Vec<_> = spans.iter().map(|s| f.anchor(*s, rule)).collect();
        for (k, a) in anchors.iter().enumerate() {
            let (b, e) = f.lines(*a);
            println!("anchor {k} {b} {e} {} {}", f.depth(*a), f.kind(*a));
        }
        for i in 0..anchors.len() {
            for j in i + 1..anchors.len() {
                println!("dist {i} {j} {}", f.distance(anchors[i], anchors[j]));
            }
        }
        return;
    }
    print!("{}", f.outline());
    println!("diameter {} errors {}", f.diameter(), f.error_count());
}
