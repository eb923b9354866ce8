//! Bundles: generating, loading and checking mTLS certificate bundles, and the rustls configurations built from them (plan.md, Bundles). Under construction (issue 5).
