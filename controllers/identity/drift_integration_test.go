//go:build integration

package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// A description edited by hand in Keystone is put back by the forced resync,
// visibly: a Normal DriftRepaired event naming the domain and the field, and
// the repair and the PATCH counted in the controller's Prometheus counters.
func TestDriftRepairIsVisible(t *testing.T) {
	ctx := context.Background()
	name := uniq(t, "drifting")
	d := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.DomainSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Description: "as declared"}}
	mustCreate(t, d)
	waitReady(t, d)
	repairs := testenv.CounterSum(t, "orderhub_identity_drift_repairs_total", map[string]string{"kind": "Domain"})
	patches := testenv.CounterSum(t, "orderhub_identity_keystone_requests_total", map[string]string{"method": "PATCH", "code": "200"})
	if gets := testenv.CounterSum(t, "orderhub_identity_keystone_requests_total", map[string]string{"method": "GET", "code": "200"}); gets == 0 {
		t.Error("no GET counted in orderhub_identity_keystone_requests_total")
	}

	if _, err := domains.Update(ctx, admin, d.Status.DomainID, domains.UpdateOpts{Description: ptr("edited by hand")}).Extract(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the description repaired by the resync", func() (bool, string) {
		got, err := domains.Get(ctx, admin, d.Status.DomainID).Extract()
		return err == nil && got.Description == "as declared", fmt.Sprint(got, err)
	})
	eventually(t, "a DriftRepaired event naming the field", func() (bool, string) {
		var evs eventsv1.EventList
		if err := k8s.List(ctx, &evs, client.InNamespace(testNS)); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == d.Name && e.Reason == kv1.EventReasonDriftRepaired {
				if e.Type != "Normal" || !strings.Contains(e.Note, "domain "+name) || !strings.Contains(e.Note, "description") {
					t.Errorf("event %s %s %q: want Normal, naming the domain and its description", e.Type, e.Reason, e.Note)
				}
				return true, ""
			}
		}
		return false, errors.New("no DriftRepaired event yet").Error()
	})
	if n := testenv.CounterSum(t, "orderhub_identity_drift_repairs_total", map[string]string{"kind": "Domain"}) - repairs; n < 1 {
		t.Errorf("orderhub_identity_drift_repairs_total{kind=Domain} grew by %v, want >= 1", n)
	}
	if n := testenv.CounterSum(t, "orderhub_identity_keystone_requests_total", map[string]string{"method": "PATCH", "code": "200"}) - patches; n < 1 {
		t.Errorf("orderhub_identity_keystone_requests_total{method=PATCH,code=200} grew by %v, want >= 1", n)
	}
}
