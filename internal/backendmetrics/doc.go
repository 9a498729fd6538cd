// Package backendmetrics counts the requests orderhub hub itself sends to
// its backends (orderhub_backend_requests_total{backend,outcome},
// docs/reference/metrics.md): a RoundTripper wrapped around the HTTP
// transport of each Keystone client the hub builds.
package backendmetrics
