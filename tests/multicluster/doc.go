// Package multicluster holds the integration test that proves the hub
// serves orders placed on a registered target cluster: two real
// kube-apiservers, the hub's reconcilers on the management one, and the
// delivered Secrets on the target (issue 5,
// docs/reference/keystoneapplicationcredential.md, "Delivered Secret contract":
// "Cluster: the order's own").
package multicluster
