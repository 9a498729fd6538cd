// Package keystoneroleassignment reconciles KeystoneRoleAssignment orders
// (docs/reference/keystoneroleassignment.md): one Keystone role for an
// ordered KeystoneUser on an ordered KeystoneProject of the same namespace,
// admitted by the namespace's allowedRoles, assigned through
// controllers/hub/grants (K-ORC v2.6.0 has no RoleAssignment kind) with the
// role resolved by an unmanaged K-ORC Role import, and revoked with the
// order.
//
// The order may live on the management cluster or on a registered target
// cluster; its one child, the Role import, lives in the ControlPlane's
// namespace on the management cluster, named
// korc.OrderChildName(korc.InfixRoleAssignment, cluster, namespace, name,
// korc.RoleDiscriminator(role)) and labelled orders.ChildLabels.
//
// Layout: decide.go holds the pure decisions, assign.go the projection
// pass (the grants authenticate with grants.AdminCredentials), revoke.go
// the deletion hold and revoke, reconciler.go the pass, its status write and
// the declared teardown, setup.go the children and watches.
package keystoneroleassignment
