//go:build integration

package topology

import (
	"os"
	"path/filepath"
	"testing"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The sample service account (config/samples/topology) applies unchanged
// but for its namespace, becomes Ready, and gives the service a working
// login, vhost, permission and TTL policy.
func TestIntegration_Topology_SampleServiceAccount(t *testing.T) {
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repo, "config/samples/topology/keystone-messaging-account.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeDocuments(t, data)
	for _, u := range objs {
		u.SetNamespace(suiteNS)
	}
	if len(objs) != 5 {
		t.Fatalf("sample has %d objects, want Secret, User, Vhost, Permission, Policy", len(objs))
	}
	// deletionPolicy retain: the account outlives its resources; clean up
	// the broker by hand after the resources are gone (cleanups run last-in first-out).
	t.Cleanup(func() {
		_, _ = admin.DeleteVhost("keystone")
		_, _ = admin.DeleteUser("keystone")
	})
	for _, o := range objs {
		create(t, o)
	}
	typed := []object{&rmqv1.User{}, &rmqv1.Vhost{}, &rmqv1.Permission{}, &rmqv1.Policy{}}
	names := []string{"keystone", "keystone", "keystone", "ha-ttl-keystone"}
	for i, o := range typed {
		o.SetNamespace(suiteNS)
		o.SetName(names[i])
		waitReady(t, o)
	}
	// The account has no management tag (it is a messaging account), so
	// check the password against the hash the broker stores.
	bu, err := admin.GetUser("keystone")
	if err != nil {
		t.Fatal(err)
	}
	if !passwordMatches(bu.PasswordHash, bu.HashingAlgorithm, "password-from-endpoints-oslo-messaging") {
		t.Fatal("the broker's password hash does not match the Secret's password")
	}
	p, err := admin.GetPolicy("keystone", "ha_ttl_keystone")
	if err != nil {
		t.Fatal(err)
	}
	if p.Pattern != `^(?!(amq\.|reply_)).*` || p.ApplyTo != "all" || p.Definition["message-ttl"] != float64(70000) {
		t.Fatalf("policy in the broker: %+v", p)
	}
	perm, err := admin.GetPermissionsIn("keystone", "keystone")
	if err != nil || perm.Configure != ".*" || perm.Write != ".*" || perm.Read != ".*" {
		t.Fatalf("permission in the broker: %+v, %v", perm, err)
	}
}
