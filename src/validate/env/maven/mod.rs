//! `env: maven: auto`: a Maven project's test environment inferred
//! from each instance's base commit, the way `python: auto` infers a Python one.
//!
//! The kind runs in four phases, so the network is touched once per distinct build and
//! never while tests run:
//!
//! 1. **Declare** ([`crate::init::maven`], offline, shared with `hunkgen init`): read from the git revision what the tree says
//!    about its build: the reactor and its modules, each module's source and test
//!    roots, the Java level it compiles at, the enforcer's Java range, the wrapper's
//!    Maven version, and the build files (every pom and `.mvn/`) whose content keys
//!    the resolved dependencies.
//! 2. **JDK** ([`jdks`], offline): pick, among the JDKs installed here (never
//!    downloaded, never faked), one whose javac still takes that level, inside the
//!    enforcer's range, released by the commit's date when one is; a pre-Java-6 level
//!    no JDK takes is lifted to 6 on a JDK of 11 or older. Every JDK found is offered
//!    to the build through a `toolchains.xml`.
//! 3. **Resolve** ([`mod@kind`], with network, once per key): one real test run at the
//!    base tree fills a local repository shared by every commit with the same key.
//! 4. **Run** ([`mod@kind`], offline): `mvn -o` against that repository with the
//!    chosen JDK, the surefire reports copied where the suite reads them.
//!
//! Phases 1 and 2 are pure functions of the tree's text and the JDKs found, tested
//! without Maven or the network.

pub mod abstracts;
mod compile;
pub mod dist;
pub mod jdks;
pub mod kind;
mod learned;
pub mod pool;
pub mod repair;
mod resolve;
pub mod surefire;

pub use crate::init::maven::{
    declare, declared_at, declared_for, JavaLevel, MavenDeclared, MavenModule,
};
pub use jdks::{
    accepts, choose, discover, discover_in, satisfies_range, toolchains_xml, Jdk, JdkChoice, NoJdk,
};
pub use kind::MavenAutoSpec;
