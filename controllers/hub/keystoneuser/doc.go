// Package keystoneuser reconciles KeystoneUser orders
// (docs/reference/keystoneuser.md): one Keystone user per order, created
// through a managed K-ORC User in the ControlPlane's namespace after a
// collision probe, with an operator-generated, generation-scoped password
// that is backed up to OpenBao (ESO PushSecret) before it is delivered as the
// Secret <metadata.name>-credentials beside the order, on the order's own
// cluster (the management cluster or a registered target cluster).
//
// Files: decide.go and conditions.go hold the pure decisions (unit-tested);
// reconciler.go runs a pass, provision.go projects the Keystone side,
// delivery.go the backup and the delivered Secret, hold.go the
// deletion hold and forget, setup.go the children and watches.
package keystoneuser
