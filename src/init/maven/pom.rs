//! One `pom.xml` read into the few facts the declare phase needs, and the path and
//! property arithmetic that joins poms into a reactor.
//!
//! Elements are matched by local name, so a pom that declares the POM 4.0.0 namespace
//! and one that declares none read alike.

use roxmltree::{Document, Node, ParsingOptions};

/// What one pom says, its text already dropped (owned, so poms outlive their parse).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pom {
    /// `<artifactId>`, to check that a `<relativePath>` leads to the parent named.
    pub artifact_id: Option<String>,
    /// `<parent>`: its artifactId and the pom path it points at (relative to this pom's
    /// directory); `None` inside when `<relativePath/>` is empty (parent not in the tree).
    pub parent: Option<(Option<String>, Option<String>)>,
    /// `<properties>`, those of active-by-default profiles after (they win).
    pub properties: Vec<(String, String)>,
    /// `<modules><module>` entries, then those of active-by-default profiles, as written.
    pub modules: Vec<String>,
    /// `<build><sourceDirectory>`, as written.
    pub source_dir: Option<String>,
    /// `<build><testSourceDirectory>`, as written.
    pub test_source_dir: Option<String>,
    /// maven-compiler-plugin `<configuration>` `<release>`, as written.
    pub release: Option<String>,
    /// maven-compiler-plugin `<configuration>` `<source>`, as written.
    pub source: Option<String>,
    /// maven-compiler-plugin `<configuration>` `<target>`, as written.
    pub target: Option<String>,
    /// maven-enforcer-plugin `requireJavaVersion` `<version>`, as written.
    pub enforcer_java: Option<String>,
    /// Test roots build-helper-maven-plugin's `add-test-source` adds, as written: in the
    /// build, in a profile on by default, or in one a JDK range turns on (jsoup's
    /// `src/test/java11` under JDK 11 and later); not in profiles a property or a file
    /// turns on (release and CI profiles).
    pub added_test_sources: Vec<String>,
}

/// Parse the pom at `path` (named in the error) from `text`: one line on bad XML.
pub(crate) fn parse(path: &str, text: &str) -> Result<Pom, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Old poms sometimes carry a DOCTYPE; roxmltree still guards against entity bombs.
    let opts = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts)
        .map_err(|e| format!("{path}: not well-formed XML: {e}"))?;
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err(format!(
            "{path}: not a Maven pom: the root element is <{}>, not <project>",
            project.tag_name().name()
        ));
    }
    let active: Vec<Node> = children(project, "profiles")
        .flat_map(|p| children(p, "profile"))
        .filter(|p| {
            at(*p, &["activation", "activeByDefault"]).is_some_and(|a| text_of(a) == "true")
        })
        .collect();
    let mut pom = Pom {
        artifact_id: child_text(project, "artifactId"),
        parent: child(project, "parent").map(|p| {
            let rel = match child(p, "relativePath") {
                None => Some("../pom.xml".to_string()),
                Some(r) if text_of(r).is_empty() => None,
                Some(r) => Some(text_of(r)),
            };
            (child_text(p, "artifactId"), rel)
        }),
        source_dir: at(project, &["build", "sourceDirectory"]).map(text_of),
        test_source_dir: at(project, &["build", "testSourceDirectory"]).map(text_of),
        ..Pom::default()
    };
    for base in std::iter::once(project).chain(active.iter().copied()) {
        for props in children(base, "properties") {
            for p in props.children().filter(Node::is_element) {
                pom.properties
                    .push((p.tag_name().name().to_string(), text_of(p)));
            }
        }
        pom.modules.extend(
            children(base, "modules")
                .flat_map(|m| children(m, "module"))
                .map(text_of)
                .filter(|m| !m.is_empty()),
        );
    }
    let by_jdk: Vec<Node> = children(project, "profiles")
        .flat_map(|p| children(p, "profile"))
        .filter(|p| at(*p, &["activation", "jdk"]).is_some())
        .collect();
    for base in std::iter::once(project)
        .chain(active.iter().copied())
        .chain(by_jdk)
    {
        let helpers = at(base, &["build", "plugins"])
            .into_iter()
            .flat_map(|list| children(list, "plugin"))
            .filter(|p| {
                child_text(*p, "artifactId").as_deref() == Some("build-helper-maven-plugin")
            });
        for helper in helpers {
            let executions = children(helper, "executions").flat_map(|e| children(e, "execution"));
            for execution in executions {
                let adds_tests = children(execution, "goals")
                    .flat_map(|g| children(g, "goal"))
                    .any(|g| text_of(g) == "add-test-source");
                if !adds_tests {
                    continue;
                }
                let sources = at(execution, &["configuration", "sources"])
                    .into_iter()
                    .flat_map(|s| children(s, "source"))
                    .map(text_of)
                    .filter(|s| !s.is_empty());
                for source in sources {
                    if !pom.added_test_sources.contains(&source) {
                        pom.added_test_sources.push(source);
                    }
                }
            }
        }
    }
    // A profile's plugin settings override the pom's, and a plugin's own settings
    // override those of `<pluginManagement>`: the first found wins.
    let bases: Vec<Node> = active.iter().copied().chain([project]).collect();
    let plugins: Vec<Node> = [
        &["build", "plugins"][..],
        &["build", "pluginManagement", "plugins"],
    ]
    .iter()
    .flat_map(|steps| bases.iter().filter_map(move |b| at(*b, steps)))
    .flat_map(|list| children(list, "plugin"))
    .collect();
    for plugin in &plugins {
        match child_text(*plugin, "artifactId").as_deref() {
            Some("maven-compiler-plugin") => {
                let conf = child(*plugin, "configuration");
                let get = |name: &str| conf.and_then(|c| child_text(c, name));
                pom.release = pom.release.take().or_else(|| get("release"));
                pom.source = pom.source.take().or_else(|| get("source"));
                pom.target = pom.target.take().or_else(|| get("target"));
            }
            Some("maven-enforcer-plugin") if pom.enforcer_java.is_none() => {
                pom.enforcer_java = plugin
                    .descendants()
                    .filter(|n| n.has_tag_name_local("requireJavaVersion"))
                    .find_map(|n| child_text(n, "version"));
            }
            _ => {}
        }
    }
    Ok(pom)
}

/// Local-name matching for roxmltree nodes (namespaced or not).
trait Local {
    fn has_tag_name_local(&self, name: &str) -> bool;
}

impl Local for Node<'_, '_> {
    fn has_tag_name_local(&self, name: &str) -> bool {
        self.is_element() && self.tag_name().name() == name
    }
}

fn children<'a, 'i>(node: Node<'a, 'i>, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(move |c| c.has_tag_name_local(name))
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| c.has_tag_name_local(name))
}

fn at<'a, 'i>(node: Node<'a, 'i>, steps: &[&str]) -> Option<Node<'a, 'i>> {
    steps.iter().try_fold(node, |n, s| child(n, s))
}

/// The trimmed text of an element (CDATA included).
fn text_of(node: Node) -> String {
    node.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect::<String>()
        .trim()
        .to_string()
}

fn child_text(node: Node, name: &str) -> Option<String> {
    child(node, name).map(text_of).filter(|t| !t.is_empty())
}

/// `${name}` references replaced through `props` (later entries win), repeatedly, so a
/// property may name another; references it cannot resolve stay as written.
pub(crate) fn resolve(text: &str, props: &[(String, String)]) -> String {
    let lookup = |name: &str| {
        props
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut out = text.to_string();
    // A bound, so properties that name each other cannot loop.
    for _ in 0..10 {
        let mut next = String::with_capacity(out.len());
        let mut rest = out.as_str();
        let mut changed = false;
        while let Some(start) = rest.find("${") {
            let Some(len) = rest[start..].find('}') else {
                break;
            };
            let name = &rest[start + 2..start + len];
            next.push_str(&rest[..start]);
            match lookup(name) {
                Some(v) => {
                    next.push_str(&v);
                    changed = true;
                }
                None => next.push_str(&rest[start..=start + len]),
            }
            rest = &rest[start + len + 1..];
        }
        next.push_str(rest);
        out = next;
        if !changed {
            break;
        }
    }
    out
}

/// `dir` joined with the relative path `rel`, `.` and `..` folded; `None` when `rel`
/// leaves the repository. The repository root is the empty string.
pub(crate) fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split(['/', '\\']) {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The directory holding the repository path `path` (`""` at the top).
pub(crate) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The pom a `<module>` or `<relativePath>` entry names: a directory's `pom.xml`, or
/// the file itself when it names an XML file.
pub(crate) fn pom_at(dir: &str, entry: &str) -> Option<String> {
    let path = join(dir, entry)?;
    if path.ends_with(".xml") {
        Some(path)
    } else if path.is_empty() {
        Some("pom.xml".into())
    } else {
        Some(format!("{path}/pom.xml"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_resolve_through_each_other_and_unknown_ones_stay() {
        let props = vec![
            ("jdk".to_string(), "1.7".to_string()),
            ("java.version".to_string(), "${jdk}".to_string()),
            ("jdk".to_string(), "1.8".to_string()),
        ];
        assert_eq!(resolve("${java.version}", &props), "1.8");
        assert_eq!(resolve("a${nope}b${jdk}", &props), "a${nope}b1.8");
        let looping = vec![("a".to_string(), "${a}".to_string())];
        assert_eq!(resolve("${a}", &looping), "${a}");
    }

    #[test]
    fn paths_join_and_fold() {
        assert_eq!(join("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join("", "./core/").as_deref(), Some("core"));
        assert_eq!(join("", "../x"), None);
        assert_eq!(pom_at("a", "..").as_deref(), Some("pom.xml"));
        assert_eq!(
            pom_at("a", "../b/pom-b.xml").as_deref(),
            Some("b/pom-b.xml")
        );
        assert_eq!(dir_of("a/b/pom.xml"), "a/b");
        assert_eq!(dir_of("pom.xml"), "");
    }

    #[test]
    fn an_empty_relative_path_means_the_parent_is_not_in_the_tree() {
        let pom = parse(
            "pom.xml",
            "<project><parent><artifactId>p</artifactId><relativePath/></parent></project>",
        )
        .expect("parses");
        assert_eq!(pom.parent, Some((Some("p".into()), None)));
        let pom = parse("pom.xml", "<project><parent/></project>").expect("parses");
        assert_eq!(pom.parent, Some((None, Some("../pom.xml".into()))));
    }

    #[test]
    fn a_document_that_is_not_a_project_is_refused() {
        let e = parse("x/pom.xml", "<settings/>").expect_err("not a pom");
        assert!(e.starts_with("x/pom.xml: not a Maven pom"), "{e}");
    }
}
