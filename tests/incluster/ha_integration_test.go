//go:build integration

package incluster

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/c5c3/orderhub/internal/testenv"
)

var (
	kacGVR = schema.GroupVersionResource{Group: "c5c3.io", Version: "v1alpha1", Resource: "keystoneapplicationcredentials"}
	kuGVR  = schema.GroupVersionResource{Group: "c5c3.io", Version: "v1alpha1", Resource: "keystoneusers"}
)

// haEnv is what the HA part borrows from the main test.
type haEnv struct {
	st *testenv.Stack
	cs kubernetes.Interface
	// upgrade runs helm upgrade --reuse-values with these --set values.
	upgrade func(t *testing.T, set ...string)
	// apply applies a document in a namespace through the hub's webhooks.
	apply func(t *testing.T, ns, what string, doc []byte)
}

// haRotationTakeover runs the hub with two replicas on the pod network and
// leader election on, orders an application credential rotating every
// minute (grace 30s), and deletes the leader pod while a rotation is in its
// grace period. The other replica takes the Lease and finishes the rotation
// and the next one; a consumer authenticating every second with whatever
// the delivered Secret holds sees no failure, and Keystone sees exactly one
// credential per generation.
//
// Pods on the pod network cannot reach servers bound on the machine's
// loopback: the hub calls Keystone itself (a ControlPlane's admin credential,
// the delivered credential's probe), so Keystone is exposed on the node IP
// (Node.Expose) and this ControlPlane's authURL names that address, which
// K-ORC and ESO on the host reach too.
func haRotationTakeover(ctx context.Context, t *testing.T, e haEnv) {
	st, cs, ks := e.st, e.cs, e.st.Keystone
	u, err := url.Parse(ks.URL)
	if err != nil {
		t.Fatal(err)
	}
	var port int
	if _, err := fmt.Sscanf(u.Port(), "%d", &port); err != nil {
		t.Fatalf("Keystone URL %s: %v", ks.URL, err)
	}
	if err := st.Node.Expose(port); err != nil {
		t.Fatal(err)
	}
	nodeAuthURL := strings.Replace(ks.URL, u.Hostname(), st.Node.IP, 1)

	e.upgrade(t, "hub.hostNetwork=false", "hub.replicas=2")
	waitRolledOut(ctx, t, cs, []string{release + "-hub"}, "two hub replicas on the pod network")
	hubPods := func() []corev1.Pod {
		t.Helper()
		l, err := cs.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=hub"})
		if err != nil {
			t.Fatal(err)
		}
		var live []corev1.Pod
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		return live
	}
	for _, p := range hubPods() {
		if p.Spec.HostNetwork || !strings.HasPrefix(p.Status.PodIP, "10.244.") {
			t.Fatalf("hub pod %s: hostNetwork %v, IP %s", p.Name, p.Spec.HostNetwork, p.Status.PodIP)
		}
	}
	if _, err := cs.PolicyV1().PodDisruptionBudgets(releaseNS).Get(ctx, release+"-hub", metav1.GetOptions{}); err != nil {
		t.Fatalf("the hub's PodDisruptionBudget with two replicas: %v", err)
	}
	leader := func() (string, error) {
		l, err := cs.CoordinationV1().Leases(releaseNS).Get(ctx, "orderhub-hub", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return "", fmt.Errorf("lease orderhub-hub has no holder")
		}
		pod, _, _ := strings.Cut(*l.Spec.HolderIdentity, "_")
		return pod, nil
	}

	// The order: a plane assigning namespace ha (role member), a user, a
	// project, the role assignment and the rotating credential.
	for _, ns := range []string{"ha-plane", "ha"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().Secrets("ha-plane").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "keystone-admin"},
		StringData: map[string]string{"password": ks.AdminPassword}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.apply(t, "ha-plane", "the HA ControlPlane", []byte(fmt.Sprintf(`apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata: {name: cp}
spec:
  services:
    keystone:
      mode: External
      external: {authURL: %q}
  korc: {}
  namespaceAssignments:
  - {cluster: "", namespace: ha, allowedRoles: [member], domains: [Default]}
`, nodeAuthURL)))
	ref := "controlPlaneRef: {name: cp, namespace: ha-plane}"
	e.apply(t, "ha", "the HA orders", []byte(`apiVersion: c5c3.io/v1alpha1
kind: KeystoneProject
metadata: {name: ha-project}
spec:
  `+ref+`
---
apiVersion: c5c3.io/v1alpha1
kind: KeystoneUser
metadata: {name: ha-user}
spec:
  `+ref+`
---
apiVersion: c5c3.io/v1alpha1
kind: KeystoneRoleAssignment
metadata: {name: ha-member}
spec:
  `+ref+`
  userRef: {name: ha-user}
  projectRef: {name: ha-project}
  role: member
---
apiVersion: c5c3.io/v1alpha1
kind: KeystoneApplicationCredential
metadata: {name: ha-ac}
spec:
  `+ref+`
  userRef: {name: ha-user}
  projectRef: {name: ha-project}
  rotation: {interval: 1m, gracePeriod: 30s}
`))
	dyn, err := dynamic.NewForConfig(st.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	kacs := dyn.Resource(kacGVR).Namespace("ha")
	status := func() (map[string]any, error) {
		o, err := kacs.Get(ctx, "ha-ac", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		s, _, _ := unstructured.NestedMap(o.Object, "status")
		return s, nil
	}
	gen := func(s map[string]any) int64 { g, _ := s["credentialGeneration"].(int64); return g }
	testenv.Eventually(t, 5*time.Minute, "KeystoneApplicationCredential ha/ha-ac at generation 1, delivered", func() error {
		s, err := status()
		if err != nil {
			return err
		}
		if gen(s) < 1 || s["secretName"] != "ha-ac-credentials" {
			return fmt.Errorf("status %v", s)
		}
		return nil
	})

	// The consumer, and a watch over Keystone's credentials of the user.
	ic, err := st.AdminIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	user, err := dyn.Resource(kuGVR).Namespace("ha").Get(ctx, "ha-user", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	userID, _, _ := unstructured.NestedString(user.Object, "status", "userID")
	var mu sync.Mutex
	var attempts, failures, listed int
	var lastFailure string
	seenInKeystone := map[string]string{} // id -> name
	delivered := map[string]bool{}
	cctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-cctx.Done():
				return
			case <-tick.C:
			}
			err := consume(cctx, cs, ks.URL)
			pages, lerr := applicationcredentials.List(ic, userID, nil).AllPages(cctx)
			var acs []applicationcredentials.ApplicationCredential
			if lerr == nil {
				acs, lerr = applicationcredentials.ExtractApplicationCredentials(pages)
			}
			mu.Lock()
			if cctx.Err() == nil {
				attempts++
				if err != nil {
					failures++
					lastFailure = err.Error()
				}
			}
			if lerr == nil {
				listed++
				for _, ac := range acs {
					seenInKeystone[ac.ID] = ac.Name
				}
			}
			if s, err := cs.CoreV1().Secrets("ha").Get(cctx, "ha-ac-credentials", metav1.GetOptions{}); err == nil {
				delivered[string(s.Data["application_credential_id"])] = true
			}
			mu.Unlock()
		}
	}()

	// Generation 2 minted, generation 1 in its grace period: delete the leader.
	testenv.Eventually(t, 3*time.Minute, "ha-ac rotated to generation 2, generation 1 in its grace period", func() error {
		s, err := status()
		if err != nil {
			return err
		}
		if gen(s) != 2 || s["previousCredentialID"] == nil || s["previousCredentialID"] == "" {
			return fmt.Errorf("status %v", s)
		}
		return nil
	})
	old, err := leader()
	if err != nil {
		t.Fatal(err)
	}
	standby := map[string]bool{}
	for _, p := range hubPods() {
		if p.Name != old {
			standby[p.Name] = true
		}
	}
	lease, err := cs.CoordinationV1().Leases(releaseNS).Get(ctx, "orderhub-hub", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	leaseDuration := "unset"
	if d := lease.Spec.LeaseDurationSeconds; d != nil {
		leaseDuration = fmt.Sprintf("%ds", *d)
	}
	deleted := time.Now()
	if err := cs.CoreV1().Pods(releaseNS).Delete(ctx, old, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete the leader pod %s: %v", old, err)
	}
	var next string
	testenv.Eventually(t, 2*time.Minute, "another hub replica holds the Lease", func() error {
		p, err := leader()
		if err != nil {
			return err
		}
		if p == old {
			return fmt.Errorf("still held by %s", old)
		}
		next = p
		return nil
	})
	takeover := time.Since(deleted)
	who := "the replacement pod"
	if standby[next] {
		who = "the standby replica"
	}
	t.Logf("leader %s deleted during the rotation to generation 2; %s %s took the Lease after %s (lease duration %s)",
		old, who, next, takeover.Round(100*time.Millisecond), leaseDuration)

	// The new leader finishes the rotation (generation 1 deleted after its
	// grace period) and rotates on schedule to generation 3, whose
	// predecessor it deletes too.
	testenv.Eventually(t, 4*time.Minute, "ha-ac at generation 3, generation 2 deleted after its grace period", func() error {
		s, err := status()
		if err != nil {
			return err
		}
		if gen(s) < 3 || (s["previousCredentialID"] != nil && s["previousCredentialID"] != "") {
			return fmt.Errorf("status %v", s)
		}
		return nil
	})
	// One more full consumer round on the final state, then stop.
	mu.Lock()
	mark := attempts
	mu.Unlock()
	testenv.Eventually(t, time.Minute, "the consumer ran on the final state", func() error {
		mu.Lock()
		defer mu.Unlock()
		if attempts < mark+3 {
			return fmt.Errorf("%d attempts", attempts)
		}
		return nil
	})
	stop()
	<-done
	s, err := status()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := applicationcredentials.List(ic, userID, nil).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now, err := applicationcredentials.ExtractApplicationCredentials(pages)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("consumer: %d authentications with the delivered Secret, %d failures; %d credential IDs delivered; Keystone listed %d times: %d credentials of the user seen, %d now; status generation %d",
		attempts, failures, len(delivered), listed, len(seenInKeystone), len(now), gen(s))
	if failures != 0 {
		t.Errorf("the consumer failed %d of %d times; last: %s", failures, attempts, lastFailure)
	}
	if attempts == 0 || listed == 0 {
		t.Fatalf("the consumer never ran (%d authentications, %d listings)", attempts, listed)
	}
	// Every generation from the first observed on is one credential in
	// Keystone: a generation minted twice would show an extra ID.
	if want := int(gen(s)); len(seenInKeystone) != want {
		t.Errorf("Keystone held %d distinct credentials of the user over the run (%v), want one per generation (%d)", len(seenInKeystone), seenInKeystone, want)
	}
	if len(now) != 1 || now[0].ID != s["credentialID"] {
		t.Errorf("Keystone now holds %d credentials of the user, want only the current %v", len(now), s["credentialID"])
	}
}

// consume authenticates with the application credential the delivered
// Secret holds now, as a consumer re-reading it would.
func consume(ctx context.Context, cs kubernetes.Interface, authURL string) error {
	s, err := cs.CoreV1().Secrets("ha").Get(ctx, "ha-ac-credentials", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read the delivered Secret: %w", err)
	}
	pc, err := openstack.NewClient(authURL)
	if err != nil {
		return err
	}
	pc.HTTPClient.Timeout = 5 * time.Second
	return openstack.Authenticate(ctx, pc, gophercloud.AuthOptions{IdentityEndpoint: authURL,
		ApplicationCredentialID:     string(s.Data["application_credential_id"]),
		ApplicationCredentialSecret: string(s.Data["application_credential_secret"])})
}
