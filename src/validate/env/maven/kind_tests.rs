use super::*;
use crate::validate::env::maven::{declare, Jdk};

#[test]
fn test_sources_under_src_test_java_are_their_classes() {
    let k = MavenAutoSpec;
    assert_eq!(
        k.select("src/test/java/com/acme/CalcTest.java"),
        Selected::Classes(vec!["com.acme.CalcTest".into()])
    );
    assert_eq!(
        k.select("core/src/test/java/com/acme/CoreTest.java"),
        Selected::Classes(vec!["com.acme.CoreTest".into()])
    );
    // Main code and a stray `test` directory are no test.
    assert_eq!(
        k.select("src/main/java/com/acme/Calc.java"),
        Selected::Classes(Vec::new())
    );
    assert_eq!(
        k.select("test/java/Foo.java"),
        Selected::Classes(Vec::new())
    );
    assert_eq!(
        k.select("xsrc/test/java/Foo.java"),
        Selected::Classes(Vec::new())
    );
    assert_eq!(k.select("src/test/resources/data.txt"), Selected::File);
    assert!(k.default_command_runs_classes());
}

#[test]
fn the_run_script_cleans_runs_offline_and_copies_the_reports() {
    let s = run_script(".hunkgen-reports", &["a.BTest".into(), "c.DTest".into()]);
    let all: Vec<&str> = s.lines().collect();
    // The working copy's top is remembered, and Maven starts where the reactor root is
    // when the environment names a directory below the top.
    assert_eq!(all[0], "top=$(pwd)");
    assert!(
        all[1].starts_with("if [ -s \"$HUNKGEN_ENV_DIR/reactor-root\" ]; then cd "),
        "{}",
        all[1]
    );
    let lines = &all[2..];
    // Stale reports of an earlier run go first (§5).
    assert!(lines[0].contains("'*/target/surefire-reports'") && lines[0].contains("rm -rf"));
    // A lifted environment's level goes over the poms' literal levels below 6.
    assert!(
        lines[1].starts_with("if [ -s \"$HUNKGEN_ENV_DIR/lift\" ]")
            && lines[1].contains("sed -i -E"),
        "{}",
        lines[1]
    );
    // error-prone's compiler, a check and no test, goes from the poms that name it.
    assert!(
        lines[2].contains(&format!("grep -q -E '{ERRORPRONE_GREP}'"))
            && lines[2].contains(NO_ERRORPRONE_SED),
        "{}",
        lines[2]
    );
    // A surefire repaired by rewriting the poms' literal moves in the working copy too.
    assert!(
        lines[3].starts_with("if [ -s \"$HUNKGEN_ENV_DIR/surefire\" ]")
            && lines[3].contains("sed -z -i -E"),
        "{}",
        lines[3]
    );
    // The selected classes' modules are found before Maven runs (`$pl`).
    assert_eq!(lines[4], "pl=; mods=; whole=");
    let at = lines.iter().position(|l| *l == "round=0").expect("round=0");
    assert_eq!(lines[at + 1], "while :; do");
    let mvn = lines[at + 2];
    assert!(mvn.contains(" $pl '-Dtest="), "{mvn}");
    assert!(mvn.starts_with("{ mvn -o -B "), "{mvn}");
    assert!(
        mvn.contains("-s \"$HUNKGEN_ENV_DIR\"/settings.xml"),
        "{mvn}"
    );
    assert!(
        mvn.contains("-gs \"$HUNKGEN_ENV_DIR\"/settings.xml"),
        "{mvn}"
    );
    assert!(mvn.contains("-Dmaven.repo.local=\"$HUNKGEN_ENV_DIR\"/repository"));
    assert!(
        mvn.contains("$(cat \"$HUNKGEN_ENV_DIR/mvn.args\")"),
        "{mvn}"
    );
    assert!(mvn.contains("'-Dtest=a.BTest,c.DTest'"), "{mvn}");
    for f in SKIP.iter().chain(TEST_FLAGS) {
        assert!(mvn.contains(f), "{f} in {mvn}");
    }
    // Printed as it comes (a run the timeout kills still shows how far it got) and
    // kept for the checks below.
    assert!(
        mvn.ends_with(" test 2>&1; echo $? > .hunkgen-mvn.log.rc; } | tee .hunkgen-mvn.log"),
        "{mvn}"
    );
    assert_eq!(lines[at + 3], "rc=$(cat .hunkgen-mvn.log.rc)");
    assert!(s.contains("'*/target/surefire-reports/TEST-*.xml'"), "{s}");
    // Into the working copy's report directory, wherever Maven started.
    assert!(s.contains("cp {} \"$top\"/'.hunkgen-reports'/"), "{s}");
    assert!(s.ends_with("exit $rc\n"), "{s}");
    // No class: the whole suite (a suite with `scope: full`).
    assert!(!run_script("r", &[]).contains("-Dtest"));
}

#[test]
fn the_run_script_works_in_a_shell() {
    // A fake mvn records its arguments and writes one report, then fails: the script
    // copies the report and keeps mvn's status.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    let env = dir.path().join("env");
    let wc = dir.path().join("wc");
    for d in [&bin, &env, &wc.join("m/target/surefire-reports")] {
        fs::create_dir_all(d).expect("mkdir");
    }
    fs::write(wc.join("m/target/surefire-reports/TEST-old.xml"), "stale").expect("stale");
    fs::write(env.join(ARGS_FILE), "-Dmaven.compiler.source=6\n").expect("args");
    let mvn = bin.join("mvn");
    fs::write(
        &mvn,
        "#!/bin/sh\necho \"$@\" > args.txt\nmkdir -p m/target/surefire-reports\n\
         echo '<testsuite/>' > m/target/surefire-reports/TEST-a.BTest.xml\n\
         echo '[INFO] maven is executed in offline mode, Updating project files from SCM: skipped.'\n\
         echo '[ERROR] Cannot access central in offline mode'\nexit 3\n",
    )
    .expect("mvn");
    let mut perm = fs::metadata(&mvn).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    fs::set_permissions(&mvn, perm).expect("chmod");
    let out = run_in_sh(&bin, &env, &wc, &["a.BTest".into()]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("Cannot access central in offline mode"),
        "{said}"
    );
    assert!(
        said.contains("hunkgen: dependency_unresolvable: "),
        "{said}"
    );
    let args = fs::read_to_string(wc.join("args.txt")).expect("args");
    assert!(args.starts_with("-o -B -s "), "{args}");
    assert!(args.contains(&format!("-Dmaven.repo.local={}/repository", env.display())));
    assert!(
        args.contains("-Dmaven.compiler.source=6 -Dtest=a.BTest"),
        "{args}"
    );
    assert!(wc.join("reports/TEST-a.BTest.xml").is_file());
    assert!(!wc.join("reports/TEST-old.xml").exists());
}

/// `run_script(classes)` in `sh` in `wc`, the environment at `env`, `bin` first on PATH.
fn run_in_sh(
    bin: &std::path::Path,
    env: &std::path::Path,
    wc: &std::path::Path,
    classes: &[String],
) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(run_script("reports", classes))
        .current_dir(wc)
        .env("HUNKGEN_ENV_DIR", env)
        .env(
            "PATH",
            prepend_paths(std::slice::from_ref(&bin.to_path_buf())),
        )
        .output()
        .expect("sh")
}

/// An environment without arguments and an empty working copy, under `dir`.
fn env_and_wc(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let env = dir.join("env");
    fs::create_dir_all(&env).expect("env");
    fs::write(env.join(ARGS_FILE), "").expect("args");
    let wc = dir.join("wc");
    fs::create_dir_all(&wc).expect("wc");
    (env, wc)
}

/// A fake `mvn` in a fresh bin directory: `script` is its body.
fn fake_mvn(dir: &std::path::Path, script: &str) -> std::path::PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).expect("mkdir");
    let mvn = bin.join("mvn");
    fs::write(&mvn, format!("#!/bin/sh\n{script}")).expect("mvn");
    let mut perm = fs::metadata(&mvn).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    fs::set_permissions(&mvn, perm).expect("chmod");
    bin
}

#[test]
fn test_sources_that_do_not_compile_and_are_not_selected_are_dropped() {
    // testCompile fails on every test source named in `broken` that still exists; with
    // none left it writes a report and succeeds.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_mvn(
        dir.path(),
        "failed=0\nfor f in $(cat broken); do if [ -f \"$f\" ]; then \
         echo \"[ERROR] $PWD/$f:[514,40] error: incompatible types\"; failed=1; fi; done\n\
         if [ $failed = 1 ]; then echo '[ERROR] Failed to execute goal \
         org.apache.maven.plugins:maven-compiler-plugin:3.0:testCompile (default-testCompile) \
         on project x: Compilation failure'; exit 1; fi\n\
         mkdir -p target/surefire-reports\n\
         echo '<testsuite><testcase classname=\"a.BTest\" name=\"t\"/></testsuite>' \
         > target/surefire-reports/TEST-a.BTest.xml\n",
    );
    let env = dir.path().join("env");
    fs::create_dir_all(&env).expect("env");
    fs::write(env.join(ARGS_FILE), "").expect("args");
    let run = |broken: &[&str]| {
        let wc = tempfile::tempdir_in(dir.path()).expect("wc");
        for f in [
            "src/test/java/a/BTest.java",
            "src/test/java/a/OldTest.java",
            "src/test/java/b/Old2Test.java",
        ] {
            let p = wc.path().join(f);
            fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            fs::write(&p, "class X {}").expect("source");
        }
        fs::write(wc.path().join("broken"), broken.join("\n")).expect("broken");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(run_script("reports", &["a.BTest".into()]))
            .current_dir(wc.path())
            .env("HUNKGEN_ENV_DIR", &env)
            .env("PATH", prepend_paths(std::slice::from_ref(&bin)))
            .output()
            .expect("sh");
        let exists = |f: &str| wc.path().join(f).exists();
        let kept = [
            exists("src/test/java/a/OldTest.java"),
            exists("src/test/java/b/Old2Test.java"),
        ];
        (out, kept, exists("reports/TEST-a.BTest.xml"))
    };
    // Two unselected sources that do not compile: both dropped, listed, the run passes.
    let (out, kept, report) = run(&[
        "src/test/java/a/OldTest.java",
        "src/test/java/b/Old2Test.java",
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(kept, [false, false]);
    assert!(report);
    assert!(
        said.contains("hunkgen-dropped: src/test/java/a/OldTest.java\n"),
        "{said}"
    );
    assert!(
        said.contains("hunkgen-dropped: src/test/java/b/Old2Test.java\n"),
        "{said}"
    );
    // The selected class itself does not compile: nothing is dropped, and the run says
    // test_compile_error.
    let (out, kept, report) = run(&["src/test/java/a/BTest.java", "src/test/java/a/OldTest.java"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(kept, [true, true]);
    assert!(!report);
    assert!(!said.contains("hunkgen-dropped"), "{said}");
    assert!(said.contains("hunkgen: test_compile_error: "), "{said}");
}

#[test]
fn the_resolve_run_selects_one_test_class_per_module() {
    let pom = |modules: &str| {
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId>\
             <artifactId>a</artifactId><version>1</version>{modules}</project>"
        )
    };
    let root = pom(
        "<packaging>pom</packaging><modules><module>core</module><module>app</module></modules>",
    );
    let leaf = pom("");
    let paths: Vec<String> = [
        "pom.xml",
        "core/pom.xml",
        "app/pom.xml",
        "core/src/test/java/c/Helper.java",
        "core/src/test/java/c/CoreTest.java",
        "core/src/test/java/c/OtherTest.java",
        "app/src/main/java/a/App.java",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let read = |p: &str| match p {
        "pom.xml" => Some(root.clone()),
        "core/pom.xml" | "app/pom.xml" => Some(leaf.clone()),
        _ => None,
    };
    let d = declare(&read, &paths, 0).expect("declared");
    assert_eq!(resolve_classes(&d, &paths), vec!["c.CoreTest".to_string()]);
}

#[test]
fn a_lifted_level_is_passed_on_the_command_line() {
    let jdk = Jdk {
        home: "/j".into(),
        feature: 11,
        version: "11.0.25".into(),
    };
    let lifted = JdkChoice {
        jdk: jdk.clone(),
        level: Some(6),
        lifted_from: Some(5),
        also: Vec::new(),
        why: String::new(),
    };
    assert_eq!(
        level_flags(&lifted),
        vec![
            "-Dmaven.compiler.source=6",
            "-Dmaven.compiler.target=6",
            "-Dmaven.compile.source=6",
            "-Dmaven.compile.target=6"
        ]
    );
    let plain = JdkChoice {
        lifted_from: None,
        level: Some(8),
        ..lifted
    };
    assert!(level_flags(&plain).is_empty());
    let settings = settings_xml("https://repo.maven.apache.org/maven2");
    assert!(settings.contains("<id>central</id>") && !settings.contains("mirror"));
    assert!(settings.contains("<url>https://repo.maven.apache.org/maven2</url>"));
}

#[test]
fn maven_colours_are_stripped_from_its_version() {
    assert_eq!(
        strip_ansi("\u{1b}[0mApache Maven 3.8.7\u{1b}[0m"),
        "Apache Maven 3.8.7"
    );
}

#[test]
fn maven_auto_is_read_and_written_as_the_word_auto() {
    use crate::validate::env::{EnvSpec, NotOneEnv};
    let spec: EnvSpec = serde_norway::from_str("maven: auto\n").expect("maven: auto");
    assert_eq!(spec, EnvSpec::MavenAuto(MavenAutoSpec));
    assert_eq!(spec.kind().name(), "maven");
    assert_eq!(
        serde_json::to_string(&spec).expect("json"),
        r#"{"maven":"auto"}"#
    );
    let back: EnvSpec = serde_json::from_str(r#"{"maven":"auto"}"#).expect("back");
    assert_eq!(back, spec);
    // Other forms are written as before: no `maven` key.
    let py: EnvSpec = serde_norway::from_str("python: auto\n").expect("python: auto");
    assert_eq!(
        serde_json::to_string(&py).expect("json"),
        r#"{"python":"auto"}"#
    );
    let err = |y: &str| {
        serde_norway::from_str::<EnvSpec>(y)
            .expect_err(y)
            .to_string()
    };
    assert!(err("maven: manual\n").contains(&NotOneEnv::MavenWord("manual".into()).to_string()));
    assert!(err("maven: auto\npython: auto\n").contains(&NotOneEnv::Kinds.to_string()));
}

#[test]
fn poms_and_the_mvn_directory_are_build_files() {
    assert!(is_build_file("pom.xml"));
    assert!(is_build_file("core/pom.xml"));
    assert!(is_build_file(".mvn/maven.config"));
    assert!(!is_build_file("src/main/java/Pom.java"));
    assert!(!is_build_file("docs/pom.xml.md"));
}

/// A pom that moves its tests (`testSourceDirectory`, as old Commons poms do): the
/// resolve run's class is found under that root, not under `src/test/java/`.
#[test]
fn the_resolve_run_finds_tests_under_a_declared_root() {
    let pom = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId>\
               <artifactId>a</artifactId><version>1</version>\
               <build><testSourceDirectory>src/test</testSourceDirectory></build></project>";
    let paths: Vec<String> = [
        "pom.xml",
        "src/test/org/x/FooTest.java",
        "src/java/org/x/Foo.java",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let read = |p: &str| (p == "pom.xml").then(|| pom.to_string());
    let d = declare(&read, &paths, 0).expect("declared");
    assert_eq!(d.modules[0].test_source_roots, vec!["src/test".to_string()]);
    assert_eq!(
        resolve_classes(&d, &paths),
        vec!["org.x.FooTest".to_string()]
    );
}

#[test]
fn a_surefire_that_ran_nothing_for_dotted_names_is_given_paths() {
    // An old surefire (matching `**/<test>.java`): a dotted name selects nothing, a
    // path selects the class.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_mvn(
        dir.path(),
        "echo \"$@\" >> args.txt\nmkdir -p target/surefire-reports\n\
         case \"$*\" in *-Dtest=a/BTest*) \
         echo '<testsuite><testcase classname=\"a.BTest\" name=\"t\"/></testsuite>' \
         > target/surefire-reports/TEST-a.BTest.xml ;; \
         *) echo '<testsuite tests=\"0\"/>' > target/surefire-reports/TEST-none.xml ;; esac\n",
    );
    let (env, wc) = env_and_wc(dir.path());
    let out = run_in_sh(&bin, &env, &wc, &["a.BTest".into()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("again with a/BTest"), "{said}");
    assert!(!said.contains("zero_tests"), "{said}");
    assert!(wc.join("reports/TEST-a.BTest.xml").is_file());
    let args = fs::read_to_string(wc.join("args.txt")).expect("args");
    assert_eq!(args.lines().count(), 2, "{args}");
    // A run whose dotted names found tests goes once.
    fs::remove_file(wc.join("args.txt")).expect("rm");
    let out = run_in_sh(&bin, &env, &wc, &["a/BTest".into()]);
    assert_eq!(out.status.code(), Some(0));
    let args = fs::read_to_string(wc.join("args.txt")).expect("args");
    assert_eq!(args.lines().count(), 1, "{args}");
    assert_eq!(surefire_paths(&["a.b.C".into(), "D".into()]), "a/b/C,D");
}

#[test]
fn offline_words_on_an_info_line_are_no_unresolved_artifact() {
    // buildnumber-maven-plugin says "offline mode" at INFO in every offline run; a test
    // compile failure after it is that, not dependency_unresolvable.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_mvn(
        dir.path(),
        "echo '[INFO] maven is executed in offline mode, Updating project files from SCM: skipped.'\n\
         echo '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.1:testCompile \
         (default-testCompile) on project x: Compilation failure'\nexit 1\n",
    );
    let (env, wc) = env_and_wc(dir.path());
    let out = run_in_sh(&bin, &env, &wc, &["a.BTest".into()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("hunkgen: test_compile_error: "), "{said}");
    assert!(!said.contains("dependency_unresolvable"), "{said}");
}

/// The files of a working copy under `wc`, each an empty stand-in.
fn touch_all(wc: &std::path::Path, files: &[&str]) {
    for f in files {
        let p = wc.join(f);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, "x").expect("file");
    }
}

#[test]
fn a_run_builds_only_the_modules_of_its_classes_and_what_they_need() {
    // The fake mvn records each call's arguments, one line per call.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_mvn(
        dir.path(),
        "echo \"$@\" >> args.txt\nmkdir -p target/surefire-reports\n\
         echo '<testsuite><testcase classname=\"a.T\" name=\"t\"/></testsuite>' \
         > target/surefire-reports/TEST-a.T.xml\n",
    );
    let (env, wc) = env_and_wc(dir.path());
    touch_all(
        &wc,
        &[
            "pom.xml",
            "core/pom.xml",
            "core/src/test/java/a/CoreTest.java",
            "app/pom.xml",
            "app/sub/pom.xml",
            "app/sub/src/test/java/a/b/SubTest.java",
            "app/sub/target/test-classes/a/b/StaleTest.java",
            "src/test/java/a/RootTest.java",
        ],
    );
    let args = |classes: &[&str]| {
        let _ = fs::remove_file(wc.join("args.txt"));
        let classes: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
        let out = run_in_sh(&bin, &env, &wc, &classes);
        assert!(out.status.success(), "{out:?}");
        fs::read_to_string(wc.join("args.txt")).expect("args")
    };
    // Classes in two modules, a nested one by its path: both, with what they need.
    let a = args(&["a.b.SubTest", "a.CoreTest"]);
    assert_eq!(a.lines().count(), 1, "{a}");
    assert!(
        a.contains(" -pl app/sub,core -am -Dtest=a.b.SubTest,a.CoreTest "),
        "{a}"
    );
    // A class of the root module, or one not in the tree: the whole reactor.
    for classes in [
        &["a.CoreTest", "a.RootTest"][..],
        &["a.Gone"],
        &["a.b.StaleTest"],
    ] {
        let a = args(classes);
        assert!(!a.contains("-pl"), "{classes:?}: {a}");
        assert!(!a.contains("-am"), "{classes:?}: {a}");
    }
}

#[test]
fn a_module_outside_the_reactor_is_run_with_the_whole_reactor() {
    // Maven refuses `-pl` for a directory its reactor does not list: the run goes again
    // without it, and its status and reports are the second run's.
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = fake_mvn(
        dir.path(),
        "echo \"$@\" >> args.txt\n\
         case \" $* \" in *' -pl '*) echo '[ERROR] Could not find the selected project in the \
         reactor: tools @ '; exit 1 ;; esac\n\
         mkdir -p tools/target/surefire-reports\n\
         echo '<testsuite><testcase classname=\"a.ToolTest\" name=\"t\"/></testsuite>' \
         > tools/target/surefire-reports/TEST-a.ToolTest.xml\n",
    );
    let (env, wc) = env_and_wc(dir.path());
    touch_all(
        &wc,
        &[
            "pom.xml",
            "tools/pom.xml",
            "tools/src/test/java/a/ToolTest.java",
        ],
    );
    let out = run_in_sh(&bin, &env, &wc, &["a.ToolTest".into()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("again on the whole reactor"), "{said}");
    let calls: Vec<String> = fs::read_to_string(wc.join("args.txt"))
        .expect("args")
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].contains("-pl tools -am"), "{calls:?}");
    assert!(!calls[1].contains("-pl"), "{calls:?}");
    assert!(wc.join("reports/TEST-a.ToolTest.xml").is_file());
}

/// A build file naming error-prone's compiler or a git goal gives its key part once;
/// any other build file none, so its trees keep their keys.
#[test]
fn build_files_that_later_fixes_reach_get_key_parts_of_their_own() {
    let mut since = Vec::new();
    key_marks(b"<artifactId>error_prone_core</artifactId>", &mut since);
    key_marks(
        b"<artifactId>error_prone_core</artifactId> git-commit-id",
        &mut since,
    );
    key_marks(
        b"<artifactId>git-build-hook-maven-plugin</artifactId>",
        &mut since,
    );
    assert_eq!(
        since,
        vec![&b"\0errorprone-deps"[..], &b"\0git-goals-skipped"[..]]
    );
    let mut none = Vec::new();
    key_marks(
        b"<artifactId>error_prone_annotations</artifactId>",
        &mut none,
    );
    assert!(none.is_empty());
}

#[test]
fn a_tree_without_a_pom_is_named_for_the_build_it_has() {
    let k = MavenAutoSpec;
    let why = |files: &[(&str, &str)]| {
        let tmp = tempfile::tempdir().expect("tmp");
        crate::git::fixture::repository_with(tmp.path(), files, 1_600_000_000);
        k.unbuildable("acme", tmp.path(), "HEAD")
            .map(|e| e.to_string())
    };
    let test = ("src/test/org/acme/CalcTest.java", "class CalcTest {}");
    // A Maven 1 and Ant tree of 2004 (commons-cli before its pom.xml).
    let old = why(&[
        ("project.xml", "<project/>"),
        ("build.xml", "<project/>"),
        test,
    ])
    .expect("no pom: unbuildable");
    assert!(old.contains("build_tool_unavailable"), "{old}");
    assert!(
        old.contains("Maven 1 (project.xml) and Ant (build.xml)"),
        "{old}"
    );
    let none = why(&[test]).expect("no build file: unbuildable");
    assert!(none.contains("no build file hunkgen knows"), "{none}");
    // A tree with a pom, at its top or below (gson's `gson/pom.xml` until 2015), is
    // buildable, whatever it selects.
    assert_eq!(why(&[("pom.xml", "<project/>"), test]), None);
    assert_eq!(
        why(&[("gson/pom.xml", "<project/>"), ("build.xml", "x"), test]),
        None
    );
}

/// A resolve attempt moves the test sources it drops aside, and the next attempt puts
/// them back first: an online attempt after an offline one starts from the tree as
/// committed (commons-numbers c97fc79: the second attempt went on past the dropped tests
/// and failed elsewhere, so a warm build named another reason than the cold one).
#[test]
fn a_resolve_attempt_starts_from_the_tests_an_earlier_one_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    let wc = dir.path().join("wc");
    let test = wc.join("src/test/java/a/BrokenTest.java");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::create_dir_all(test.parent().expect("parent")).expect("wc");
    std::fs::write(&test, "class BrokenTest { int x = ; }\n").expect("test");
    // A stand-in mvn: testCompile fails while the broken test is there.
    let mvn = bin.join("mvn");
    std::fs::write(
        &mvn,
        "#!/bin/sh\nif [ -f src/test/java/a/BrokenTest.java ]; then\n\
         echo \"[ERROR] $(pwd -P)/src/test/java/a/BrokenTest.java:[1,28] illegal start of expression\"\n\
         echo '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.8.1:testCompile (default-testCompile) on project a: Compilation failure'\n\
         exit 1\nfi\necho ok\n",
    )
    .expect("mvn");
    std::fs::set_permissions(&mvn, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let attempt = format!(
        "{}{}cat .hunkgen-dropped 2>/dev/null; exit $rc",
        restore_dropped(),
        dropping_into("mvn", "log", &[], true)
    );
    let sh = || {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(&attempt)
            .current_dir(&wc)
            .env("PATH", prepend_paths(std::slice::from_ref(&bin)))
            .output()
            .expect("sh")
    };
    for round in 0..2 {
        let out = sh();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "round {round}: {said}");
        assert!(
            said.contains("hunkgen-dropped: src/test/java/a/BrokenTest.java"),
            "round {round}: {said}"
        );
        // Dropped for this attempt only: kept aside, whole again when the next starts.
        assert!(!test.exists(), "round {round}");
        assert!(wc
            .join(".hunkgen-stash/src/test/java/a/BrokenTest.java")
            .is_file());
    }
    let restore = std::process::Command::new("sh")
        .arg("-c")
        .arg(restore_dropped())
        .current_dir(&wc)
        .status()
        .expect("sh");
    assert!(restore.success());
    assert_eq!(
        std::fs::read_to_string(&test).expect("restored"),
        "class BrokenTest { int x = ; }\n"
    );
    assert!(!wc.join(".hunkgen-stash").exists());
}
