// Package keystoneproject reconciles KeystoneProject orders
// (docs/reference/keystoneproject.md): one Keystone project per order,
// created and owned through a managed K-ORC Project in the ControlPlane's
// namespace after a collision probe, never adopted, deleted with the order.
//
// The order may live on the management cluster or on a registered target
// cluster (multicluster-runtime); its children always live on the management
// cluster, named korc.OrderChildName(korc.InfixProject, cluster, namespace,
// name, discriminator) and labelled orders.ChildLabels.
//
// Layout: decide.go holds the pure decisions (effective names, the admin
// project refusal, ProjectReady, the teardown verdict), project.go the
// projection pass, hold.go the deletion hold,
// reconciler.go the pass, its status write and the declared teardown,
// setup.go the children and watches.
package keystoneproject
