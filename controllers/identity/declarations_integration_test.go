//go:build integration

package identity

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// Two, then three, resources declare one Keystone domain. The oldest owns the
// mutable fields; a younger one that disagrees writes nothing and reports
// Ready=False naming the owner and the field; Keystone keeps the owner's
// values; and once converged the resyncs make zero writes. A declaration
// that is brought in line becomes Ready.
func TestSeveralDeclarationsOldestOwns(t *testing.T) {
	ctx := ctxT(t)
	name := uniq(t, "shared")
	decl := func(chart, desc string, on *bool) *kv1.Domain {
		return &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: chart + "-" + kname(name), Namespace: testNS},
			Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Description: desc, Enabled: on}}
	}
	conflictNaming := func(o *kv1.Domain, owner, fieldName string) {
		t.Helper()
		eventually(t, o.Name+" reports the conflict", func() (bool, string) {
			c := readyOf(t, o)
			return c != nil && c.Status == metav1.ConditionFalse && c.Reason == kv1.ReasonReconcileError &&
				strings.Contains(c.Message, "as Domain "+owner) && strings.Contains(c.Message, fieldName), fmt.Sprint(c)
		})
	}
	keystoneDomain := func() domains.Domain {
		t.Helper()
		ds := ksDomainsNamed(t, name)
		if len(ds) != 1 {
			t.Fatalf("%d domains named %s, want 1", len(ds), name)
		}
		return ds[0]
	}

	cinder := decl("cinder", "Domain for service", nil)
	mustCreate(t, cinder)
	waitReady(t, cinder)

	// Two declarations.
	glance := decl("glance", "Service domain of glance", nil)
	mustCreate(t, glance)
	conflictNaming(glance, cinder.Name, "description")

	// Three declarations.
	nova := decl("nova", "", ptr(false))
	mustCreate(t, nova)
	conflictNaming(nova, cinder.Name, "enabled")
	if d := keystoneDomain(); d.Description != "Domain for service" || !d.Enabled {
		t.Errorf("Keystone domain = %+v, want the owner's description, enabled", d)
	}

	// Converged: over two forced resyncs of the owner (each looks the domain
	// up), nothing is written to Keystone.
	writes := proxy.writes()
	lookups := proxy.lookupCount("/v3/domains", url.Values{"name": {name}})
	eventually(t, "two resyncs of the owner", func() (bool, string) {
		n := proxy.lookupCount("/v3/domains", url.Values{"name": {name}}) - lookups
		return n >= 2, fmt.Sprintf("%d lookups", n)
	})
	resyncs := proxy.lookupCount("/v3/domains", url.Values{"name": {name}}) - lookups
	w := proxy.writes() - writes
	t.Logf("writes per resync once converged: %d over %d resyncs = %.1f", w, resyncs, float64(w)/float64(resyncs))
	if w != 0 {
		t.Errorf("%d writes to Keystone over %d resyncs once converged, want 0", w, resyncs)
	}
	for _, o := range []*kv1.Domain{glance, nova} {
		if c := readyOf(t, o); c == nil || c.Status != metav1.ConditionFalse {
			t.Errorf("%s: Ready = %v, want False while it disagrees", o.Name, c)
		}
	}

	// glance is brought in line: Ready, and Keystone still holds the owner's values.
	glance.Spec.Description = cinder.Spec.Description
	if err := k8s.Update(ctx, glance); err != nil {
		t.Fatal(err)
	}
	waitReady(t, glance)
	if c := readyOf(t, nova); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("nova: Ready = %v, want False", c)
	}
	if d := keystoneDomain(); d.Description != "Domain for service" || !d.Enabled {
		t.Errorf("Keystone domain = %+v, want the owner's description, enabled", d)
	}
}
