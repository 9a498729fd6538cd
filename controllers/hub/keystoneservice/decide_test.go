package keystoneservice

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

func ks(mut func(*c5c3v1alpha1.KeystoneService)) *c5c3v1alpha1.KeystoneService {
	k := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "team"},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"},
			Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "image"}}}
	if mut != nil {
		mut(k)
	}
	return k
}

func cp(allowed []string, ready bool) *c5c3v1alpha1.ControlPlane {
	p := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	p.Spec.KORC.ServiceRegistrations.AllowedNamespaces = allowed
	st := metav1.ConditionFalse
	if ready {
		st = metav1.ConditionTrue
	}
	p.Status.Conditions = []metav1.Condition{{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: st, Reason: "X"}}
	return p
}

func TestGateOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cp   *c5c3v1alpha1.ControlPlane
		ns   string
		want string
	}{
		{"no plane", nil, "team", c5c3v1alpha1.ReasonControlPlaneNotFound},
		{"namespace not admitted", cp(nil, true), "team", c5c3v1alpha1.ReasonNamespaceNotAllowed},
		{"consent before credential", cp(nil, false), "team", c5c3v1alpha1.ReasonNamespaceNotAllowed},
		{"admitted, credential not ready", cp([]string{"team"}, false), "team", c5c3v1alpha1.ReasonWaitingForAdminCredential},
		{"own namespace needs no allowlist", cp(nil, true), "openstack", ""},
		{"admitted and ready", cp([]string{"team"}, true), "team", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := ks(func(k *c5c3v1alpha1.KeystoneService) { k.Namespace = tc.ns })
			if g := GateOf(k, tc.cp); g.Reason != tc.want {
				t.Errorf("GateOf = %q (%s), want %q", g.Reason, g.Message, tc.want)
			}
		})
	}
}

func TestDecideProbe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		outcome korc.ProbeOutcome
		adopt   bool
		want    korc.ProbeAction
	}{
		{korc.ProbePending, false, korc.ProbeWait},
		{korc.ProbePending, true, korc.ProbeWait},
		{korc.ProbeAbsent, false, korc.ProbeCreate},
		{korc.ProbeFound, false, korc.ProbeCollide},
		{korc.ProbeFound, true, korc.ProbeCreate},
		{korc.ProbeError, true, korc.ProbeFail},
	}
	for _, tc := range tests {
		if got := korc.DecideProbe(korc.ProbeResult{Outcome: tc.outcome}, tc.adopt); got != tc.want {
			t.Errorf("korc.DecideProbe(%s, adopt %t) = %s, want %s", tc.outcome, tc.adopt, got, tc.want)
		}
	}
}

func TestCatalogCondition(t *testing.T) {
	t.Parallel()
	avail := korc.State{Phase: korc.PhaseAvailable, ID: "x"}
	pub := c5c3v1alpha1.EndpointInterfacePublic
	tests := []struct {
		name   string
		o      CatalogObservation
		status metav1.ConditionStatus
		reason string
	}{
		{"gate closed", CatalogObservation{Gate: Gate{Reason: c5c3v1alpha1.ReasonControlPlaneNotFound, Message: "m"}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonControlPlaneNotFound},
		{"kubernetes error", CatalogObservation{Error: errors.New("boom")}, metav1.ConditionFalse, c5c3v1alpha1.ReasonCatalogError},
		{"probe pending", CatalogObservation{Probe: korc.ProbeResult{Outcome: korc.ProbePending}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonProbingForCollision},
		{"probe found, no consent", CatalogObservation{Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "s"}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceCollision},
		{"probe error", CatalogObservation{Probe: korc.ProbeResult{Outcome: korc.ProbeError}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonCatalogFailed},
		{"service progressing", CatalogObservation{ServiceExists: true, Service: korc.State{Phase: korc.PhaseProgressing}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCatalog},
		{"service failed", CatalogObservation{ServiceExists: true, Service: korc.State{Phase: korc.PhaseFailed}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonCatalogFailed},
		{"endpoint not registered", CatalogObservation{ServiceExists: true, Service: avail, Declared: []c5c3v1alpha1.EndpointInterface{pub}},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCatalog},
		{"endpoint failed", CatalogObservation{ServiceExists: true, Service: avail, Declared: []c5c3v1alpha1.EndpointInterface{pub},
			Endpoints: map[c5c3v1alpha1.EndpointInterface]korc.State{pub: {Phase: korc.PhaseFailed}}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonCatalogFailed},
		{"all available", CatalogObservation{ServiceExists: true, Service: avail, Declared: []c5c3v1alpha1.EndpointInterface{pub},
			Endpoints: map[c5c3v1alpha1.EndpointInterface]korc.State{pub: avail}}, metav1.ConditionTrue, c5c3v1alpha1.ReasonCatalogRegistered},
		{"found row owned by another registration", CatalogObservation{Adopt: true, Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "s1"},
			OwnedBy: "KeystoneService team/other"}, metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceCollision},
		{"service row alone", CatalogObservation{ServiceExists: true, Service: avail}, metav1.ConditionTrue, c5c3v1alpha1.ReasonCatalogRegistered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := CatalogCondition(tc.o, 3)
			if c.Type != c5c3v1alpha1.ConditionCatalogReady || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 3 {
				t.Errorf("CatalogCondition = %s/%s (%s), want %s/%s", c.Status, c.Reason, c.Message, tc.status, tc.reason)
			}
		})
	}
}

func TestReadyAggregate(t *testing.T) {
	t.Parallel()
	noAcc := NotDeclaredAccount(1)
	conds := Conditions(CatalogCondition(CatalogObservation{ServiceExists: true, Service: korc.State{Phase: korc.PhaseAvailable}}, 1), noAcc, 1)
	if r := conds[2]; r.Type != c5c3v1alpha1.ConditionReady || r.Reason != c5c3v1alpha1.ReasonAllReady {
		t.Errorf("Ready = %+v", r)
	}
	conds = Conditions(NotDeclaredCatalog(1), AccountCondition(AccountObservation{Gate: Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAllowed, Message: "m"}}, 1), 1)
	if r := conds[2]; r.Reason != c5c3v1alpha1.ReasonNotAllReady || conds[1].Reason != c5c3v1alpha1.ReasonNamespaceNotAllowed {
		t.Errorf("conditions = %+v, want AccountReady NamespaceNotAllowed and Ready NotAllReady", conds)
	}
}

func TestPlanEndpoints(t *testing.T) {
	t.Parallel()
	k := ks(func(k *c5c3v1alpha1.KeystoneService) {
		k.Spec.Catalog.Endpoints = []c5c3v1alpha1.KeystoneServiceEndpointSpec{{Interface: "public", URL: "http://x"}}
	})
	name := func(i c5c3v1alpha1.EndpointInterface) string {
		return korc.RegistrationChildName(k.Namespace, k.Name, korc.EndpointDiscriminator(i))
	}
	got := PlanEndpoints(k, []string{name("public"), name("internal"), name("admin")})
	if want := []string{name("admin"), name("internal")}; !slices.Equal(got, want) {
		t.Errorf("PlanEndpoints = %v, want %v", got, want)
	}
	noCatalog := ks(func(k *c5c3v1alpha1.KeystoneService) { k.Spec.Catalog = nil })
	if got := PlanEndpoints(noCatalog, []string{name("public")}); len(got) != 1 {
		t.Errorf("without a catalog every endpoint goes: %v", got)
	}
}

func TestChildLabelsMapBack(t *testing.T) {
	t.Parallel()
	k := ks(nil)
	child := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Labels: ChildLabels(k)}}
	reqs := ownerOfChild(t.Context(), child)
	if len(reqs) != 1 || reqs[0].Namespace != "team" || reqs[0].Name != "glance" {
		t.Errorf("ownerOfChild = %v", reqs)
	}
	if reqs := ownerOfChild(t.Context(), &c5c3v1alpha1.ControlPlane{}); len(reqs) != 0 {
		t.Errorf("unlabelled object mapped to %v", reqs)
	}
}
