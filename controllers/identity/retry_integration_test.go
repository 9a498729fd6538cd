//go:build integration

package identity

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A failed resource is retried after its retryInterval, not at once: the
// controller's own status patch (Ready=False) does not re-enqueue it. The
// Project waits on a missing domain with retryInterval 1h; each attempt looks
// the domain up once. After its failure is reported, two more Projects are
// created and become Ready one after the other (their reconciles come after
// any re-enqueue the status patch could have caused, on the same workqueue),
// and the missing domain is still looked up exactly once.
func TestFailureRetriedNoSoonerThanRetryInterval(t *testing.T) {
	dname := uniq(t, "never-there")
	p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: kname(dname) + "-waits", Namespace: testNS},
		Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), RetryInterval: "1h"}, Name: "p", Domain: dname}}
	mustCreate(t, p)
	eventually(t, "ReconcileError naming the missing domain", func() (bool, string) {
		c := readyOf(t, p)
		return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, fmt.Sprintf("domain %q", dname)), fmt.Sprint(c)
	})
	for i := range 2 {
		b := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-barrier-%d", kname(dname), i), Namespace: testNS},
			Spec: kv1.ProjectSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: fmt.Sprintf("%s-barrier-%d", dname, i)}}
		mustCreate(t, b)
		waitReady(t, b)
	}
	if n := proxy.lookupCount("/v3/domains", url.Values{"name": {dname}}); n != 1 {
		t.Errorf("the missing domain was looked up %d times, want 1: the failure was retried before its retryInterval (1h)", n)
	}
}
