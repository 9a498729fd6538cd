// Package clusters is the hub's view of target clusters: the multicluster
// manager (sigs.k8s.io/multicluster-runtime) with its kubeconfig provider
// (sigs.k8s.io/multicluster-runtime/providers/kubeconfig), a client per
// cluster name, and the cluster-name rule (docs/hub.md, "Target clusters").
//
// # Model
//
// Orders on a target cluster are reconciled by the hub: the hub reads the
// order with the target cluster's client, keeps its children in the
// ControlPlane's namespace on the management cluster (labelled with the
// order's cluster, so no name collides across clusters), and writes the
// delivered Secret beside the order on the target cluster, with the plane's
// published endpoint as auth URL (the target cannot reach the in-cluster
// Keystone Service; a Managed plane that publishes none makes DeliveryReady
// read False/KeystoneNotPublished; docs/reference/keystoneuser.md "Delivered
// Secret contract"). The management cluster is engaged too: a multicluster
// controller must pass mcbuilder.WithEngageWithLocalCluster(true), which
// defaults to false once a provider is set. In a request, req.ClusterName is
// "" (LocalCluster) for the management cluster and the Secret's name for a
// target cluster; Hub.Client turns it into a client.
//
// The cluster name is written into the children's c5c3.io/owner-cluster
// label (docs/hub.md, "Children": children are labelled with the parent's
// kind, namespace, name and cluster; keystoneservice.LabelOwnerCluster), so
// it must fit a label value: ValidateClusterName rejects names over 63
// characters, and the order then reports
// c5c3v1alpha1.ReasonClusterNameTooLong (re-register the cluster under a
// shorter Secret name).
//
// # Registering a target cluster
//
// Create, in the hub namespace (orderhub hub --target-cluster-secret-namespace,
// default --namespace), a Secret named after the cluster, labelled
// <label>=true (--target-cluster-secret-label, default
// sigs.k8s.io/multicluster-runtime-kubeconfig), holding a kubeconfig under the
// key kubeconfig. The kubeconfig's current context must reach the target's
// apiserver from the hub's pods over https and carry the credentials
// themselves (a token or client certificate inline; no exec plugin, no file
// paths, no proxy, TLS verified against inline CA data: SanitizeKubeconfig
// refuses anything else with a KubeconfigRefused event on the Secret), with
// RBAC on the target for the order kinds and for the delivered Secrets:
//
//	kubectl -n <hub-namespace> create secret generic <cluster> \
//	  --from-file=kubeconfig=<target.kubeconfig>
//	kubectl -n <hub-namespace> label secret <cluster> \
//	  sigs.k8s.io/multicluster-runtime-kubeconfig=true
//
// The provider engages the cluster once its cache has synced, within
// Options.CacheSyncTimeout (else a CacheSyncTimeout event and a retry with
// backoff); an edited kubeconfig re-engages it (the hash of the bytes
// changes). A Secret without the key is logged and skipped.
//
// # Deregistering, and what stays behind
//
// Deleting the Secret (or removing the label) disengages the cluster: its
// cache stops and its name no longer resolves (Hub.Client returns an error
// wrapping multicluster.ErrClusterNotFound). Its orders cannot be read any
// more, so no teardown runs: their children stay in the ControlPlane's
// namespace on the management cluster, and what they made in Keystone and
// OpenBao stays with them (the delivered Secrets on the target stay too, and
// are the target's to remove). Remove the children by hand with the cluster
// label, while the ControlPlane still exists, so K-ORC deletes the Keystone
// users, projects and credentials and ESO's PushSecret deletion removes the
// OpenBao paths:
//
//	kubectl delete -n <controlplane-namespace> \
//	  applicationcredentials.openstack.k-orc.cloud -l c5c3.io/owner-cluster=<cluster>
//	kubectl delete -n <controlplane-namespace> \
//	  users.openstack.k-orc.cloud,projects.openstack.k-orc.cloud,roles.openstack.k-orc.cloud,pushsecrets.external-secrets.io,secrets \
//	  -l c5c3.io/owner-cluster=<cluster>
//
// The kinds are every child an order on a target cluster projects:
//
//   - applicationcredentials.openstack.k-orc.cloud: KeystoneApplicationCredential's
//     credential-v<N> (K-ORC deletes the Keystone credential);
//   - users.openstack.k-orc.cloud: KeystoneUser's managed user (K-ORC deletes
//     the Keystone user), and the collision probe import an order probed
//     before controllers/hub/nameprobe may still have;
//   - projects.openstack.k-orc.cloud: KeystoneProject's managed project, and
//     such a probe import;
//   - roles.openstack.k-orc.cloud: KeystoneRoleAssignment's unmanaged role
//     import (the Keystone role stays; the assignment itself was made through
//     the Keystone API and is not revoked by kubectl);
//   - pushsecrets.external-secrets.io: the backups (deleting one removes its
//     OpenBao path);
//   - secrets: password and credential generations, the clouds.yaml documents
//     K-ORC authenticates with, and the backup sources.
//
// The credentials go first, in a command of their own (kubectl waits until
// they are gone): K-ORC cannot delete a credential whose user is gone, and
// it authenticates the deletes with the user's password document, which the
// second command removes. Narrow the selectors with
// c5c3.io/owner-namespace=<namespace>,c5c3.io/owner-name=<name> to remove one
// order's children only. KeystoneService orders are admitted by the hub's
// webhook, which target clusters do not run, so they are management-cluster
// orders and their cluster label is empty.
package clusters
