//! The nine repository context tools (after MAPLE): find classes, methods and code in
//! one file or anywhere, a class skeleton, and the repository structure — each answer
//! with files and line ranges, read from the syntax layer's outlines.

use crate::syntax::outline::{outline, Item, Outline};
use crate::syntax::Lang;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// At most this many matches per answer (the rest are counted, not shown).
pub const MAX_MATCHES: usize = 50;
/// At most this many entries in a structure listing.
const MAX_ENTRIES: usize = 2000;
/// Directories never listed or searched: VCS data, build output, environments.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    "venv",
    "site-packages",
];

/// Why a tool call failed: bad arguments are the client's protocol error; anything
/// else is a tool result with `isError`, which the agent can read and recover from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// Unknown tool, a missing or mistyped argument (JSON-RPC -32602).
    InvalidParams(String),
    /// The call was well-formed but cannot be answered (no such file, outside the root).
    Failed(String),
}

/// One place an answer points to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    /// Repository-relative path.
    pub file: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line, inclusive.
    pub end_line: u32,
    /// `class`, `method`, `function`, … or `code` for a text match.
    pub kind: String,
    /// Qualified name of the declaration (for `code`: the innermost enclosing one).
    pub name: String,
    /// Declaration up to its body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The source lines `start_line..=end_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// A tool's answer: structured content plus the same as text for clients that only
/// read text.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The JSON object returned as `structuredContent`.
    pub structured: Value,
    /// Human-readable rendering returned as text content.
    pub text: String,
}

/// A parsed source file, kept while its size and modification time are unchanged.
struct Entry {
    stamp: (SystemTime, u64),
    text: String,
    outline: Outline,
}

/// A repository root and the outlines read from it so far.
pub struct Repo {
    root: PathBuf,
    files: HashMap<String, Entry>,
}

/// The tool list for `tools/list`: name, description and JSON Schema of the arguments.
pub fn definitions() -> Vec<Value> {
    let s = |d: &str| json!({"type": "string", "description": d});
    let class =
        s("class name: simple (`Money`) or qualified with enclosing classes (`Outer.Inner`)");
    let method = s("method or function name: simple (`parse`) or qualified (`Money.parse`)");
    let file = s("repository-relative path of a Java or Python file");
    let code = s("text to find, matched exactly (may span lines)");
    let tool = |name: &str, desc: &str, props: Value, required: &[&str]| {
        json!({
            "name": name,
            "description": desc,
            "inputSchema": {"type": "object", "properties": props, "required": required,
                             "additionalProperties": false},
        })
    };
    vec![
        tool(
            "find_method_in_class",
            "Find a method of a class: file, line range, signature and code.",
            json!({"class_name": class, "method_name": method, "file_path": s("optional: only this file")}),
            &["class_name", "method_name"],
        ),
        tool(
            "find_class_in_file",
            "Find a class declared in a file: line range, signature and member signatures.",
            json!({"file_path": file, "class_name": class}),
            &["file_path", "class_name"],
        ),
        tool(
            "find_method_in_file",
            "Find a method or function declared in a file: line range, signature and code.",
            json!({"file_path": file, "method_name": method}),
            &["file_path", "method_name"],
        ),
        tool(
            "find_code_in_file",
            "Find exact text in a file: each occurrence's lines and the declaration around it.",
            json!({"file_path": file, "code": code}),
            &["file_path", "code"],
        ),
        tool(
            "get_class_skeleton",
            "A file's package, imports, and class and method signatures with line ranges (one class with class_name).",
            json!({"file_path": file, "class_name": s("optional: only this class and its members")}),
            &["file_path"],
        ),
        tool(
            "find_class",
            "Find a class anywhere in the repository: files, line ranges and signatures.",
            json!({"class_name": class}),
            &["class_name"],
        ),
        tool(
            "find_method",
            "Find a method or function anywhere in the repository: files, line ranges, signatures and code.",
            json!({"method_name": method}),
            &["method_name"],
        ),
        tool(
            "find_code",
            "Find exact text anywhere in the Java and Python files of the repository.",
            json!({"code": code}),
            &["code"],
        ),
        tool(
            "get_repository_structure",
            "The directory tree with the classes of each source file (build output and hidden directories left out).",
            json!({"path": s("optional: a subdirectory"),
                   "max_depth": {"type": "integer", "minimum": 1, "description": "directory levels to show (default 4)"}}),
            &[],
        ),
    ]
}

impl Repo {
    /// A repository rooted at `root` (must be a directory).
    pub fn open(root: &Path) -> std::io::Result<Repo> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a directory",
                root.display()
            )));
        }
        Ok(Repo {
            root,
            files: HashMap::new(),
        })
    }

    /// Run one tool with its arguments.
    pub fn call(&mut self, name: &str, args: &Map<String, Value>) -> Result<Answer, ToolError> {
        let allowed: &[&str] = match name {
            "find_method_in_class" => &["class_name", "method_name", "file_path"],
            "find_class_in_file" => &["file_path", "class_name"],
            "find_method_in_file" => &["file_path", "method_name"],
            "find_code_in_file" => &["file_path", "code"],
            "get_class_skeleton" => &["file_path", "class_name"],
            "find_class" => &["class_name"],
            "find_method" => &["method_name"],
            "find_code" => &["code"],
            "get_repository_structure" => &["path", "max_depth"],
            _ => return Err(ToolError::InvalidParams(format!("unknown tool `{name}`"))),
        };
        if let Some(k) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ToolError::InvalidParams(format!(
                "{name}: unknown argument `{k}` (expected {})",
                allowed.join(", ")
            )));
        }
        match name {
            "find_method_in_class" => {
                let class = req(args, "class_name")?;
                let method = req(args, "method_name")?;
                let files = match opt(args, "file_path")? {
                    Some(f) => vec![self.resolve(f)?],
                    None => self.source_files(&self.root.clone()),
                };
                self.search(files, |f, e, found| {
                    for m in &e.outline.methods {
                        let owner = m.owner.as_deref().unwrap_or("");
                        if names_match(owner, class) && names_match(&m.name, last(method)) {
                            found.push(item_match(f, m, "method", Some(&e.text)));
                        }
                    }
                })
            }
            "find_class_in_file" | "find_class" => {
                let class = req(args, "class_name")?;
                let files = self.scope(args, name == "find_class")?;
                self.search(files, |f, e, found| {
                    for c in e
                        .outline
                        .classes
                        .iter()
                        .filter(|c| names_match(&c.qualified, class))
                    {
                        let mut m = item_match(f, c, kind_name(c), None);
                        m.code = Some(members_text(&e.outline, c));
                        found.push(m);
                    }
                })
            }
            "find_method_in_file" | "find_method" => {
                let method = req(args, "method_name")?;
                let files = self.scope(args, name == "find_method")?;
                self.search(files, |f, e, found| {
                    for m in e
                        .outline
                        .methods
                        .iter()
                        .filter(|m| names_match(&m.qualified, method))
                    {
                        found.push(item_match(f, m, kind_name(m), Some(&e.text)));
                    }
                })
            }
            "find_code_in_file" | "find_code" => {
                let code = req(args, "code")?;
                if code.is_empty() {
                    return Err(ToolError::InvalidParams(format!(
                        "{name}: `code` must not be empty"
                    )));
                }
                let files = self.scope(args, name == "find_code")?;
                self.search(files, |f, e, found| {
                    found.extend(code_matches(f, e, code));
                })
            }
            "get_class_skeleton" => {
                let f = self.resolve(req(args, "file_path")?)?;
                let class = opt(args, "class_name")?;
                let mut warnings = Vec::new();
                let root = self.root.clone();
                let e = self.entry(&f, &mut warnings)?;
                let package = match Lang::from_path(&f) {
                    Some(Lang::Python) => Some(
                        crate::annotate::proximity::python_package(&f, |d| {
                            root.join(d).join("__init__.py").is_file()
                        })
                        .join("."),
                    ),
                    _ => e.outline.package.clone(),
                };
                skeleton(&f, &e.outline, package, class, warnings)
            }
            "get_repository_structure" => {
                let dir = match opt(args, "path")? {
                    Some(p) => self.resolve_dir(p)?,
                    None => self.root.clone(),
                };
                let depth = match args.get("max_depth") {
                    None | Some(Value::Null) => 4,
                    Some(v) => v.as_u64().filter(|d| *d >= 1).ok_or_else(|| {
                        ToolError::InvalidParams(format!(
                            "{name}: `max_depth` must be a positive integer, got {v}"
                        ))
                    })? as usize,
                };
                Ok(self.structure(&dir, depth))
            }
            _ => Err(ToolError::InvalidParams(format!("unknown tool `{name}`"))),
        }
    }

    /// The files a search covers: every source file (`anywhere`), or `file_path`.
    fn scope(&self, args: &Map<String, Value>, anywhere: bool) -> Result<Vec<String>, ToolError> {
        if anywhere {
            Ok(self.source_files(&self.root.clone()))
        } else {
            Ok(vec![self.resolve(req(args, "file_path")?)?])
        }
    }

    /// Run `per_file` on each file's entry, gathering its matches and the warnings.
    fn search(
        &mut self,
        files: Vec<String>,
        mut per_file: impl FnMut(&str, &Entry, &mut Vec<Match>),
    ) -> Result<Answer, ToolError> {
        let mut warnings = Vec::new();
        let mut found = Vec::new();
        for f in files {
            let e = self.entry(&f, &mut warnings)?;
            per_file(&f, e, &mut found);
        }
        Ok(matches_answer(found, warnings))
    }

    /// A repository-relative file path, checked to stay inside the root.
    fn resolve(&self, rel: &str) -> Result<String, ToolError> {
        let abs = self.inside(rel)?;
        if !abs.is_file() {
            return Err(ToolError::Failed(format!(
                "{rel}: no such file in the repository"
            )));
        }
        if Lang::from_path(rel).is_none() {
            return Err(ToolError::Failed(format!(
                "{rel}: not a Java or Python file (.java, .py, .pyi)"
            )));
        }
        Ok(self.relative(&abs))
    }

    fn resolve_dir(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let abs = self.inside(rel)?;
        if !abs.is_dir() {
            return Err(ToolError::Failed(format!(
                "{rel}: no such directory in the repository"
            )));
        }
        Ok(abs)
    }

    /// `rel` joined to the root; absolute paths, `..` and symlinks leading out refused.
    fn inside(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let p = Path::new(rel);
        if p.is_absolute()
            || p.components()
                .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
        {
            return Err(ToolError::Failed(format!(
                "{rel}: paths are relative to the repository root and may not leave it"
            )));
        }
        let abs = self.root.join(p);
        match abs.canonicalize() {
            Ok(c) if c.starts_with(&self.root) => Ok(c),
            Ok(_) => Err(ToolError::Failed(format!(
                "{rel}: leads outside the repository"
            ))),
            Err(_) => Err(ToolError::Failed(format!(
                "{rel}: no such file in the repository"
            ))),
        }
    }

    fn relative(&self, abs: &Path) -> String {
        abs.strip_prefix(&self.root)
            .unwrap_or(abs)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// The parsed file, re-read when it changed on disk.
    fn entry(&mut self, rel: &str, warnings: &mut Vec<String>) -> Result<&Entry, ToolError> {
        let abs = self.root.join(rel);
        let meta = std::fs::metadata(&abs)
            .map_err(|e| ToolError::Failed(format!("{rel}: cannot read: {e}")))?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        let fresh = self.files.get(rel).is_some_and(|e| e.stamp == stamp);
        if !fresh {
            let bytes = std::fs::read(&abs)
                .map_err(|e| ToolError::Failed(format!("{rel}: cannot read: {e}")))?;
            let lang = Lang::from_path(rel)
                .ok_or_else(|| ToolError::Failed(format!("{rel}: not a Java or Python file")))?;
            let outline = outline(lang, &bytes);
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(format!("{rel}: not UTF-8, decoded lossily"));
                    String::from_utf8_lossy(e.as_bytes()).into_owned()
                }
            };
            self.files.insert(
                rel.to_string(),
                Entry {
                    stamp,
                    text,
                    outline,
                },
            );
        }
        let e = self
            .files
            .get(rel)
            .ok_or_else(|| ToolError::Failed(format!("{rel}: cannot read")))?;
        if e.outline.error_count > 0 {
            warnings.push(format!(
                "{rel}: {} syntax error(s); declarations near them may be missing",
                e.outline.error_count
            ));
        }
        Ok(e)
    }

    /// Every Java/Python file under `dir`, sorted, repository-relative.
    fn source_files(&self, dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for ent in rd.flatten() {
                let name = ent.file_name().to_string_lossy().into_owned();
                let Ok(ft) = ent.file_type() else { continue };
                if ft.is_dir() {
                    if !skipped_dir(&name) {
                        stack.push(ent.path());
                    }
                } else if ft.is_file() && Lang::from_path(&name).is_some() {
                    out.push(self.relative(&ent.path()));
                }
            }
        }
        out.sort();
        out
    }

    fn structure(&mut self, dir: &Path, depth: usize) -> Answer {
        let shown = self.relative(dir);
        let mut walk = Walk {
            entries: Vec::new(),
            text: format!("{}/\n", if shown.is_empty() { "." } else { &shown }),
            truncated: false,
            warnings: Vec::new(),
        };
        self.list_dir(dir, 0, depth, &mut walk);
        Answer {
            structured: json!({"entries": walk.entries, "truncated": walk.truncated,
                               "warnings": walk.warnings}),
            text: walk.text,
        }
    }

    /// One directory of [`Self::structure`], depth-first in name order.
    fn list_dir(&mut self, dir: &Path, level: usize, depth: usize, walk: &mut Walk) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut kids: Vec<(String, bool, PathBuf)> = rd
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let is_dir = e.file_type().ok()?.is_dir();
                let hidden = name.starts_with('.') || (is_dir && skipped_dir(&name));
                (!hidden).then(|| (name, is_dir, e.path()))
            })
            .collect();
        kids.sort();
        let pad = "  ".repeat(level + 1);
        for (name, is_dir, path) in kids {
            if walk.entries.len() >= MAX_ENTRIES {
                walk.truncated = true;
                return;
            }
            let rel = self.relative(&path);
            if is_dir {
                walk.entries.push(json!({"path": rel, "kind": "directory"}));
                walk.text.push_str(&format!("{pad}{name}/\n"));
                if level + 1 < depth {
                    self.list_dir(&path, level + 1, depth, walk);
                }
                continue;
            }
            let classes: Vec<String> = if Lang::from_path(&name).is_some() {
                match self.entry(&rel, &mut walk.warnings) {
                    Ok(e) => e
                        .outline
                        .classes
                        .iter()
                        .filter(|c| c.owner.is_none())
                        .map(|c| c.name.clone())
                        .collect(),
                    Err(_) => Vec::new(),
                }
            } else {
                Vec::new()
            };
            if classes.is_empty() {
                walk.text.push_str(&format!("{pad}{name}\n"));
            } else {
                walk.text
                    .push_str(&format!("{pad}{name}  [{}]\n", classes.join(", ")));
            }
            walk.entries
                .push(json!({"path": rel, "kind": "file", "classes": classes}));
        }
    }
}

/// What a structure listing has gathered so far.
struct Walk {
    entries: Vec<Value>,
    text: String,
    truncated: bool,
    warnings: Vec<String>,
}

fn skipped_dir(name: &str) -> bool {
    name.starts_with('.') || SKIPPED_DIRS.contains(&name)
}

fn req<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, ToolError> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(v) => Err(ToolError::InvalidParams(format!(
            "`{key}` must be a string, got {v}"
        ))),
        None => Err(ToolError::InvalidParams(format!(
            "missing required argument `{key}`"
        ))),
    }
}

fn opt<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => req(args, key).map(Some),
    }
}

/// `query` names `qualified` when equal or a dotted suffix of it (`Inner` and
/// `Outer.Inner` both name `Outer.Inner`).
fn names_match(qualified: &str, query: &str) -> bool {
    !query.is_empty()
        && (qualified == query
            || qualified
                .strip_suffix(query)
                .is_some_and(|rest| rest.ends_with('.')))
}

fn last(q: &str) -> &str {
    q.rsplit('.').next().unwrap_or(q)
}

fn kind_name(i: &Item) -> &'static str {
    use crate::syntax::outline::ItemKind::*;
    match i.kind {
        Class => "class",
        Interface => "interface",
        Enum => "enum",
        Record => "record",
        Annotation => "annotation",
        Method => "method",
        Constructor => "constructor",
        Function => "function",
    }
}

fn lines_of(text: &str, start: u32, end: u32) -> String {
    text.lines()
        .enumerate()
        .skip(start.saturating_sub(1) as usize)
        .take((end + 1).saturating_sub(start) as usize)
        .map(|(i, l)| format!("{:>5} | {l}\n", i + 1))
        .collect()
}

fn item_match(file: &str, i: &Item, kind: &str, text: Option<&str>) -> Match {
    Match {
        file: file.to_string(),
        start_line: i.start_line,
        end_line: i.end_line,
        kind: kind.to_string(),
        name: i.qualified.clone(),
        signature: Some(i.signature.clone()),
        code: text.map(|t| lines_of(t, i.start_line, i.end_line)),
    }
}

/// A class's member signatures, one per line with its range.
fn members_text(o: &Outline, c: &Item) -> String {
    o.methods
        .iter()
        .filter(|m| m.owner.as_deref() == Some(c.qualified.as_str()))
        .map(|m| format!("{}-{}: {}\n", m.start_line, m.end_line, m.signature))
        .collect()
}

/// Each exact occurrence of `code` with its line range and enclosing declaration.
fn code_matches(file: &str, e: &Entry, code: &str) -> Vec<Match> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(e.text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |byte: usize| starts.partition_point(|s| *s <= byte) as u32;
    let mut out: Vec<Match> = Vec::new();
    for (at, _) in e.text.match_indices(code) {
        let start = line_of(at);
        let end = line_of(at + code.len().saturating_sub(1));
        if out.last().is_some_and(|m| m.start_line == start) {
            continue; // one match per line
        }
        let around = e
            .outline
            .methods
            .iter()
            .chain(&e.outline.classes)
            .filter(|i| i.start_line <= start && i.end_line >= end)
            .min_by_key(|i| i.end_line - i.start_line)
            .map(|i| i.qualified.clone())
            .unwrap_or_default();
        out.push(Match {
            file: file.to_string(),
            start_line: start,
            end_line: end,
            kind: "code".into(),
            name: around,
            signature: None,
            code: Some(lines_of(&e.text, start, end)),
        });
    }
    out
}

fn matches_answer(mut found: Vec<Match>, warnings: Vec<String>) -> Answer {
    let total = found.len();
    let truncated = total > MAX_MATCHES;
    found.truncate(MAX_MATCHES);
    let mut text = String::new();
    if found.is_empty() {
        text.push_str("no match\n");
    }
    for m in &found {
        text.push_str(&format!(
            "{}:{}-{} {} {}\n",
            m.file, m.start_line, m.end_line, m.kind, m.name
        ));
        if let Some(s) = &m.signature {
            text.push_str(&format!("  {s}\n"));
        }
        if let Some(c) = &m.code {
            text.push_str(c);
        }
    }
    if truncated {
        text.push_str(&format!(
            "… {} more matches not shown\n",
            total - MAX_MATCHES
        ));
    }
    for w in &warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    Answer {
        structured: json!({"matches": found, "total": total, "truncated": truncated,
                           "warnings": warnings}),
        text,
    }
}

fn skeleton(
    file: &str,
    o: &Outline,
    package: Option<String>,
    class: Option<&str>,
    warnings: Vec<String>,
) -> Result<Answer, ToolError> {
    let classes: Vec<&Item> = match class {
        Some(c) => o
            .classes
            .iter()
            .filter(|i| names_match(&i.qualified, c))
            .collect(),
        None => o.classes.iter().collect(),
    };
    if let (Some(c), true) = (class, classes.is_empty()) {
        return Err(ToolError::Failed(format!("{file}: no class `{c}`")));
    }
    let mut text = format!("{file}\n");
    if let Some(p) = package.as_deref().filter(|p| !p.is_empty()) {
        text.push_str(&format!("package {p}\n"));
    }
    for (line, imp) in &o.imports {
        text.push_str(&format!("{line}: {imp}\n"));
    }
    let mut out_classes = Vec::new();
    for c in &classes {
        text.push_str(&format!(
            "{}-{}: {}\n",
            c.start_line, c.end_line, c.signature
        ));
        let members: Vec<&Item> = o
            .methods
            .iter()
            .filter(|m| m.owner.as_deref() == Some(c.qualified.as_str()))
            .collect();
        for m in &members {
            text.push_str(&format!(
                "  {}-{}: {}\n",
                m.start_line, m.end_line, m.signature
            ));
        }
        out_classes.push(json!({"class": c, "members": members}));
    }
    let functions: Vec<&Item> = if class.is_none() {
        o.methods.iter().filter(|m| m.owner.is_none()).collect()
    } else {
        Vec::new()
    };
    for f in &functions {
        text.push_str(&format!(
            "{}-{}: {}\n",
            f.start_line, f.end_line, f.signature
        ));
    }
    for w in &warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    let imports: Vec<Value> = o
        .imports
        .iter()
        .map(|(l, t)| json!({"line": l, "text": t}))
        .collect();
    Ok(Answer {
        structured: json!({"file": file, "package": package, "imports": imports,
                           "classes": out_classes, "functions": functions,
                           "warnings": warnings}),
        text,
    })
}
