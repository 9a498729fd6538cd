// Package keystoneservice is the hub's KeystoneService reconciler: the
// catalog and account blocks of docs/reference/keystoneservice.md and the
// c5c3.io/keystoneservice-teardown finalizer. Decisions are pure functions in
// decide.go; reconciler.go does the I/O.
package keystoneservice
