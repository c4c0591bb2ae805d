//! The settings every plain blocking HTTPS client of hunkgen shares (JIRA's REST API,
//! Maven distributions from Maven Central), so each trusts the same certificates and
//! names itself the same way.

use std::time::Duration;

/// An agent's configuration, to finish with the caller's own settings: a 30 s connect
/// timeout, `timeout` for a whole request, hunkgen's user agent, and the machine's CA
/// store (as Maven and curl use it: a proxy that re-signs TLS is trusted there, not in
/// Mozilla's list).
pub fn config(timeout: Duration) -> ureq::config::ConfigBuilder<ureq::typestate::AgentScope> {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_global(Some(timeout))
        .user_agent(concat!("hunkgen/", env!("CARGO_PKG_VERSION")))
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                .build(),
        )
}
