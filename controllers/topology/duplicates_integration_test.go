//go:build integration

package topology

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
)

// pathCounter counts management API requests by method and escaped path.
type pathCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int // "GET /api/permissions/%2F/u" → count
}

func (c *pathCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[req.Method+" "+req.URL.EscapedPath()]++
	c.mu.Unlock()
	return c.next.RoundTrip(req)
}

func (c *pathCounter) count(method, path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method+" "+path]
}

// writes counts every PUT, POST and DELETE.
func (c *pathCounter) writes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := 0
	for k, v := range c.n {
		if !strings.HasPrefix(k, "GET ") {
			w += v
		}
	}
	return w
}

// waitDuplicate waits until obj reports Ready=False DuplicateDeclaration
// naming the older resource.
func waitDuplicate(t *testing.T, obj object, kind, older string) {
	t.Helper()
	eventually(t, obj.GetName()+" reports the older declaration", func() error {
		c, err := readyStatus(obj)
		if err != nil {
			return err
		}
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != rmqv1.ReasonDuplicateDeclaration ||
			!strings.Contains(c.Message, "as "+kind+" "+older+", the oldest declaration") {
			return fmt.Errorf("Ready = %+v", c)
		}
		return nil
	})
}

// docs/topology.md, "Several declarations of one broker object": of two
// Permissions for one user and vhost, the older declares; the younger
// writes nothing, reports DuplicateDeclaration naming the older, and
// once settled the owner's resyncs write nothing. Deleting the older keeps
// the broker's permissions (no DELETE) and hands them to the younger.
func TestIntegration_Topology_OldestPermissionDeclares(t *testing.T) {
	counter := &pathCounter{next: http.DefaultTransport}
	ns := startOwnControllers(t, "topology-dup", Options{ResyncPeriod: 2 * time.Second,
		BackoffBase: 200 * time.Millisecond, BackoffMax: 2 * time.Second}, counter)
	username := uniq("dupuser")
	if _, err := admin.PutUser(username, rabbitholeUser("pw")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteUser(username) })
	perm := func(configure string) *rmqv1.Permission {
		return &rmqv1.Permission{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uniq("perm")}, Spec: rmqv1.PermissionSpec{
			User: username, Vhost: "/", Permissions: rmqv1.VhostPermissions{Configure: configure, Write: ".*", Read: ".*"},
			RabbitmqClusterReference: ref()}}
	}
	brokerConfigure := func(want string) func() error {
		return func() error {
			p, err := admin.GetPermissionsIn("/", username)
			if err != nil {
				return err
			}
			if p.Configure != want {
				return fmt.Errorf("configure %q in the broker, want %q", p.Configure, want)
			}
			return nil
		}
	}
	older := perm("^older$")
	create(t, older)
	waitReady(t, older)
	younger := perm("^younger$")
	create(t, younger)
	waitDuplicate(t, younger, "Permission", older.Name)
	if err := brokerConfigure("^older$")(); err != nil {
		t.Fatal(err)
	}

	path := "/api/permissions/%2F/" + username
	writes, reads := counter.writes(), counter.count(http.MethodGet, path)
	eventually(t, "two resyncs of the older Permission", func() error {
		if n := counter.count(http.MethodGet, path) - reads; n < 2 {
			return fmt.Errorf("%d reads of the permissions", n)
		}
		return nil
	})
	if w := counter.writes() - writes; w != 0 {
		t.Errorf("%d broker writes at rest with two declarations, want 0", w)
	}
	if err := brokerConfigure("^older$")(); err != nil {
		t.Fatal(err)
	}

	deleteAndWait(t, older)
	waitReady(t, younger)
	eventually(t, "the broker shows the younger's patterns", brokerConfigure("^younger$"))
	if n := counter.count(http.MethodDelete, path); n != 0 {
		t.Errorf("%d DELETEs of the permissions, want 0: the younger still declares them", n)
	}
}

// Two Users import one username with different tags: the broker keeps the
// older's tags and password; the younger reports the older and records no
// status.username, and its deletion leaves the broker user alone.
func TestIntegration_Topology_OldestUserDeclares(t *testing.T) {
	username := uniq("dupsvc")
	s1 := credentialsSecret(uniq("creds"), username, "older-password")
	s2 := credentialsSecret(uniq("creds"), username, "younger-password")
	create(t, s1)
	create(t, s2)
	older := managementUser(uniq("user"), s1.Name)
	create(t, older)
	waitReady(t, older)
	younger := managementUser(uniq("user"), s2.Name)
	younger.Spec.Tags = []rmqv1.UserTag{"monitoring"}
	create(t, younger)
	waitDuplicate(t, younger, "User", older.Name)

	u, err := admin.GetUser(username)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(u.Tags, ",") != "management" {
		t.Errorf("tags %v in the broker, want the older's [management]", u.Tags)
	}
	if err := loginAs(username, "older-password"); err != nil {
		t.Errorf("the older's password: %v", err)
	}
	if younger.Status.Username != "" || younger.Status.Credentials != nil {
		t.Errorf("the younger records username %q, credentials %v; it declared nothing", younger.Status.Username, younger.Status.Credentials)
	}

	deleteAndWait(t, younger)
	if _, err := admin.GetUser(username); err != nil {
		t.Fatalf("the broker user after the younger's deletion: %v", err)
	}
	waitReady(t, older)
}

// Two TopicPermissions for one user, vhost and exchange: the older
// declares, the younger reports DuplicateDeclaration naming it, and
// deleting the older hands the exchange's topic permissions to the younger
// without clearing them.
func TestIntegration_Topology_OldestTopicPermissionDeclares(t *testing.T) {
	username := uniq("duptopic")
	if _, err := admin.PutUser(username, rabbitholeUser("pw")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.DeleteUser(username) })
	perm := func(write string) *rmqv1.TopicPermission {
		return &rmqv1.TopicPermission{ObjectMeta: meta_(uniq("tperm")), Spec: rmqv1.TopicPermissionSpec{User: username, Vhost: "/",
			Permissions: rmqv1.TopicPermissionConfig{Exchange: "amq.topic", Write: write, Read: ".*"}, RabbitmqClusterReference: ref()}}
	}
	brokerWrite := func(want string) func() error {
		return func() error {
			got, err := topicPermissionsOf("/", username)
			if err != nil {
				return err
			}
			if got["amq.topic"][0] != want {
				return fmt.Errorf("topic permissions in the broker %v, want write %q on amq.topic", got, want)
			}
			return nil
		}
	}
	older := perm("^older$")
	create(t, older)
	waitReady(t, older)
	younger := perm("^younger$")
	create(t, younger)
	waitDuplicate(t, younger, "TopicPermission", older.Name)
	if err := brokerWrite("^older$")(); err != nil {
		t.Fatal(err)
	}
	deleteAndWait(t, older)
	waitReady(t, younger)
	if err := brokerWrite("^younger$")(); err != nil {
		t.Fatal(err)
	}
}
