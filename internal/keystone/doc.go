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
// Sources: seed "Declarative Keystone Identity Management (CRD)" and
// shared/research/osh-brief.md §3.3–4.
package keystone
