//! Build-file repairs of `maven: auto`'s resolve step, each recorded: a parent or an
//! imported BOM at a `-SNAPSHOT` version no repository serves any more (snapshots are
//! deleted once released) is resolved at its release instead; repositories a pom names
//! by `http://`, which Maven Central and most hosts now refuse (`501 HTTPS Required`),
//! are asked by `https://`. The resolve run's copy of
//! the poms is rewritten; the runs keep the commit's own poms and find the snapshot in
//! the environment's repository, where the release's pom is installed under the
//! snapshot's coordinates. Nothing but build files and the private repository changes.

use std::fs;
use std::path::Path;

use regex::Regex;

/// One repair of the resolve run's copy of the poms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// An unreachable snapshot parent or BOM, resolved at its release.
    Snapshot(Snapshot),
    /// `<repository>`/`<pluginRepository>` URLs moved from `http://` to `https://`; the
    /// hosts Maven was refused by.
    Https(Vec<String>),
}

impl Repair {
    /// How the record names it.
    pub fn describe(&self) -> String {
        match self {
            Repair::Snapshot(s) => s.describe(),
            Repair::Https(hosts) => format!(
                "repositories http:// -> https:// ({} refused plain HTTP)",
                hosts.join(", ")
            ),
        }
    }
}

/// One unreachable snapshot pom and the release that stands in for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// `groupId`.
    pub group: String,
    /// `artifactId`.
    pub artifact: String,
    /// The version the poms name (`52-SNAPSHOT`).
    pub snapshot: String,
}

impl Snapshot {
    /// The release the snapshot was cut for (`52-SNAPSHOT` → `52`).
    pub fn release(&self) -> &str {
        self.snapshot.trim_end_matches("-SNAPSHOT")
    }

    /// How the record names it.
    pub fn describe(&self) -> String {
        format!(
            "{}:{} {} -> {} (the snapshot is unreachable)",
            self.group,
            self.artifact,
            self.snapshot,
            self.release()
        )
    }
}

/// The snapshot poms Maven's log says it could not find (a parent, an imported BOM), in
/// the order it names them.
pub fn unreachable_snapshots(log: &str) -> Vec<Snapshot> {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            Regex::new(
                r"(?:Could not find artifact|Failure to find|Could not transfer artifact) ([\w.\-]+):([\w.\-]+):pom:([\w.\-]+-SNAPSHOT)",
            )
            .ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    let mut out: Vec<Snapshot> = Vec::new();
    for c in re.captures_iter(log) {
        let r = Snapshot {
            group: c[1].to_string(),
            artifact: c[2].to_string(),
            snapshot: c[3].to_string(),
        };
        if !r.release().is_empty() && !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// `text` with every `<parent>` or `<dependency>` element naming `r`'s coordinates at
/// its snapshot version moved to the release; whether anything changed.
pub fn rewrite_pom(text: &str, r: &Snapshot) -> (String, bool) {
    let open_close = [("<parent>", "</parent>"), ("<dependency>", "</dependency>")];
    let want_group = format!("<groupId>{}</groupId>", r.group);
    let want_artifact = format!("<artifactId>{}</artifactId>", r.artifact);
    let snapshot = format!("<version>{}</version>", r.snapshot);
    let release = format!("<version>{}</version>", r.release());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    loop {
        let next = open_close
            .iter()
            .filter_map(|(o, c)| rest.find(o).map(|i| (i, *c)))
            .min_by_key(|(i, _)| *i);
        let Some((start, close)) = next else {
            out.push_str(rest);
            break;
        };
        let Some(len) = rest[start..].find(close).map(|e| e + close.len()) else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..start]);
        let element = &rest[start..start + len];
        let squeezed: String = element.split_whitespace().collect();
        if squeezed.contains(&want_group)
            && squeezed.contains(&want_artifact)
            && squeezed.contains(&snapshot)
        {
            out.push_str(&element.replace(&snapshot, &release));
            changed = true;
        } else {
            out.push_str(element);
        }
        rest = &rest[start + len..];
    }
    (out, changed)
}

/// The hosts of plain-HTTP repositories Maven's log says refused it (`501 HTTPS
/// Required`, or Maven's own blocker of HTTP mirrors), in the order it names them.
pub fn refused_http(log: &str) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    for line in log.lines() {
        let refused = line.contains("HTTPS Required")
            || line.contains("Blocked mirror for repositories")
            || line.contains("maven-default-http-blocker");
        if !refused {
            continue;
        }
        for (i, _) in line.match_indices("http://") {
            let host: String = line[i + "http://".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | ':'))
                .collect();
            if !host.is_empty() && host != "0.0.0.0" && !hosts.contains(&host) {
                hosts.push(host);
            }
        }
    }
    hosts
}

/// `text` with the `<url>` of every `<repository>`, `<pluginRepository>` and
/// `<snapshotRepository>` moved from `http://` to `https://`; whether anything changed.
pub fn https_pom(text: &str) -> (String, bool) {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            Regex::new(r"(?s)(<(repository|pluginRepository|snapshotRepository)>.*?</(?:repository|pluginRepository|snapshotRepository)>)").ok()
        })
        .as_ref()
    else {
        return (text.to_string(), false);
    };
    let out = re.replace_all(text, |c: &regex::Captures<'_>| {
        c[1].replace("<url>http://", "<url>https://")
            .replace("<url> http://", "<url> https://")
    });
    let changed = out != text;
    (out.into_owned(), changed)
}

/// Applies `r` to every `pom.xml` under `tree` (the resolve run's exported copy);
/// whether any pom changed.
pub fn rewrite_tree(tree: &Path, poms: &[String], r: &Repair) -> std::io::Result<bool> {
    let mut any = false;
    for rel in poms.iter().filter(|p| p.ends_with("pom.xml")) {
        let path = tree.join(rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let (new, changed) = match r {
            Repair::Snapshot(s) => rewrite_pom(&text, s),
            Repair::Https(_) => https_pom(&text),
        };
        if changed {
            fs::write(&path, new)?;
            any = true;
        }
    }
    Ok(any)
}

/// Installs the release's pom, resolved into `repository`, under the snapshot's
/// coordinates (its own `<version>` moved to the snapshot), so an offline run of the
/// commit's unchanged poms finds it; whether the release's pom was there to copy.
pub fn install_alias(repository: &Path, r: &Snapshot) -> std::io::Result<bool> {
    let dir = |v: &str| {
        let mut p = repository.to_path_buf();
        for part in r.group.split('.') {
            p.push(part);
        }
        p.push(&r.artifact);
        p.push(v);
        p
    };
    let from = dir(r.release()).join(format!("{}-{}.pom", r.artifact, r.release()));
    let Ok(text) = fs::read_to_string(&from) else {
        return Ok(false);
    };
    let own = format!("<version>{}</version>", r.release());
    // The project's own version is the first `<version>` outside its `<parent>`.
    let text = match (text.find("</parent>"), text.find("<parent>")) {
        (Some(end), Some(_)) => {
            let (head, tail) = text.split_at(end);
            format!(
                "{head}{}",
                tail.replacen(&own, &format!("<version>{}</version>", r.snapshot), 1)
            )
        }
        _ => text.replacen(&own, &format!("<version>{}</version>", r.snapshot), 1),
    };
    let to_dir = dir(&r.snapshot);
    fs::create_dir_all(&to_dir)?;
    fs::write(
        to_dir.join(format!("{}-{}.pom", r.artifact, r.snapshot)),
        text,
    )?;
    Ok(true)
}

/// `text` with every `<source>`/`<target>` below 6 written literally (`1.5`, `5`,
/// `1.4`) moved to `to`: the lift of a level no JDK here compiles, where the poms name it
/// in the compiler plugin's configuration and no `-D` can override it.
pub fn lift_pom(text: &str, to: &str) -> String {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| Regex::new(r"<(source|target)>(?:1\.)?[1-5]</(?:source|target)>").ok())
        .as_ref()
    else {
        return text.to_string();
    };
    re.replace_all(text, |c: &regex::Captures<'_>| {
        format!("<{0}>{to}</{0}>", &c[1])
    })
    .into_owned()
}

/// [`lift_pom`] over every pom of the resolve run's exported `tree`.
pub fn lift_tree(tree: &Path, poms: &[String], to: &str) -> std::io::Result<()> {
    for rel in poms.iter().filter(|p| p.ends_with("pom.xml")) {
        let path = tree.join(rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let lifted = lift_pom(&text, to);
        if lifted != text {
            fs::write(&path, lifted)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repair() -> Snapshot {
        Snapshot {
            group: "org.apache.commons".into(),
            artifact: "commons-parent".into(),
            snapshot: "52-SNAPSHOT".into(),
        }
    }

    #[test]
    fn maven_names_the_unreachable_snapshots_online_and_offline() {
        let log = "[ERROR] Non-resolvable parent POM for org.x:y:1.0: Could not find artifact \
                   org.apache.commons:commons-parent:pom:52-SNAPSHOT and 'parent.relativePath' \
                   points at wrong local POM @ line 4\n\
                   [ERROR] Non-resolvable import POM: Failure to find org.x:bom:pom:2.1-SNAPSHOT in \
                   https://repo.maven.apache.org/maven2 was cached\n\
                   Could not find artifact org.x:lib:jar:1.0-SNAPSHOT\n";
        let found = unreachable_snapshots(log);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0], repair());
        assert_eq!(found[1].artifact, "bom");
        assert_eq!(found[1].release(), "2.1");
    }

    #[test]
    fn only_the_named_parent_or_bom_moves_to_its_release() {
        let pom = "<project>\n  <parent>\n    <groupId>org.apache.commons</groupId>\n    \
                   <artifactId>commons-parent</artifactId>\n    <version>52-SNAPSHOT</version>\n  \
                   </parent>\n  <version>52-SNAPSHOT</version>\n  <dependencies>\n    \
                   <dependency><groupId>org.apache.commons</groupId><artifactId>other</artifactId>\
                   <version>52-SNAPSHOT</version></dependency>\n  </dependencies>\n</project>\n";
        let (new, changed) = rewrite_pom(pom, &repair());
        assert!(changed);
        assert_eq!(new.matches("<version>52</version>").count(), 1, "{new}");
        assert_eq!(
            new.matches("<version>52-SNAPSHOT</version>").count(),
            2,
            "{new}"
        );
        let (same, changed) = rewrite_pom(&new, &repair());
        assert!(!changed);
        assert_eq!(same, new);
    }

    #[test]
    fn the_alias_is_the_release_pom_at_the_snapshot_version() {
        let repo = tempfile::tempdir().expect("tempdir");
        let rel = repo.path().join("org/apache/commons/commons-parent/52");
        fs::create_dir_all(&rel).expect("dir");
        fs::write(
            rel.join("commons-parent-52.pom"),
            "<project><parent><groupId>org.apache</groupId><artifactId>apache</artifactId>\
             <version>52</version></parent><artifactId>commons-parent</artifactId>\
             <version>52</version></project>",
        )
        .expect("pom");
        assert!(install_alias(repo.path(), &repair()).expect("install"));
        let alias =
            fs::read_to_string(repo.path().join(
                "org/apache/commons/commons-parent/52-SNAPSHOT/commons-parent-52-SNAPSHOT.pom",
            ))
            .expect("alias");
        assert!(
            alias.contains("<artifactId>apache</artifactId><version>52</version></parent>")
                && alias.ends_with("<version>52-SNAPSHOT</version></project>"),
            "{alias}"
        );
        let none = Snapshot {
            snapshot: "9-SNAPSHOT".into(),
            ..repair()
        };
        assert!(!install_alias(repo.path(), &none).expect("no release"));
    }

    #[test]
    fn repositories_refusing_plain_http_move_to_https() {
        let log = "[ERROR] Failed to collect dependencies at x:y:jar:1: Failed to read artifact \
                   descriptor for x:y:jar:1: Could not transfer artifact x:y:pom:1 from/to old \
                   (http://repository.example.org/m2): status code: 501, reason phrase: \
                   HTTPS Required (501)\n\
                   [WARNING] Could not transfer metadata from http://other.org/x\n\
                   [ERROR] Blocked mirror for repositories: [codehaus (http://repository.codehaus.org, default, releases)]\n";
        assert_eq!(
            refused_http(log),
            ["repository.example.org", "repository.codehaus.org"]
        );
        assert!(refused_http("[INFO] see http://maven.apache.org").is_empty());
        let pom = "<project>\n<url>http://commons.apache.org/x</url>\n<repositories>\n  <repository>\n    \
                   <id>old</id>\n    <url>http://repository.example.org/m2</url>\n  </repository>\n\
                   </repositories>\n<pluginRepositories><pluginRepository><id>p</id>\
                   <url>http://plugins.example.org</url></pluginRepository></pluginRepositories>\n\
                   <scm><url>http://svn.apache.org/x</url></scm>\n</project>\n";
        let (new, changed) = https_pom(pom);
        assert!(changed);
        assert!(
            new.contains("<url>https://repository.example.org/m2</url>"),
            "{new}"
        );
        assert!(
            new.contains("<url>https://plugins.example.org</url>"),
            "{new}"
        );
        // The project's site and SCM links stay as written.
        assert!(
            new.contains("<url>http://commons.apache.org/x</url>"),
            "{new}"
        );
        assert!(new.contains("<url>http://svn.apache.org/x</url>"), "{new}");
        assert_eq!(https_pom(&new), (new.clone(), false));
        assert_eq!(
            Repair::Https(vec!["a.org".into()]).describe(),
            "repositories http:// -> https:// (a.org refused plain HTTP)"
        );
    }

    /// The Rust lift and the run's `sed` agree on every pom line they may meet.
    #[test]
    fn the_lift_moves_only_literal_levels_below_six_and_the_sed_agrees() {
        let pom = "<configuration>\n  <source>1.5</source>\n  <target>1.5</target>\n</configuration>\n\
                   <source>1.4</source><target>5</target>\n<source>1.6</source><source>1.8</source>\n\
                   <source>${maven.compile.source}</source><source>11</source>\n";
        let lifted = lift_pom(pom, "1.6");
        assert_eq!(
            lifted,
            "<configuration>\n  <source>1.6</source>\n  <target>1.6</target>\n</configuration>\n\
             <source>1.6</source><target>1.6</target>\n<source>1.6</source><source>1.8</source>\n\
             <source>${maven.compile.source}</source><source>11</source>\n"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("pom.xml");
        fs::write(&f, pom).expect("pom");
        let script = super::super::kind::lift_sed_for_test("1.6");
        let ok = std::process::Command::new("sed")
            .args(["-i", "-E", &script])
            .arg(&f)
            .status()
            .expect("sed runs");
        assert!(ok.success());
        assert_eq!(fs::read_to_string(&f).expect("read"), lifted);
    }
}
