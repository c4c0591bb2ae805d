//! Spatial proximity classes (HUNK4J Definition 5) with the rule ARCHITECTURE §4 documents.

pub use crate::model::ProximityClass;
use crate::model::{Instance, NoteKind, Proximity, SourceKind};
use serde::{Deserialize, Serialize};

/// Which package a hunk is in, because HUNK4J's published classes need its directory
/// rule while mined repositories need the real module path (`pkg/core.py` and
/// `src/pkg/core.py` are both in `pkg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PackageRule {
    /// `directories` for Defects4J bugs (HUNK4J), `modules` for every other source.
    #[default]
    Auto,
    /// HUNK4J's rule: the file's directory segments without the first one.
    Directories,
    /// The module path from the source root: the Java `package` declaration, the Python
    /// dotted package (directories with `__init__.py`).
    Modules,
}

impl PackageRule {
    /// All three, in the order `--packages` lists them.
    pub const ALL: [PackageRule; 3] = [
        PackageRule::Auto,
        PackageRule::Directories,
        PackageRule::Modules,
    ];

    /// Name as written in recipes and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PackageRule::Auto => "auto",
            PackageRule::Directories => "directories",
            PackageRule::Modules => "modules",
        }
    }

    /// The concrete rule for a source: `auto` becomes `directories` for Defects4J only.
    pub fn resolve(self, source: SourceKind) -> PackageRule {
        match (self, source) {
            (PackageRule::Auto, SourceKind::Defects4j) => PackageRule::Directories,
            (PackageRule::Auto, _) => PackageRule::Modules,
            (rule, _) => rule,
        }
    }
}

impl std::str::FromStr for PackageRule {
    type Err = crate::model::UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::model::parse_name(s, "package rule", &Self::ALL, Self::name)
    }
}

/// A hunk's package under HUNK4J's rule: its file's directory segments without the
/// first path segment (the rule that reproduces the published classes).
pub fn package_of(path: &str) -> Vec<String> {
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs.pop(); // file name
    segs.into_iter().skip(1).map(str::to_string).collect()
}

/// A Java file's package when its `package` declaration cannot be read: the directories
/// after the last `java` source root segment (`src/main/java/a/b/C.java` → `a.b`), else
/// after a leading `src/`, else all directories.
pub fn java_package_from_path(path: &str) -> Vec<String> {
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs.pop();
    let from = match segs.iter().rposition(|s| *s == "java") {
        Some(i) => i + 1,
        None => usize::from(segs.first() == Some(&"src")),
    };
    segs[from..].iter().map(|s| s.to_string()).collect()
}

/// A Python file's dotted package: the longest run of directories ending at the file's
/// own directory that all hold an `__init__.py` (asked through `is_package`). Without
/// one (namespace packages, scripts), the directories after a leading `src/`.
pub fn python_package(path: &str, mut is_package: impl FnMut(&str) -> bool) -> Vec<String> {
    let dirs = crate::syntax::python_module_path(path);
    let mut k = dirs.len();
    while k > 0 && is_package(&dirs[..k].join("/")) {
        k -= 1;
    }
    if k < dirs.len() {
        return dirs[k..].to_vec();
    }
    let from = usize::from(dirs.first().map(String::as_str) == Some("src"));
    dirs[from..].to_vec()
}

/// λ = ⌊median package depth over all hunks / 2⌋ (lower median for even counts is not
/// used: the median of integers may be x.5, and the floor of half of it is taken).
pub fn lambda_from_depths(depths: &[usize]) -> u32 {
    if depths.is_empty() {
        return 0;
    }
    let mut d = depths.to_vec();
    d.sort_unstable();
    let n = d.len();
    let median = if n % 2 == 1 {
        d[n / 2] as f64
    } else {
        (d[n / 2 - 1] + d[n / 2]) as f64 / 2.0
    };
    (median / 2.0).floor() as u32
}

/// What proximity needs to know of one hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkPlace {
    /// Repository-relative file path.
    pub file: String,
    /// The hunk's package (see [`PackageRule`]).
    pub package: Vec<String>,
    /// Method identity: `Some` id shared by hunks in the same method; `None` when the
    /// hunk matches no method (a fresh id shared with no other hunk).
    pub method: Option<(u32, u32)>,
}

/// Classify a patch. `methods_known` is false when sources were unavailable, in which
/// case a single-file patch cannot be told Nucleus from Cluster and `None` is returned.
pub fn classify(hunks: &[HunkPlace], lambda: u32, methods_known: bool) -> Option<ProximityClass> {
    let first = hunks.first()?;
    let same_file = hunks.iter().all(|h| h.file == first.file);
    if same_file {
        if !methods_known {
            return None;
        }
        let same_method = first.method.is_some() && hunks.iter().all(|h| h.method == first.method);
        // A fresh id is never shared, so a lone hunk outside methods is its own method.
        let same_method = same_method || (hunks.len() == 1);
        return Some(if same_method {
            ProximityClass::Nucleus
        } else {
            ProximityClass::Cluster
        });
    }
    let packages: Vec<&Vec<String>> = hunks.iter().map(|h| &h.package).collect();
    if packages.iter().all(|p| *p == packages[0]) {
        return Some(ProximityClass::Orbit);
    }
    let mut lcp = usize::MAX;
    for i in 0..packages.len() {
        for j in i + 1..packages.len() {
            let c = packages[i]
                .iter()
                .zip(packages[j].iter())
                .take_while(|(a, b)| a == b)
                .count();
            lcp = lcp.min(c);
        }
    }
    Some(if lcp as u64 > u64::from(lambda) {
        ProximityClass::Sprawl
    } else {
        ProximityClass::Fragment
    })
}

/// Classify every instance's proximity with one λ: the given one, or the dataset's
/// ⌊median package depth of the counted hunks / 2⌋. Returns the λ used.
///
/// An instance whose methods are unknown (a `methods_unknown` note) keeps a single-file
/// class undecided.
pub fn classify_all(instances: &mut [Instance], lambda: Option<u32>) -> u32 {
    let depths = depths(instances);
    let lambda = lambda.unwrap_or_else(|| lambda_from_depths(&depths));
    for inst in instances.iter_mut() {
        let places: Vec<HunkPlace> = inst
            .hunks
            .iter()
            .filter(|h| h.counted)
            .map(|h| HunkPlace {
                file: h.file.clone(),
                package: hunk_package(h),
                method: h.place.as_ref().and_then(|p| p.method_lines),
            })
            .collect();
        let known = !inst
            .notes
            .iter()
            .any(|n| n.kind == NoteKind::MethodsUnknown);
        inst.proximity = Some(Proximity {
            class: classify(&places, lambda, known),
            lambda,
        });
    }
    lambda
}

/// The package depth of every counted hunk (λ's default is chosen from them; shards
/// record theirs so a merge chooses from all).
pub fn depths(instances: &[Instance]) -> Vec<usize> {
    instances
        .iter()
        .flat_map(|i| i.hunks.iter().filter(|h| h.counted))
        .map(|h| hunk_package(h).len())
        .collect()
}

/// A counted hunk's package: the one annotation placed, else HUNK4J's directory rule.
fn hunk_package(h: &crate::model::HunkRecord) -> Vec<String> {
    match &h.place {
        Some(p) => p.package.clone(),
        None => package_of(&h.file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(file: &str, m: Option<(u32, u32)>) -> HunkPlace {
        HunkPlace {
            file: file.into(),
            package: package_of(file),
            method: m,
        }
    }

    const A: &str = "src/main/java/org/acme/core/A.java";
    const B: &str = "src/main/java/org/acme/core/B.java";
    const C: &str = "src/main/java/org/acme/io/C.java";
    const P: &str = "python/acme/util.py";

    #[test]
    fn package_drops_first_segment_and_file() {
        assert_eq!(package_of(A), ["main", "java", "org", "acme", "core"]);
        assert_eq!(package_of(P), ["acme"]);
        assert!(package_of("Top.java").is_empty());
    }

    #[test]
    fn module_packages_ignore_the_layout() {
        let pkgs = ["pkg", "src/pkg", "src/pkg/sub"];
        let is_pkg = |d: &str| pkgs.contains(&d);
        assert_eq!(python_package("pkg/core.py", is_pkg), ["pkg"]);
        assert_eq!(python_package("src/pkg/core.py", is_pkg), ["pkg"]);
        assert_eq!(python_package("src/pkg/sub/x.py", is_pkg), ["pkg", "sub"]);
        assert!(python_package("setup.py", is_pkg).is_empty());
        // No __init__.py anywhere: directories, without a leading src/.
        assert_eq!(python_package("src/ns/mod.py", |_| false), ["ns"]);
        assert_eq!(python_package("tools/gen.py", |_| false), ["tools"]);
        assert_eq!(
            java_package_from_path("core/src/main/java/a/b/C.java"),
            ["a", "b"]
        );
        assert_eq!(java_package_from_path("src/a/b/C.java"), ["a", "b"]);
        assert!(java_package_from_path("C.java").is_empty());
        assert_eq!(
            PackageRule::Auto.resolve(SourceKind::Defects4j),
            PackageRule::Directories
        );
        assert_eq!(
            PackageRule::Auto.resolve(SourceKind::Git),
            PackageRule::Modules
        );
        assert_eq!(
            PackageRule::Directories.resolve(SourceKind::Git),
            PackageRule::Directories
        );
    }

    #[test]
    fn each_class_by_hand() {
        // depth 5 packages → λ = ⌊5/2⌋ = 2
        let lambda = lambda_from_depths(&[5, 5, 5, 1]);
        assert_eq!(lambda, 2);
        let m1 = Some((10, 20));
        let m2 = Some((30, 40));
        assert_eq!(
            classify(&[h(A, m1), h(A, m1)], lambda, true),
            Some(ProximityClass::Nucleus)
        );
        assert_eq!(
            classify(&[h(A, m1), h(A, m2)], lambda, true),
            Some(ProximityClass::Cluster)
        );
        // Two hunks outside any method have fresh ids: Cluster.
        assert_eq!(
            classify(&[h(A, None), h(A, None)], lambda, true),
            Some(ProximityClass::Cluster)
        );
        assert_eq!(
            classify(&[h(A, m1), h(B, m1)], lambda, true),
            Some(ProximityClass::Orbit)
        );
        // core vs io share main/java/org/acme = 4 > 2.
        assert_eq!(
            classify(&[h(A, m1), h(C, m2)], lambda, true),
            Some(ProximityClass::Sprawl)
        );
        // Java vs Python share nothing.
        assert_eq!(
            classify(&[h(A, m1), h(P, m2)], lambda, true),
            Some(ProximityClass::Fragment)
        );
        // Without sources a single-file patch is unknown, a multi-file one is not.
        assert_eq!(classify(&[h(A, None), h(A, None)], lambda, false), None);
        assert_eq!(
            classify(&[h(A, None), h(C, None)], lambda, false),
            Some(ProximityClass::Sprawl)
        );
        // LCP equal to λ is a Fragment.
        assert_eq!(
            classify(
                &[h("x/a/b/c/F.java", None), h("x/a/b/d/G.java", None)],
                2,
                false
            ),
            Some(ProximityClass::Fragment)
        );
    }

    #[test]
    fn lambda_on_hunk4j_depths() {
        // HUNK4J: median package depth 6 → λ = 3.
        assert_eq!(lambda_from_depths(&[6, 6, 7, 5, 6]), 3);
        assert_eq!(lambda_from_depths(&[6, 7]), 3);
        assert_eq!(lambda_from_depths(&[]), 0);
    }
}
