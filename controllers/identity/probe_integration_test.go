//go:build integration

package identity

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A new password that Keystone's password rule refuses: the probe is
// rejected (one failed login), the write answers 400, and the write is
// retried every retryInterval. The retries write again but never probe
// again, so Keystone counts exactly one failed login however often the write
// fails. A compliant value then is probed once and written.
func TestPasswordWriteRefusedProbesOnce(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "ruled")
	sec := secret(kname(name)+"-pw", map[string]string{"OS_PASSWORD": "compliant-first"})
	u := newUser(name, kname(name), "", sec.Name)
	u.Spec.RetryInterval = "200ms"
	mustCreate(t, sec, u)
	waitReady(t, u)
	id := u.Status.UserID
	if n := failedAuthCount(t, id); n != 0 {
		t.Fatalf("failed_auth_count = %d before the test", n)
	}
	probes := proxy.probeCount(id)

	sec.Data["OS_PASSWORD"] = []byte("new-but-" + refusedMarker)
	if err := k8s.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "three refused password writes", func() (bool, string) {
		c := readyOf(t, u)
		n := proxy.passwordWrites(id)
		return n >= 3 && c != nil && c.Status == metav1.ConditionFalse, fmt.Sprintf("%d writes, %v", n, c)
	})
	c := readyOf(t, u)
	if c.Reason != kv1.ReasonReconcileError || !strings.Contains(c.Message, "400") || strings.Contains(c.Message, refusedMarker) {
		t.Errorf("Ready message %q: want Keystone's 400, and never the password", c.Message)
	}
	if n := proxy.probeCount(id) - probes; n != 1 {
		t.Errorf("%d probes of the refused value, want 1", n)
	}
	failed := failedAuthCount(t, id)
	t.Logf("failed_auth_count after %d refused writes: %d", proxy.passwordWrites(id), failed)
	if failed != 1 {
		t.Errorf("failed_auth_count = %d, want 1", failed)
	}

	// A compliant value: one more probe (rejected: Keystone still has the
	// first password), one successful write.
	probes = proxy.probeCount(id)
	writes := proxy.passwordWrites(id)
	sec.Data["OS_PASSWORD"] = []byte("compliant-second")
	if err := k8s.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the compliant password written", func() (bool, string) {
		c := readyOf(t, u)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == u.Generation &&
			strings.Contains(c.Message, "password set"), fmt.Sprint(c)
	})
	if n := proxy.probeCount(id) - probes; n != 1 {
		t.Errorf("%d probes of the compliant value, want 1", n)
	}
	if n := proxy.passwordWrites(id) - writes; n != 1 {
		t.Errorf("%d writes of the compliant value, want 1", n)
	}
	if err := tryLogin(id, "compliant-second"); err != nil {
		t.Errorf("login with the compliant password: %v", err)
	}
}
