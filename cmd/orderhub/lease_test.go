package main

import (
	"strings"
	"testing"
)

// Two installs for different backends in one namespace get different Leases;
// replicas of one install (the same target) share one; --leader-election-id
// wins and must be a valid Lease name; the hub keeps orderhub-hub.
func TestLeaderElectionID(t *testing.T) {
	id := func(name, flag string, target ...string) string {
		t.Helper()
		got, err := leaderElectionID(name, flag, target)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a := id("topology", "", "openstack", "http://rabbitmq:15672", "rabbitmq")
	b := id("topology", "", "openstack", "http://rabbitmq-notifications:15672", "rabbitmq-notifications")
	if a == b {
		t.Errorf("two brokers in one namespace share the Lease %s", a)
	}
	if a2 := id("topology", "", "openstack", "http://rabbitmq:15672", "rabbitmq"); a2 != a {
		t.Errorf("replicas of one install: Leases %s and %s, want one", a, a2)
	}
	if !strings.HasPrefix(a, "orderhub-topology-") || len(a) != len("orderhub-topology-")+10 {
		t.Errorf("topology Lease %q, want orderhub-topology-<10 hex digits>", a)
	}
	k1 := id("identity", "", "openstack", "keystone", "http://keystone-api:5000/v3")
	k2 := id("identity", "", "openstack", "keystone-b", "http://keystone-b-api:5000/v3")
	k3 := id("identity", "", "other", "keystone", "http://keystone-api:5000/v3")
	if k1 == k2 || k1 == k3 || k2 == k3 {
		t.Errorf("identity Leases for two Keystones or namespaces collide: %s %s %s", k1, k2, k3)
	}
	if h := id("hub", ""); h != "orderhub-hub" {
		t.Errorf("hub Lease %q, want orderhub-hub", h)
	}
	if got := id("identity", "my-release-identity", "openstack", "keystone", "x"); got != "my-release-identity" {
		t.Errorf("--leader-election-id ignored: %q", got)
	}
	if _, err := leaderElectionID("identity", "Not_A_Name", nil); err == nil || !strings.Contains(err.Error(), "--leader-election-id") {
		t.Errorf("invalid --leader-election-id: err = %v, want one naming the flag", err)
	}
}
