// Package consumers holds the integration test of credential consumers on a
// real node: pods that load the delivered clouds.yaml once at start and
// authenticate to Keystone in a loop (authloop), rolled by the hub through
// many rotations (docs/reference/consumers.md, "What the pod test shows").
package consumers
