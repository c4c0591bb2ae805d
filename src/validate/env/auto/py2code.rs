//! `python: auto`, a tree's own Python: source that only Python 2 can compile (a `print`
//! statement, `except E, e:`, `raise E, "why"`). A tree that declares no version but is
//! written so is Python 2 code, which no Python 3 can even import, whatever its era.
//! Read as text, never run; lines inside triple-quoted strings are skipped.

/// The first line of `text` that only Python 2 compiles, with its 1-based number.
pub fn python2_line(text: &str) -> Option<(usize, String)> {
    static SYNTAX: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            // print "x" / print x / print x, y / print >>f, x / print "%s" % x
            r#"^\s*print(?:\s*(?:>>|["'])|\s+[A-Za-z_][\w.\[\]]*\s*(?:$|[,%+#]))"#,
            // except ValueError, e:   except (A, B), e:
            r"|^\s*except\s+(?:[\w.]+|\([\w.,\s]+\))\s*,\s*[A-Za-z_]\w*\s*:",
            // raise ValueError, "why"
            r"|^\s*raise\s+[\w.]+\s*,\s*\S",
        ))
        .expect("fixed regex")
    });
    let mut in_string: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(q) = in_string {
            if line.matches(q).count() % 2 == 1 {
                in_string = None;
            }
            continue;
        }
        if SYNTAX.is_match(line) && !line.trim_start().starts_with('#') {
            return Some((i + 1, line.trim().to_string()));
        }
        // A triple-quoted string left open on this line (an odd count of its quote).
        for q in ["\"\"\"", "'''"] {
            if line.matches(q).count() % 2 == 1 {
                in_string = Some(q);
                break;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_2_only_statements_are_found_and_prose_and_python_3_are_not() {
        for py2 in [
            "print \"hello\"",
            "    print x",
            "print x, y",
            "print >>sys.stderr, 'no'",
            "print '%s' % name",
            "print self.value",
            "except ValueError, e:",
            "    except (IOError, OSError), err:",
            "raise ValueError, \"bad\"",
        ] {
            assert!(python2_line(py2).is_some(), "{py2}");
        }
        for py3 in [
            "print(\"hello\")",
            "print (x)",
            "print",
            "printer = 1",
            "printfoo",
            "print_function = True",
            "except ValueError as e:",
            "except (IOError, OSError):",
            "raise ValueError(\"bad\")",
            "# print x",
            "x = 'print x'",
            "    print the result to stdout",
        ] {
            assert_eq!(python2_line(py3), None, "{py3}");
        }
        let doc = "def f():\n    \"\"\"Usage:\n\n    print x\n    \"\"\"\n    return 1\nprint y\n";
        assert_eq!(python2_line(doc), Some((7, "print y".to_string())));
        assert_eq!(python2_line("x = '''print a\n'''\n"), None);
    }
}
