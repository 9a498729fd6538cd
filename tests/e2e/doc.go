// Package e2e runs the live chainsaw suites (tests/e2e/keystone-service and
// tests/e2e/keystone-service-foreign-namespace) against the real local stack
// with the hub reconcilers in-process; see live_integration_test.go (build
// tag integration).
package e2e
