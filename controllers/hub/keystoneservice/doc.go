// Package keystoneservice is the hub's KeystoneService reconciler. It
// implements both blocks of docs/reference/keystoneservice.md ("Collision and
// adoption", "Conditions", "Projected child names", "Deletion Semantics");
// for the catalog block:
//
//   - gates: ControlPlaneNotFound, NamespaceNotAllowed,
//     WaitingForAdminCredential;
//   - the collision probe (an unmanaged K-ORC Service import) before the
//     managed Service is created; a match without catalog.adopt parks the
//     block on ServiceCollision having changed nothing;
//   - the managed K-ORC Service and one managed Endpoint per declared
//     interface, named <name>-<8hex>-registration-<discriminator> in the
//     ControlPlane's namespace, labelled with the parent and mapped back to
//     it by those labels;
//   - status.catalog and the CatalogReady / AccountReady / Ready conditions;
//   - the c5c3.io/keystoneservice-teardown finalizer: patient while the
//     ControlPlane exists, fail-open once it is gone.
//
// The account block (account.go, account_status.go, delivery.go) projects
// the service user, its project and Role imports, grants the roles through
// controllers/hub/grants, and delivers generation-scoped passwords through
// OpenBao (PushSecret, then ExternalSecret) once Keystone accepts them
// (docs/hub.md, "Account block").
//
// Decisions are pure functions in decide.go; reconciler.go does the I/O.
package keystoneservice
