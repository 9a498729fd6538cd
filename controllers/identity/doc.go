// Package identity is the identity controller (`orderhub identity`): it
// reconciles the keystone.osh.openstack.org/v1alpha1 kinds against one
// Keystone with gophercloud v2.
//
// One shared loop (Reconciler) handles ownership (keystoneRef), the finalizer
// (deletionPolicy), the desired-state hash that skips no-op requests, the
// forced resync and the Ready condition; one actuator per kind holds the
// Keystone calls. Dependencies between kinds (a Project needs its Domain, an
// Endpoint its Service) are never read from other resources' status: a
// missing dependency is a ReconcileError that names it, retried until it
// exists in Keystone (docs/identity.md, "Ordering").
package identity

// RBAC of the identity controller: the kinds (no create, no delete: it
// only acts on resources something else created), their status, the password
// Secrets it reads, and events (docs/identity.md, "Running it": who may create
// a RoleAssignment).
//
// +kubebuilder:rbac:groups=keystone.osh.openstack.org,resources=domains;projects;roles;groups;users;roleassignments;services;endpoints;identityproviders;mappings;protocols;serviceproviders,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=keystone.osh.openstack.org,resources=domains/status;projects/status;roles/status;groups/status;users/status;roleassignments/status;services/status;endpoints/status;identityproviders/status;mappings/status;protocols/status;serviceproviders/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=keystone.osh.openstack.org,resources=domains/finalizers;projects/finalizers;roles/finalizers;groups/finalizers;users/finalizers;roleassignments/finalizers;services/finalizers;endpoints/finalizers;identityproviders/finalizers;mappings/finalizers;protocols/finalizers;serviceproviders/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch
