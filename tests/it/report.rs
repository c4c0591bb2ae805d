//! `hunkgen report` end to end, checked in a real browser: the demo dataset plus two
//! fake systems' results rendered by headless Chromium, which must log nothing to the
//! console, request nothing outside the page and paint a non-blank screenshot. The
//! checker itself is shown to catch each fault on a deliberately broken page.

use crate::common::{demo_recipe, hunkgen, manifest};
use hunkgen::model::{ApplyMethod, EvaluationSummary, Instance, PredictionResult, Rates};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Text planted in a patch and a problem statement: it must reach the page as text.
const INJECTED: &str =
    "<script>console.error('injected')</script><img src=x onerror=\"console.error('img')\">";

/// The demo dataset built once (no validation), with markup planted in one instance and
/// one fake test log.
fn dataset() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Kept for the whole test run: the tests share the dataset.
        let root = tempfile::tempdir().expect("tempdir").keep();
        let recipe = demo_recipe(&root);
        let out = root.join("demo");
        hunkgen()
            .arg("build")
            .arg(&recipe)
            .arg("-o")
            .arg(&out)
            .arg("-q")
            .assert()
            .success();
        let path = out.join("instances.jsonl");
        let mut rows: Vec<Instance> = std::fs::read_to_string(&path)
            .expect("instances")
            .lines()
            .map(|l| serde_json::from_str(l).expect("instance"))
            .collect();
        rows[0].patch.push_str(&format!("+// {INJECTED}\n"));
        rows[0].problem_statement.push_str(INJECTED);
        let text: String = rows
            .iter()
            .map(|r| serde_json::to_string(r).expect("json") + "\n")
            .collect();
        std::fs::write(&path, text).expect("write instances");
        let log = out.join("logs").join(&rows[0].instance_id);
        std::fs::create_dir_all(&log).expect("mkdir logs");
        std::fs::write(log.join("base-java-0.log"), "a log\n").expect("log");
        out
    })
}

fn ids(dir: &Path) -> Vec<String> {
    hunkgen::dataset::read_instances(dir)
        .expect("instances")
        .into_iter()
        .map(|i| i.instance_id)
        .collect()
}

fn result(
    id: &str,
    system: &str,
    state: &str,
    resolved: bool,
    abstained: bool,
) -> PredictionResult {
    PredictionResult {
        schema_version: 1,
        instance_id: id.to_string(),
        model_name_or_path: system.to_string(),
        state: state.to_string(),
        scenario: "best".into(),
        instruction: None,
        attempt: None,
        applied: if abstained {
            ApplyMethod::Empty
        } else {
            ApplyMethod::Exact
        },
        compiled: Some(true),
        resolution: None,
        resolved,
        abstained,
        abstention_correct: abstained == (state == "resolved"),
        localized: resolved,
        localized_counted: resolved,
        hunks_touched: Vec::new(),
        hunks_total: 2,
        line_scores: None,
        function_scores: None,
        failing_before: None,
        failing_after: None,
        infra: None,
        problems: Vec::new(),
        defects4j: None,
    }
}

fn write_results(path: &Path, rows: &[PredictionResult]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let text: String = rows
        .iter()
        .map(|r| serde_json::to_string(r).expect("json") + "\n")
        .collect();
    std::fs::write(path, text).expect("write results");
}

fn summary(system: &str, dataset: &str, sha: &str) -> String {
    serde_json::to_string(&EvaluationSummary {
        schema_version: 1,
        dataset: dataset.into(),
        dataset_sha256: sha.into(),
        model_name_or_path: system.into(),
        predictions: 0,
        infra: 0,
        problems: 0,
        resolution_unavailable: None,
        attempts: Vec::new(),
        overall: Rates::default(),
        by_class: Default::default(),
        by_divergence_quartile: Default::default(),
        by_state: Default::default(),
        by_project: Default::default(),
        outcomes: Default::default(),
        trajectories: None,
        study: None,
        exclusions: Vec::new(),
        gold_misses: Vec::new(),
    })
    .expect("json")
}

/// Two systems: `alpha` (a directory with results.jsonl and a matching summary.json)
/// and `beta` (a bare results.jsonl). Returns the two `--results` arguments.
fn two_systems(dir: &Path, ds: &Path) -> [PathBuf; 2] {
    let ids = ids(ds);
    let mut a = Vec::new();
    let mut b = Vec::new();
    for (k, id) in ids.iter().enumerate() {
        a.push(result(id, "alpha", "novel", k % 2 == 0, false));
        a.push(result(id, "alpha", "partial", k % 3 != 0, false));
        a.push(result(id, "alpha", "resolved", false, k % 2 == 0));
        b.push(result(id, "beta", "novel", k % 3 == 0, k == 1));
        b.push(result(id, "beta", "partial", k < 3, false));
        b.push(result(id, "beta", "resolved", false, true));
    }
    write_results(&dir.join("alpha/results.jsonl"), &a);
    let card = hunkgen::dataset::read_card(ds)
        .expect("card")
        .expect("card");
    let sha = &card
        .checksums
        .iter()
        .find(|(f, _)| f == "instances.jsonl")
        .expect("checksum")
        .1;
    std::fs::write(
        dir.join("alpha/summary.json"),
        summary("alpha", "demo", sha),
    )
    .expect("summary");
    write_results(&dir.join("beta/results.jsonl"), &b);
    [dir.join("alpha"), dir.join("beta/results.jsonl")]
}

/// Every `src`/`href`/`action`/`url(...)`/`@import` reference that leaves the page:
/// anything but `#anchors` and relative paths without a scheme.
fn outside_references(html: &str) -> Vec<String> {
    let attr = regex::Regex::new(
        r#"(?i)\b(src|href|action|poster|data|srcset|xlink:href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))"#,
    )
    .expect("regex");
    let mut out: Vec<String> = attr
        .captures_iter(html)
        .filter_map(|c| {
            let v = c.get(2).or(c.get(3)).or(c.get(4))?.as_str().trim();
            let scheme = v.split(['/', '?', '#']).next().unwrap_or("").contains(':');
            (scheme || v.starts_with("//")).then(|| c[0].to_string())
        })
        .collect();
    let css = regex::Regex::new(r"(?i)url\(|@import|<link\b|<iframe\b|<object\b|<embed\b")
        .expect("regex");
    out.extend(css.find_iter(html).map(|m| m.as_str().to_string()));
    out
}

/// What the browser saw.
pub(crate) struct Rendered {
    /// Console messages (Chromium logs every level as `INFO:CONSOLE`).
    console: Vec<String>,
    /// URLs the page itself asked the network for (browser-internal requests excluded).
    requests: Vec<String>,
    /// Distinct colours and the share of non-white pixels in the screenshot.
    colours: usize,
    ink: f64,
}

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("HUNKGEN_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!("chromium is not installed: `make deps` installs it (Debian package `chromium`)");
}

/// Render `page` headless: console from Chromium's stderr log, requests from its net log
/// (every host resolves to nothing, so nothing actually leaves), pixels from the PNG.
pub(crate) fn render(page: &Path, shot: &Path) -> Rendered {
    let work = tempfile::tempdir().expect("tempdir");
    let profile = work.path().join("profile");
    std::fs::create_dir(&profile).expect("mkdir");
    let netlog = work.path().join("netlog.json");
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!(
            "file://{}",
            page.canonicalize().expect("page").display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!(
                "chromium did not finish rendering {} in 120 s",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = reader.join().expect("stderr reader");
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let text = std::fs::read_to_string(&netlog).expect("chromium wrote its net log");
    // A net log cut short lacks its closing brackets (Chromium's documented format).
    let json: serde_json::Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("net log is JSON");
    let start_job = json["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    let requests = json["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == start_job && e["params"]["url"].is_string())
        // Requests of the browser itself (updates, time) have no origin; the page's have
        // its (opaque) origin.
        .filter(|e| e["params"]["initiator"] != "not an origin")
        .filter_map(|e| e["params"]["url"].as_str().map(str::to_string))
        .collect();
    let (colours, ink) = pixels(shot);
    Rendered {
        console,
        requests,
        colours,
        ink,
    }
}

/// Distinct colours and the share of pixels that are not (near) white.
fn pixels(png_file: &Path) -> (usize, f64) {
    let file = std::fs::File::open(png_file).expect("chromium wrote the screenshot");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("png size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let channels = info.color_type.samples();
    let bytes = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut ink = 0usize;
    let mut total = 0usize;
    for px in bytes.chunks_exact(channels) {
        let rgb = match channels {
            1 | 2 => [px[0]; 3],
            _ => [px[0], px[1], px[2]],
        };
        colours.insert(rgb);
        total += 1;
        if rgb.iter().any(|&c| c < 235) {
            ink += 1;
        }
    }
    (colours.len(), ink as f64 / total.max(1) as f64)
}

/// Why a rendered page fails the check (empty: it passes).
pub(crate) fn faults(r: &Rendered, html: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !r.console.is_empty() {
        out.push(format!("console: {:?}", r.console));
    }
    let outside = outside_references(html);
    if !r.requests.is_empty() || !outside.is_empty() {
        out.push(format!("outside requests: {:?} {:?}", r.requests, outside));
    }
    if r.colours < 8 || r.ink < 0.03 {
        out.push(format!(
            "blank screenshot: {} colours, {:.1}% ink",
            r.colours,
            r.ink * 100.0
        ));
    }
    out
}

#[test]
fn report_renders_in_a_browser_without_errors_requests_or_blank_page() {
    let ds = dataset();
    let work = tempfile::tempdir().expect("tempdir");
    let [a, b] = two_systems(work.path(), ds);
    let out = hunkgen()
        .arg("report")
        .arg(ds)
        .arg("--results")
        .arg(&a)
        .arg("--results")
        .arg(&b)
        .assert()
        .success();
    let page = ds.join("report/index.html");
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout).trim(),
        page.display().to_string(),
        "prints the page's path"
    );
    let html = std::fs::read_to_string(&page).expect("index.html");
    // The planted markup arrives as text, in the patch and the problem statement.
    assert!(
        !html.contains(INJECTED),
        "markup from data reached the page unescaped"
    );
    assert!(
        !html.contains("<script>console.error"),
        "a data <script> is live"
    );
    assert_eq!(
        html.matches("&lt;script&gt;console.error(&#39;injected&#39;)&lt;/script&gt;")
            .count(),
        2,
        "the planted script is shown, escaped, in the patch and the problem statement"
    );
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the search script"
    );
    // What the page contains.
    for needle in [
        "Dataset card",
        "Funnel",
        "Table I — file scope × hunk count",
        "Table II — per project",
        "Table III — proximity class × mean hunk divergence",
        "histogram of Div(P)",
        "histogram of D_lex (pairs)",
        "histogram of D_ast (same-file pairs)",
        "histogram of D_file (cross-file pairs)",
        "instances per proximity class",
        "id=\"q\"",
        "Resolution by proximity class",
        "Resolution by divergence quartile",
        "Abstention by state",
        "Which systems solved which tasks",
        "Divergence of fixed and unfixed bugs",
        "Bugs no system fixed",
        "Exact solver sets by proximity class",
        ">alpha<",
        ">beta<",
        "href=\"../logs/",
    ] {
        assert!(html.contains(needle), "the page lacks {needle}");
    }
    for id in ids(ds) {
        assert!(
            html.contains(&format!(">{id}</a>")),
            "{id} links to its details"
        );
    }
    let shot_dir = manifest().join("target/report-check");
    std::fs::create_dir_all(&shot_dir).expect("mkdir");
    let shot = shot_dir.join("index.png");
    let rendered = render(&page, &shot);
    let problems = faults(&rendered, &html);
    assert!(
        problems.is_empty(),
        "{}: {problems:?} (screenshot: {})",
        page.display(),
        shot.display()
    );
}

/// The outcome-conditioned tables (`outcomes.json` beside the page) of the two scripted
/// systems, against what their rows say by construction: alpha fixed the bugs at even
/// positions, beta those at positions divisible by 3, so nobody fixed positions 1 and 5.
#[test]
fn report_writes_the_outcome_conditioned_tables_beside_the_page() {
    let ds = dataset();
    let work = tempfile::tempdir().expect("tempdir");
    let [a, b] = two_systems(work.path(), ds);
    let page = work.path().join("page/index.html");
    hunkgen()
        .arg("report")
        .arg(ds)
        .args([
            "--results".as_ref(),
            a.as_os_str(),
            "--results".as_ref(),
            b.as_os_str(),
        ])
        .arg("-o")
        .arg(&page)
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("page/outcomes.json")).expect("outcomes.json"),
    )
    .expect("json");
    let instances = hunkgen::dataset::read_instances(ds).expect("instances");
    let div = |k: usize| instances[k].divergence.as_ref().and_then(|d| d.value);
    let sorted = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v
    };
    let values = |v: &serde_json::Value| -> Vec<f64> {
        sorted(
            v.as_array()
                .expect("values")
                .iter()
                .map(|x| x.as_f64().expect("number"))
                .collect(),
        )
    };
    for (s, fixed_at) in [(0, 2usize), (1, 3usize)] {
        let split = &json["divergence"][s];
        let fixed = sorted(
            (0..instances.len())
                .filter(|k| k % fixed_at == 0)
                .filter_map(div)
                .collect(),
        );
        let unfixed = sorted(
            (0..instances.len())
                .filter(|k| k % fixed_at != 0)
                .filter_map(div)
                .collect(),
        );
        assert_eq!(values(&split["values"][0]), fixed, "{split}");
        assert_eq!(values(&split["values"][1]), unfixed, "{split}");
        assert_eq!(split["fixed"]["n"], fixed.len());
        let mean = fixed.iter().sum::<f64>() / fixed.len() as f64;
        let got = split["fixed"]["mean"].as_f64().expect("mean");
        assert!((got - mean).abs() < 1e-12, "{got} {mean}");
    }
    let nobody: Vec<&str> = json["unfixed"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["instance_id"].as_str().expect("id"))
        .collect();
    let mut expected: Vec<&str> = (0..instances.len())
        .filter(|k| k % 2 != 0 && k % 3 != 0)
        .map(|k| instances[k].instance_id.as_str())
        .collect();
    expected.sort();
    assert_eq!(nobody, expected);
    assert_eq!(json["unfixed"]["bugs"], instances.len());
    // The solver sets by class add up to every task (Novel and Partial of each instance).
    let tasks: u64 = json["sets_by_class"]
        .as_array()
        .expect("sets")
        .iter()
        .map(|c| c["tasks"].as_u64().expect("tasks"))
        .sum();
    assert_eq!(tasks as usize, 2 * instances.len());
    let md = std::fs::read_to_string(work.path().join("page/outcomes.md")).expect("outcomes.md");
    assert!(
        md.contains(&format!(
            "## Bugs no system fixed ({} of {})",
            expected.len(),
            instances.len()
        )),
        "{md}"
    );
}

#[test]
fn the_browser_check_catches_console_errors_outside_requests_and_blank_pages() {
    let work = tempfile::tempdir().expect("tempdir");
    let broken = work.path().join("broken.html");
    let html = "<!DOCTYPE html><html><body>\
        <img src=\"http://example.invalid/pixel.png\" alt=\"\">\
        <script>undefinedFunction();</script></body></html>";
    std::fs::write(&broken, html).expect("write");
    let rendered = render(&broken, &work.path().join("broken.png"));
    assert!(
        rendered
            .console
            .iter()
            .any(|l| l.contains("Uncaught ReferenceError: undefinedFunction")),
        "console error missed: {:?}",
        rendered.console
    );
    assert!(
        rendered
            .requests
            .iter()
            .any(|u| u == "http://example.invalid/pixel.png"),
        "outside request missed: {:?}",
        rendered.requests
    );
    assert!(
        rendered.colours < 8 || rendered.ink < 0.03,
        "blank page missed: {} colours, {:.3} ink",
        rendered.colours,
        rendered.ink
    );
    let f = faults(&rendered, html);
    assert_eq!(f.len(), 3, "{f:?}");
    assert!(f[0].starts_with("console:"), "{f:?}");
    assert!(
        f[1].starts_with("outside requests:") && f[1].contains("src=\\\"http://example.invalid"),
        "the static scan flags the src too: {f:?}"
    );
    assert!(f[2].starts_with("blank screenshot:"), "{f:?}");
    // The static scan on its own.
    assert!(outside_references("<a href='https://example.org/x'>").len() == 1);
    assert!(outside_references("<div style=\"background:url(x.png)\">").len() == 1);
    assert!(outside_references("<a href=\"#x\"></a><a href=\"../logs/a%20b/c.log\">").is_empty());
}

#[test]
fn results_of_another_dataset_are_refused_in_one_line() {
    let ds = dataset();
    let work = tempfile::tempdir().expect("tempdir");
    let ids = ids(ds);
    // A summary naming another dataset's checksum.
    let other = work.path().join("other");
    write_results(
        &other.join("results.jsonl"),
        &[result(&ids[0], "gamma", "novel", true, false)],
    );
    std::fs::write(
        other.join("summary.json"),
        summary("gamma", "hunk4j", &"ab".repeat(32)),
    )
    .expect("summary");
    let out = hunkgen()
        .arg("report")
        .arg(ds)
        .arg("--results")
        .arg(&other)
        .arg("-o")
        .arg(work.path().join("r.html"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&other.join("results.jsonl").display().to_string())
            && err.contains("results of dataset `hunk4j`")
            && err.contains("not of `demo`"),
        "{err}"
    );
    // No summary: recognized by instance ids.
    let foreign = work.path().join("foreign.jsonl");
    write_results(&foreign, &[result("Lang_1", "delta", "novel", true, false)]);
    let out = hunkgen()
        .arg("report")
        .arg(ds)
        .arg("--results")
        .arg(&foreign)
        .arg("-o")
        .arg(work.path().join("r.html"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("foreign.jsonl") && err.contains("`Lang_1`"),
        "{err}"
    );
    assert!(!work.path().join("r.html").exists(), "nothing written");
    // A line that is not a result row names the file and the line.
    let bad = work.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"instance_id\": 3}\n").expect("write");
    let out = hunkgen()
        .arg("report")
        .arg(ds)
        .arg("--results")
        .arg(&bad)
        .arg("-o")
        .arg(work.path().join("r.html"))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("bad.jsonl:1:"), "{err}");
}

#[test]
fn report_help_shows_an_example() {
    let out = hunkgen().args(["report", "--help"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("hunkgen report datasets/demo --results"),
        "{text}"
    );
}
