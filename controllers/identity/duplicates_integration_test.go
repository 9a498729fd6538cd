//go:build integration

package identity

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A service made outside orderhub with the name and type a Service resource
// declares never displaces the one it records (docs/identity.md, "Duplicate
// services and endpoints"). Two Endpoint resources name the service. The
// foreign duplicate gets a lower ID (the old lowest-ID rule would take it):
// it is named in every Ready message, Ready stays True, nothing moves and no
// endpoint is deleted. Then the recorded service is deleted outside
// orderhub: the Service resource creates its own again rather than adopting
// the foreign one, and both Endpoints publish under the new one; the foreign
// service never gets an endpoint.
func TestForeignDuplicateServiceNeverDisplaces(t *testing.T) {
	ctx := context.Background()
	name := uniq(t, "dupsvc")
	typ := name + "-type"
	s := &kv1.Service{ObjectMeta: metav1.ObjectMeta{Name: kname(name), Namespace: testNS},
		Spec: kv1.ServiceSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Name: name, Type: typ}}
	e1 := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name) + "-one", Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Service: kv1.ServiceRef{Name: name, Type: typ},
			Region: stack.Keystone.Region, URLs: kv1.EndpointURLs{Public: "http://pub.example/", Internal: "http://int.example/"}}}
	e2 := &kv1.Endpoint{ObjectMeta: metav1.ObjectMeta{Name: kname(name) + "-two", Namespace: testNS},
		Spec: kv1.EndpointSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Service: kv1.ServiceRef{Name: name, Type: typ},
			Region: name + "-region", URLs: kv1.EndpointURLs{Admin: "http://adm.example/"}}}
	mustCreate(t, s, e1, e2)
	for _, o := range []kobj{s, e1, e2} {
		waitReady(t, o)
	}
	recorded, ids1, ids2 := s.Status.ServiceID, e1.Status.EndpointIDs, e2.Status.EndpointIDs
	foreign := foreignServiceBelow(t, name, typ, recorded)
	deletes := proxy.snapshot()["DELETE /v3/endpoints/{id}"]

	namedInReady(t, foreign, s, e1, e2)
	if s.Status.ServiceID != recorded || e1.Status.ServiceID != recorded || e2.Status.ServiceID != recorded {
		t.Errorf("service IDs %s, %s, %s; want the recorded %s kept", s.Status.ServiceID, e1.Status.ServiceID, e2.Status.ServiceID, recorded)
	}
	if e1.Status.EndpointIDs != ids1 || e2.Status.EndpointIDs != ids2 {
		t.Errorf("endpoint IDs %+v, %+v; want %+v, %+v unchanged", e1.Status.EndpointIDs, e2.Status.EndpointIDs, ids1, ids2)
	}
	if n := len(ksEndpoints(t, recorded, "")); n != 3 {
		t.Errorf("%d endpoints under the recorded service, want 3", n)
	}
	if n := proxy.snapshot()["DELETE /v3/endpoints/{id}"] - deletes; n != 0 {
		t.Errorf("%d endpoints deleted because of a foreign service, want 0", n)
	}

	if err := services.Delete(ctx, admin, recorded).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new service of its own, both Endpoints under it", func() (bool, string) {
		readyOf(t, s)
		id := s.Status.ServiceID
		if id == recorded || id == foreign {
			return false, "service ID " + id
		}
		for _, e := range []*kv1.Endpoint{e1, e2} {
			if c := readyOf(t, e); c == nil || c.Status != metav1.ConditionTrue || e.Status.ServiceID != id {
				return false, fmt.Sprintf("%s: service %s, %v", e.Name, e.Status.ServiceID, c)
			}
		}
		n := len(ksEndpoints(t, id, ""))
		return n == 3, fmt.Sprintf("%d endpoints under %s", n, id)
	})
	namedInReady(t, foreign, s, e1, e2)
	if n := len(ksEndpoints(t, foreign, "")); n != 0 {
		t.Errorf("%d endpoints under the foreign service %s, want 0", n, foreign)
	}
}

// foreignServiceBelow creates a service named name of type typ outside
// orderhub whose ID sorts below id (IDs are random; up to 64 tries, then a
// higher one is kept) and returns its ID.
func foreignServiceBelow(t *testing.T, name, typ, id string) string {
	t.Helper()
	for i := 0; ; i++ {
		sid := ksCreateService(t, name, typ, "made outside")
		if sid < id || i == 63 {
			t.Logf("foreign service %s, recorded %s", sid, id)
			return sid
		}
		if err := services.Delete(context.Background(), admin, sid).ExtractErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// namedInReady waits until every object reports Ready=True with a message
// naming id.
func namedInReady(t *testing.T, id string, objs ...kobj) {
	t.Helper()
	for _, o := range objs {
		eventually(t, o.GetName()+" Ready naming "+id, func() (bool, string) {
			c := readyOf(t, o)
			if c == nil {
				return false, "no Ready condition"
			}
			return c.Status == metav1.ConditionTrue && strings.Contains(c.Message, id), c.Message
		})
	}
}
