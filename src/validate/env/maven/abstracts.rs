//! An abstract test class selected by a test patch runs nothing under surefire (it
//! skips abstract classes), so the classes that run its tests are its concrete
//! subclasses in the same tree: a fix that changes only `StringEncoderAbstractTest` is
//! tested by `SoundexTest`, `MetaphoneTest`, … (Defects4J's Codec_1 lists exactly those).
//! Likewise a test patch that changes only a helper of the test tree (a class with no
//! test in it, such as commons-rng's `ContinuousSamplersList`, which lists what a
//! parameterized test runs) is tested by the test classes that use it.

use regex::Regex;

/// The simple name of a fully qualified class (`org.acme.FooTest` → `FooTest`).
fn simple(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Whether `text` declares the class `name` abstract (`public abstract class Name`).
/// A match starts at the beginning of a line holding `abstract`, so the search starts at
/// the first such line: Unicode word boundaries make the regex engine fall back to its
/// slow NFA on non-ASCII text, and whole test sources were searched on every setup.
pub fn is_abstract(text: &str, name: &str) -> bool {
    let Some(at) = text.find("abstract") else {
        return false;
    };
    let from = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let pattern = format!(
        r"(?m)^[^;{{}}\n]*\babstract\b[^;{{}}\n]*\bclass\s+{}\b",
        regex::escape(name)
    );
    Regex::new(&pattern).is_ok_and(|re| re.is_match(&text[from..]))
}

/// What matches a declaration of a class that extends `class` (by its simple or its
/// fully qualified name, with or without type arguments); compiled once per class and
/// matched against every source.
fn extends(class: &str) -> Option<Regex> {
    let pattern = format!(
        r"\bextends\s+(?:{}|{})\b",
        regex::escape(class),
        regex::escape(simple(class))
    );
    Regex::new(&pattern).ok()
}

/// The concrete classes among `sources` (class, source text) that extend `class`
/// directly or through abstract classes in between, in `sources`' order; empty when
/// none does. Each class is visited once, so a cycle in malformed sources ends.
pub fn concrete_subclasses(class: &str, sources: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = vec![class.to_string()];
    let mut queue = vec![class.to_string()];
    while let Some(parent) = queue.pop() {
        let Some(extends) = extends(&parent) else {
            continue;
        };
        for (c, text) in sources {
            if seen.contains(c) || !extends.is_match(text) {
                continue;
            }
            seen.push(c.clone());
            if is_abstract(text, simple(c)) {
                queue.push(c.clone());
            } else {
                out.push(c.clone());
            }
        }
    }
    let order = |c: &String| sources.iter().position(|(s, _)| s == c);
    out.sort_by_key(order);
    out
}

/// Annotations and supertypes that make a class a test class for JUnit 3, 4 or 5 (or
/// TestNG): a class with none of them runs nothing under surefire.
const TEST_MARKS: &str = r"@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Theory|RunWith)\b|\bextends\s+(junit\.framework\.)?TestCase\b|\bpublic\s+void\s+test\w*\s*\(";

/// Whether `text` holds a test (a test annotation, a JUnit runner, or a JUnit 3
/// `TestCase`), so that surefire runs something for the class.
pub fn has_tests(text: &str) -> bool {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(TEST_MARKS).ok())
        .as_ref()
        .is_some_and(|re| re.is_match(text))
}

/// The test classes among `sources` (class, source text) that name the helper `class`
/// (its simple name as a word, outside the helper itself), each abstract one replaced
/// by its concrete subclasses (whether or not the abstract base holds a test itself: a
/// base that builds the helper for its subclasses' tests is how JUnit 3 suites use
/// one), in `sources`' order: what runs a helper's change.
pub fn users(class: &str, sources: &[(String, String)]) -> Vec<String> {
    let Ok(named) = Regex::new(&format!(r"\b{}\b", regex::escape(simple(class)))) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (c, text) in sources {
        if c == class || !named.is_match(text) {
            continue;
        }
        let runs = match (is_abstract(text, simple(c)), has_tests(text)) {
            (true, _) => concrete_subclasses(c, sources),
            (false, true) => vec![c.clone()],
            (false, false) => continue,
        };
        for r in runs {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    let order = |c: &String| sources.iter().position(|(s, _)| s == c);
    out.sort_by_key(order);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(class: &str, text: &str) -> (String, String) {
        (class.to_string(), text.to_string())
    }

    #[test]
    fn an_abstract_test_is_run_by_its_concrete_subclasses_through_abstract_ones() {
        let base =
            "package a;\n\npublic abstract class BaseTest {\n    @Test public void t() {}\n}\n";
        let sources = vec![
            src("a.BaseTest", base),
            src(
                "a.SoundexTest",
                "package a;\npublic class SoundexTest extends BaseTest {\n}\n",
            ),
            src(
                "a.MidTest",
                "package a;\npublic abstract class MidTest\n        extends BaseTest<String> {\n}\n",
            ),
            src(
                "b.LeafTest",
                "package b;\nimport a.MidTest;\nfinal class LeafTest extends a.MidTest {}\n",
            ),
            src(
                "a.OtherTest",
                "package a;\npublic class OtherTest extends BaseTestSupport {}\n",
            ),
            src("a.Plain", "package a;\nclass Plain { BaseTest b; }\n"),
        ];
        assert!(is_abstract(base, "BaseTest"));
        assert!(!is_abstract(&sources[1].1, "SoundexTest"));
        assert!(is_abstract(&sources[2].1, "MidTest"));
        assert_eq!(
            concrete_subclasses("a.BaseTest", &sources),
            ["a.SoundexTest", "b.LeafTest"]
        );
        // A class nobody extends has none; an abstract method is no abstract class.
        assert!(concrete_subclasses("a.SoundexTest", &sources).is_empty());
        assert!(!is_abstract(
            "class X {\n    abstract void f();\n}\nclass Y {}\n",
            "Y"
        ));
        // The search starts at the first line holding `abstract`: a word on that line
        // before it, a later declaration and non-ASCII text are all still seen.
        let later = "// é: not abstract here;\n/** ü */\npublic abstract class Z {}\n";
        assert!(is_abstract(later, "Z"));
        assert!(is_abstract("/* ö */ public abstract class Z {}", "Z"));
        assert!(!is_abstract("public class Z {} // abstract class Z", "Z"));
        assert!(!is_abstract("public abstract\nclass Z {}", "Z"));
        assert!(!is_abstract("public class Z {}", "Z"));
    }

    #[test]
    fn a_helper_is_run_by_the_test_classes_that_name_it() {
        let sources = vec![
            src(
                "a.SamplersList",
                "package a;\nfinal class SamplersList {\n    static List<Object[]> list() { return L; }\n}\n",
            ),
            src(
                "a.ParametricTest",
                "package a;\n@RunWith(Parameterized.class)\npublic class ParametricTest {\n    \
                 @Parameters public static Iterable<Object[]> d() { return SamplersList.list(); }\n}\n",
            ),
            src(
                "a.BaseUserTest",
                "package a;\npublic abstract class BaseUserTest {\n    SamplersList s;\n    @Test public void t() {}\n}\n",
            ),
            src("b.ConcreteTest", "package b;\nclass ConcreteTest extends a.BaseUserTest {}\n"),
            src(
                "a.OldTest",
                "package a;\npublic class OldTest extends TestCase {\n    SamplersList s;\n}\n",
            ),
            // Names a longer identifier only, or names it but holds no test.
            src("a.OtherTest", "package a;\nclass OtherTest {\n    @Test void t() { SamplersListing x; }\n}\n"),
            src("a.Tool", "package a;\nclass Tool { SamplersList s; }\n"),
            // An abstract base with no test of its own that builds the helper for its
            // JUnit 3 subclasses (commons-bcel's AbstractCounterVisitorTestCase).
            src(
                "a.AbstractVisitorTestCase",
                "package a;\npublic abstract class AbstractVisitorTestCase extends AbstractTestCase {\n    SamplersList v = new SamplersList();\n}\n",
            ),
            src(
                "a.VisitorTestCase",
                "package a;\npublic class VisitorTestCase extends AbstractVisitorTestCase {\n    public void testCount() {}\n}\n",
            ),
        ];
        assert!(!has_tests(&sources[0].1));
        assert!(has_tests(&sources[1].1) && has_tests(&sources[4].1));
        assert_eq!(
            users("a.SamplersList", &sources),
            [
                "a.ParametricTest",
                "b.ConcreteTest",
                "a.OldTest",
                "a.VisitorTestCase"
            ]
        );
        assert!(users("a.Tool", &sources).is_empty());
    }
}
