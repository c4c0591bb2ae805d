//! Spatial proximity classes (HUNK4J Definition 5) with the rule DESIGN §4 documents.

pub use crate::model::ProximityClass;
use crate::model::{Instance, NoteKind, Proximity};

/// A hunk's package for proximity: its file's directory segments without the first path
/// segment (the rule that reproduces the published classes).
pub fn package_of(path: &str) -> Vec<String> {
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs.pop(); // file name
    segs.into_iter().skip(1).map(str::to_string).collect()
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
    let packages: Vec<Vec<String>> = hunks.iter().map(|h| package_of(&h.file)).collect();
    if packages.iter().all(|p| *p == packages[0]) {
        return Some(ProximityClass::Orbit);
    }
    let mut lcp = usize::MAX;
    for i in 0..packages.len() {
        for j in i + 1..packages.len() {
            let c = packages[i]
                .iter()
                .zip(&packages[j])
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
    let depths: Vec<usize> = instances
        .iter()
        .flat_map(|i| i.hunks.iter().filter(|h| h.counted))
        .map(|h| package_of(&h.file).len())
        .collect();
    let lambda = lambda.unwrap_or_else(|| lambda_from_depths(&depths));
    for inst in instances.iter_mut() {
        let places: Vec<HunkPlace> = inst
            .hunks
            .iter()
            .filter(|h| h.counted)
            .map(|h| HunkPlace {
                file: h.file.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn h(file: &str, m: Option<(u32, u32)>) -> HunkPlace {
        HunkPlace {
            file: file.into(),
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
