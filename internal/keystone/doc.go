// Package keystone holds what every orderhub controller needs to talk to
// Keystone with gophercloud v2, independent of any custom resource:
//
//   - Config: the admin credentials from the OpenStack environment (OS_* variables)
//     or a clouds.yaml, as OpenStack-Helm's keystone-keystone-admin openrc
//     Secret and python-openstackclient define them.
//   - Session: one long-lived, re-authenticating identity v3 client.
//   - ProbePassword: the unscoped-token password check that tells a rejected
//     password (HTTP 401) from every other failure.
//   - Name rules: the default domain (id "default", name matched in any letter
//     case) and exact-then-case-folded picking of list results.
//   - Error classification: not found, conflict, unauthorized, network.
//
// Sources: docs/identity.md, OpenStack-Helm's helm-toolkit ks-user, ks-service
// and ks-endpoints jobs (github.com/openstack/openstack-helm), and the
// Keystone Identity v3 API (https://docs.openstack.org/api-ref/identity/v3/).
package keystone
