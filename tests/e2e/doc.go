// Package e2e runs the live chainsaw suites (tests/e2e/c5c3/keystone-service,
// tests/e2e/c5c3/keystone-service-foreign-namespace and
// tests/e2e/c5c3/keystone-user) against the real local stack
// with the hub reconcilers in-process; see live_integration_test.go (build
// tag integration).
package e2e
