//! What a Maven tree declares, read offline from a git revision's poms: the reactor, its
//! modules' source and test roots, the Java level, the enforcer's range, the wrapper and
//! the build files. `init` reads it to write a `maven: auto` suite; the `maven: auto`
//! environment kind (`validate/env/maven/`) reads it per instance, as `python: auto`
//! reads the Python metadata this module's sibling finds.

pub mod declare;
mod pom;

pub use declare::{
    declare, declared_at, declared_for, project_dir, JavaLevel, MavenDeclared, MavenModule,
};
