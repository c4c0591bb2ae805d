//! One instance of `hunkgen run`: its places under the run directory, the state copied
//! into a fresh working directory and snapshotted outside it, the prompt, the agent in
//! the sandbox (with the Best scenario's environment when asked), the patch, the
//! trajectory and the outcome record.

use super::*;

/// Where one instance's run keeps its material under the run directory.
struct InstancePaths {
    /// What the run leaves: prompt, logs, model.patch, result.json.
    inst_dir: PathBuf,
    /// The agent's working copy of the state.
    work: PathBuf,
    /// The outside snapshot the patch is diffed against.
    snapshot: PathBuf,
    /// Files for the agent's process only (MCP configuration, trajectory log).
    private: PathBuf,
    /// The oracle agent's answer.
    oracle_dir: PathBuf,
    /// The MCP configuration given to the agent.
    mcp_config: PathBuf,
}

impl Ctx<'_> {
    /// The run directory's places for instance `id`.
    fn paths(&self, id: &str) -> InstancePaths {
        let private = self.dir.join(".agent").join(id);
        InstancePaths {
            inst_dir: self.dir.join(id),
            work: self.dir.join(".work").join(id),
            snapshot: self.dir.join(".snapshots").join(format!("{id}.git")),
            oracle_dir: self.dir.join(".oracle").join(id),
            mcp_config: private.join("mcp.json"),
            private,
        }
    }

    /// One instance: (record, model_patch, reused).
    pub(super) fn one(&self, inst: &Instance) -> (AgentRunRecord, String, bool) {
        let opts = self.opts;
        let id = &inst.instance_id;
        let InstancePaths {
            inst_dir,
            work,
            snapshot,
            private,
            oracle_dir,
            mcp_config,
        } = self.paths(id);
        let state =
            crate::states::state_dir(self.dataset, id, opts.state, opts.scenario, opts.with_tests);
        let manifest = std::fs::read(state.join("manifest.yaml")).unwrap_or_default();
        let candidate = self.d4j.and_then(|l| l.candidate(inst));
        let variant = opts
            .variant
            .unwrap_or_else(|| PromptVariant::default_for(candidate.is_some()));
        let prompt = self.prompt(
            inst,
            variant,
            &work,
            &private,
            &mcp_config,
            candidate.is_some(),
        );
        // A Defects4J working copy without a state is the checkout of this installation.
        let environment = match (self.d4j, &candidate) {
            (Some(l), Some(c)) if manifest.is_empty() => l
                .validator
                .d4j_environment(c)
                .map(String::into_bytes)
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let envs: BestEnvs = match (self.envs, &candidate) {
            (Some(e), None) => crate::source::Candidate::from_instance(inst, e.card)
                .map_err(|why| why.to_string())
                .and_then(|c| e.validator.agent_environments(&c)),
            _ => Ok(Vec::new()),
        };
        let key = {
            let spec = serde_json::to_string(&opts.spec).unwrap_or_default();
            // The run folder's own path is not part of the key: a folder moved, or merged
            // from shards, keeps its results.
            let prompt = prompt.replace(&self.dir.display().to_string(), "<run>");
            let mut material = Vec::new();
            for part in [
                opts.agent.as_bytes(),
                spec.as_bytes(),
                variant.name().as_bytes(),
                prompt.as_bytes(),
                &manifest,
                format!("{:?}", opts.timeout).as_bytes(),
            ] {
                material.extend_from_slice(part);
                material.push(0);
            }
            if !environment.is_empty() {
                material.extend_from_slice(&environment);
                material.push(0);
            }
            // Only when true, so keys of runs without the golden tests stay as they were.
            if opts.with_tests {
                material.extend_from_slice(b"tests_present\0");
            }
            // Each attempt is its own sample.
            if let Some(k) = self.attempt {
                material.extend_from_slice(format!("attempt {k}\0").as_bytes());
            }
            // The environments a Best run gets, by their content keys.
            match &envs {
                Ok(v) if v.is_empty() => {}
                Ok(v) => {
                    for e in v {
                        material.extend_from_slice(
                            format!("env {} {}\0", e.suite, e.env.key).as_bytes(),
                        );
                    }
                }
                Err(why) => material.extend_from_slice(format!("env error {why}\0").as_bytes()),
            }
            dataset::sha256_hex(&material)
        };
        let result_path = inst_dir.join("result.json");
        if !opts.no_cache {
            let old = std::fs::read_to_string(&result_path)
                .ok()
                .and_then(|t| serde_json::from_str::<AgentRunRecord>(&t).ok());
            if let Some(mut old) = old.filter(|o| o.key == key) {
                if let Ok(patch) = std::fs::read_to_string(inst_dir.join("model.patch")) {
                    if old.keep_output.unwrap_or(trajectory::DEFAULT_KEEP_OUTPUT)
                        != opts.keep_output
                        && self.renormalize(&mut old, &inst_dir, &work)
                    {
                        let json = serde_json::to_string_pretty(&old).unwrap_or_default() + "\n";
                        let _ = dataset::write_atomic(&result_path, json.as_bytes());
                    }
                    return (old, patch, true);
                }
            }
        }
        let mut record = AgentRunRecord {
            instance_id: id.clone(),
            agent: opts.agent.clone(),
            state: opts.state.name().into(),
            scenario: opts.scenario.name().into(),
            prompt_variant: variant.name().into(),
            tests_present: opts.with_tests,
            key,
            outcome: AgentOutcome::SandboxError,
            exit_code: None,
            elapsed_ms: 0,
            started_at: dataset::rfc3339(now_secs()),
            sandboxed: self.runner.is_sandboxed(),
            patch_bytes: 0,
            binary_files: Vec::new(),
            trajectory_format: opts.spec.trajectory.name().into(),
            trajectory_steps: 0,
            detail: None,
            had: Vec::new(),
            environment_error: envs.as_ref().err().cloned(),
            attempt: self.attempt,
            keep_output: Some(opts.keep_output),
        };
        for p in [&inst_dir, &work, &snapshot, &private, &oracle_dir] {
            remove(p);
        }
        let envs = envs.unwrap_or_default();
        let patch = match self.execute(
            inst,
            &state,
            candidate.as_ref(),
            &prompt,
            &envs,
            &mut record,
        ) {
            Ok(patch) => patch,
            Err(why) => {
                record.outcome = AgentOutcome::SandboxError;
                record.detail = Some(why.to_string());
                String::new()
            }
        };
        for p in [&work, &snapshot, &private, &oracle_dir] {
            remove(p);
        }
        record.patch_bytes = patch.len();
        let _ = dataset::write_atomic(&inst_dir.join("model.patch"), patch.as_bytes());
        let json = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
        let _ = dataset::write_atomic(&result_path, json.as_bytes());
        (record, patch, false)
    }

    /// Prepare, run and collect one instance; `Err` is a sandbox error's reason.
    fn execute(
        &self,
        inst: &Instance,
        state: &Path,
        candidate: Option<&crate::source::Candidate>,
        prompt: &str,
        envs: &[crate::validate::stage::AgentEnv],
        record: &mut AgentRunRecord,
    ) -> Result<String, ExecuteError> {
        let opts = self.opts;
        let spec = &opts.spec;
        let id = &inst.instance_id;
        let InstancePaths {
            inst_dir,
            work,
            snapshot,
            private,
            oracle_dir,
            mcp_config,
        } = self.paths(id);
        let trajectory_file = private.join("trajectory.log");
        let io = |what, p: &Path, source| ExecuteError::Io {
            what,
            path: p.to_path_buf(),
            source,
        };
        for d in [&inst_dir, &private] {
            std::fs::create_dir_all(d).map_err(|e| io("cannot create", d, e))?;
        }
        let secrets = secrets(spec);
        let prompt_file = inst_dir.join("prompt.md");
        std::fs::write(&prompt_file, prompt).map_err(|e| io("cannot write", &prompt_file, e))?;
        let tools = self.materialize(inst, state, candidate, &work, &private)?;
        let tree =
            crate::git::snapshot_worktree(&snapshot, &work).map_err(ExecuteError::Snapshot)?;
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("hunkgen"));
        let mcp = serde_json::json!({"mcpServers": {"hunkgen": {
            "command": exe, "args": ["mcp", "--root", work]}}});
        std::fs::write(
            &mcp_config,
            serde_json::to_string_pretty(&mcp).unwrap_or_default(),
        )
        .map_err(|e| io("cannot write", &mcp_config, e))?;
        // The agent sees the system directories, its working copy and private directory,
        // and only these paths of the host: never the dataset (golden patches), other
        // runs, hunkgen's cache or the caller's home (ARCHITECTURE, security model).
        let mut readable = vec![inst_dir.clone()];
        let mut hidden = Vec::new();
        if let Some(t) = &tools {
            readable.extend(t.readable.iter().filter_map(|p| p.canonicalize().ok()));
            hidden.extend(t.hidden.iter().filter_map(|p| p.canonicalize().ok()));
        }
        if let Some(bin) = exe.parent() {
            readable.push(bin.to_path_buf());
        }
        readable.extend(
            std::iter::once(&spec.dir)
                .chain(&spec.readable)
                .filter_map(|p| p.canonicalize().ok()),
        );
        let golden = oracle_dir.join("golden.patch");
        if spec.oracle {
            std::fs::create_dir_all(&oracle_dir)
                .map_err(|e| io("cannot create", &oracle_dir, e))?;
            std::fs::write(&golden, &inst.patch).map_err(|e| io("cannot write", &golden, e))?;
            readable.push(oracle_dir.clone());
        }
        let mut vars = vec![
            ("workdir", sh_quote(&work.display().to_string())),
            ("prompt_file", sh_quote(&prompt_file.display().to_string())),
            ("instance_id", sh_quote(id)),
            (
                "trajectory_file",
                sh_quote(&trajectory_file.display().to_string()),
            ),
            ("mcp_config", sh_quote(&mcp_config.display().to_string())),
            ("agents_dir", sh_quote(&spec.dir.display().to_string())),
        ];
        if spec.oracle {
            vars.push(("golden_patch", sh_quote(&golden.display().to_string())));
        }
        for (name, (_, path)) in COMMANDS.iter().zip(d4j::Tools::commands(&private)) {
            let path = if tools.is_some() {
                path.display().to_string()
            } else {
                String::new()
            };
            vars.push((name, sh_quote(&path)));
        }
        let command = fill(&spec.command, &vars);
        let timeout = opts.timeout.or(spec.timeout).unwrap_or(DEFAULT_TIMEOUT);
        let stdout = inst_dir.join("stdout.log");
        let stderr = inst_dir.join("stderr.log");
        let mut run = RunSpec::new(Command::Shell(command), &work, &stdout)
            .with_timeout(Duration::from_secs(timeout), Duration::from_secs(5));
        run.stderr_path = Some(stderr.clone());
        run.network = spec.network;
        run.writable = vec![private.clone()];
        run.readable = readable;
        run.hidden = hidden;
        for (k, v) in &secrets {
            run.env.push((k.into(), v.into()));
        }
        run.env.push(("HUNKGEN_INSTANCE_ID".into(), id.into()));
        if let Some(k) = self.attempt {
            run.env
                .push(("HUNKGEN_ATTEMPT".into(), k.to_string().into()));
        }
        record.had = self.enter_best(&mut run, envs, tools.is_some());
        // git in a working copy without `.git` must not find a repository around it (the
        // dataset's own, or hunkgen's).
        if let Some(parent) = work.parent() {
            run.env
                .push(("GIT_CEILING_DIRECTORIES".into(), parent.as_os_str().into()));
        }
        let started = std::time::Instant::now();
        let outcome = self.runner.run(&run);
        record.elapsed_ms = started.elapsed().as_millis() as u64;
        redact_file(&stdout, &secrets);
        redact_file(&stderr, &secrets);
        let outcome = outcome?;
        record.exit_code = match outcome.exit {
            crate::validate::runner::ExitKind::Code(c) => Some(c),
            crate::validate::runner::ExitKind::Signal(_) => None,
        };
        self.trajectory(
            record,
            &stdout,
            &trajectory_file,
            &inst_dir,
            &work,
            &secrets,
        );
        let gone = std::fs::read_dir(&work)
            .map(|mut d| d.next().is_none())
            .unwrap_or(true);
        if gone {
            record.outcome = AgentOutcome::WorkdirDeleted;
            return Ok(String::new());
        }
        let diff =
            crate::git::diff_worktree(&snapshot, &work, &tree).map_err(ExecuteError::Diff)?;
        let mut patch = redact(&String::from_utf8_lossy(&diff.patch), &secrets);
        record.binary_files = diff.binary;
        let max = spec.max_diff_bytes.unwrap_or(DEFAULT_MAX_DIFF);
        record.outcome = if outcome.timed_out {
            AgentOutcome::Timeout
        } else if patch.len() > max {
            record.detail = Some(format!(
                "the diff has {} bytes, over the limit of {max}; dropped",
                patch.len()
            ));
            patch.clear();
            AgentOutcome::DiffTooLarge
        } else if !record.binary_files.is_empty() {
            AgentOutcome::BinaryDiff
        } else if !outcome.exit.success() {
            AgentOutcome::NonzeroExit
        } else {
            AgentOutcome::Completed
        };
        Ok(patch)
    }

    /// What a run has besides its working copy, set up on `run`: in Best, the state's
    /// history and the environments validation built (each venv's `bin` first on `PATH`
    /// with `VIRTUAL_ENV`, the class path as `CLASSPATH`, all readable in the sandbox) or
    /// Defects4J's tools; in Worst, nothing but Defects4J's tools, the agent study's
    /// build and test loop. Returns the manifest's `had` list.
    fn enter_best(
        &self,
        run: &mut RunSpec,
        envs: &[crate::validate::stage::AgentEnv],
        d4j_tools: bool,
    ) -> Vec<String> {
        let mut had = Vec::new();
        if self.opts.scenario == Scenario::Best {
            had.push("history".to_string());
        }
        if d4j_tools {
            had.push("defects4j compile and test commands".into());
        }
        let mut bins = Vec::new();
        for e in envs {
            run.readable.extend(e.env.binds());
            let at = if e.workdir.is_empty() {
                String::new()
            } else {
                format!(" (runs in {})", e.workdir)
            };
            if let Some(py) = e.env.python() {
                let venv = e.env.dir.join("venv");
                // A clean path: what `sys.prefix` says inside the venv.
                let venv = venv.canonicalize().unwrap_or(venv);
                bins.push(venv.join("bin"));
                run.env.push(("VIRTUAL_ENV".into(), venv.clone().into()));
                had.push(format!(
                    "suite {}: python venv {}{at}",
                    e.suite,
                    py.display()
                ));
            }
            let cp = e.env.class_path();
            if !cp.is_empty() {
                run.env.push((
                    "CLASSPATH".into(),
                    std::env::join_paths(&cp).unwrap_or_default(),
                ));
                had.push(format!(
                    "suite {}: CLASSPATH of {} jar(s){at}",
                    e.suite,
                    cp.len()
                ));
            }
            if e.env.python().is_none() && cp.is_empty() {
                had.push(format!("suite {}: its commands{at}", e.suite));
            }
            run.env
                .push(("HUNKGEN_ENV_DIR".into(), e.env.dir.clone().into_os_string()));
        }
        if !bins.is_empty() {
            if let Some(p) = std::env::var_os("PATH") {
                bins.extend(std::env::split_paths(&p));
            }
            run.env.push((
                "PATH".into(),
                std::env::join_paths(bins).unwrap_or_default(),
            ));
        }
        had
    }

    /// A finished run's `trajectory.jsonl` rewritten from its kept raw log under this
    /// run's `--keep-output` (the agent is not run again); whether it was.
    fn renormalize(&self, record: &mut AgentRunRecord, inst_dir: &Path, work: &Path) -> bool {
        if record.trajectory_format == "raw" {
            return false;
        }
        let source = match self.opts.spec.trajectory_source() {
            TrajectorySource::Stdout => inst_dir.join("stdout.log"),
            TrajectorySource::File => inst_dir.join("trajectory.raw"),
        };
        // Kept redacted, as it was written.
        let Ok(raw) = std::fs::read(&source) else {
            return false;
        };
        let Ok(steps) = trajectory::normalize(
            self.opts.spec.trajectory,
            &String::from_utf8_lossy(&raw),
            &work.display().to_string(),
            self.opts.keep_output,
        ) else {
            return false;
        };
        if dataset::write_atomic(&inst_dir.join("trajectory.jsonl"), &dataset::jsonl(&steps))
            .is_err()
        {
            return false;
        }
        record.trajectory_steps = steps.len();
        record.keep_output = Some(self.opts.keep_output);
        true
    }

    /// Keep the raw trajectory log and write the normalized one when it can be read.
    fn trajectory(
        &self,
        record: &mut AgentRunRecord,
        stdout: &Path,
        file: &Path,
        inst_dir: &Path,
        work: &Path,
        secrets: &[(String, String)],
    ) {
        let spec = &self.opts.spec;
        let source = match spec.trajectory_source() {
            TrajectorySource::Stdout => stdout,
            TrajectorySource::File => file,
        };
        let raw = std::fs::read(source)
            .map(|b| redact(&String::from_utf8_lossy(&b), secrets))
            .unwrap_or_default();
        if spec.trajectory_source() == TrajectorySource::File && source.is_file() {
            let _ = dataset::write_atomic(&inst_dir.join("trajectory.raw"), raw.as_bytes());
        }
        match trajectory::normalize(
            spec.trajectory,
            &raw,
            &work.display().to_string(),
            self.opts.keep_output,
        ) {
            Ok(steps) => {
                record.trajectory_steps = steps.len();
                let _ = dataset::write_atomic(
                    &inst_dir.join("trajectory.jsonl"),
                    &dataset::jsonl(&steps),
                );
            }
            Err(why) => {
                record.trajectory_format = "raw".into();
                if spec.trajectory != agents::TrajectoryFormat::Raw {
                    record.detail = Some(format!(
                        "trajectory not {}: {why}; raw log kept",
                        spec.trajectory.name()
                    ));
                }
            }
        }
    }
}
