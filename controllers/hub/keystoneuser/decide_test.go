package keystoneuser

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/generations"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

func testPlane(adminUser, adminDomain string) *c5c3v1alpha1.ControlPlane {
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	cp.Spec.KORC.AdminCredential.UserName = c5c3v1alpha1.OpenStackName(adminUser)
	cp.Spec.KORC.AdminCredential.DomainName = c5c3v1alpha1.KeystoneName(adminDomain)
	return cp
}

func testUser(name, userName, domain string) *c5c3v1alpha1.KeystoneUser {
	u := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tenant-a"}}
	u.Spec.UserName = c5c3v1alpha1.OpenStackName(userName)
	u.Spec.DomainName = c5c3v1alpha1.KeystoneName(domain)
	return u
}

func TestEffectiveNamesAndAdminIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		user                     *c5c3v1alpha1.KeystoneUser
		plane                    *c5c3v1alpha1.ControlPlane
		wantUser, wantDomain     string
		wantAdminDomain, wantAdm bool
	}{
		{"defaults", testUser("workflow", "", ""), testPlane("", ""), "workflow", "Default", true, false},
		{"explicit names", testUser("w", "svc", "Other"), testPlane("", ""), "svc", "Other", false, false},
		{"domain folds case", testUser("w", "", "default"), testPlane("", ""), "w", "default", true, false},
		{"admin by metadata.name", testUser("admin", "", ""), testPlane("", ""), "admin", "Default", true, true},
		{"admin folded", testUser("x", "ADMIN", "DEFAULT"), testPlane("", ""), "ADMIN", "DEFAULT", true, true},
		{"custom admin identity", testUser("x", "root", ""), testPlane("root", "Ops"), "root", "Ops", true, true},
		{"admin name in another domain", testUser("x", "admin", "Other"), testPlane("", ""), "admin", "Other", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := EffectiveUserName(tc.user); got != tc.wantUser {
				t.Errorf("EffectiveUserName = %q, want %q", got, tc.wantUser)
			}
			if got := EffectiveDomain(tc.user, tc.plane); got != tc.wantDomain {
				t.Errorf("EffectiveDomain = %q, want %q", got, tc.wantDomain)
			}
			if got := UsesAdminDomain(tc.user, tc.plane); got != tc.wantAdminDomain {
				t.Errorf("UsesAdminDomain = %t, want %t", got, tc.wantAdminDomain)
			}
			if got := IsAdminIdentity(tc.user, tc.plane); got != tc.wantAdm {
				t.Errorf("IsAdminIdentity = %t, want %t", got, tc.wantAdm)
			}
		})
	}
}

func TestSpecGenerationAndInterval(t *testing.T) {
	t.Parallel()
	u := testUser("w", "", "")
	if g := SpecGeneration(u); g != 1 {
		t.Errorf("SpecGeneration of 0 = %d, want the default 1", g)
	}
	u.Spec.PasswordGeneration = 4
	if g := SpecGeneration(u); g != 4 {
		t.Errorf("SpecGeneration = %d, want 4", g)
	}
	if d := Interval(u); d != 0 {
		t.Errorf("Interval without rotation = %s, want 0", d)
	}
	u.Spec.Rotation = &c5c3v1alpha1.UserPasswordRotationSpec{Interval: &metav1.Duration{Duration: time.Hour}}
	if d := Interval(u); d != time.Hour {
		t.Errorf("Interval = %s, want 1h", d)
	}
}

func TestNextRotation(t *testing.T) {
	t.Parallel()
	last := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if n := NextRotation(nil, time.Hour); n != nil {
		t.Errorf("no last rotation: %v, want nil", n)
	}
	if n := NextRotation(&last, 0); n != nil {
		t.Errorf("schedule off: %v, want nil", n)
	}
	if n := NextRotation(&last, time.Hour); n == nil || !n.Time.Equal(last.Add(time.Hour)) {
		t.Errorf("NextRotation = %v, want last+1h", n)
	}
}

func gens(g ...int64) map[int64]generations.Generation {
	m := map[int64]generations.Generation{}
	for _, x := range g {
		m[x] = generations.Generation{}
	}
	return m
}

func TestPlanRotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   RotationInputs
		want RotationPlan
	}{
		{"first generation", RotationInputs{Existing: gens(), Spec: 1},
			RotationPlan{Create: 1, First: true, Desired: 1}},
		{"first generation at a raised spec", RotationInputs{Existing: gens(), Spec: 3},
			RotationPlan{Create: 3, First: true, Desired: 3}},
		{"created, not applied", RotationInputs{Existing: gens(1), Spec: 1},
			RotationPlan{Desired: 1}},
		{"applied", RotationInputs{Existing: gens(1), Applied: 1, Spec: 1, Status: 1},
			RotationPlan{Desired: 1, Deliverable: 1}},
		{"spec raised", RotationInputs{Existing: gens(1), Applied: 1, Spec: 2, Status: 1},
			RotationPlan{Create: 2, Raised: true, Desired: 2, Deliverable: 1}},
		{"spec raised by several jumps straight there", RotationInputs{Existing: gens(1), Applied: 1, Spec: 5, Status: 1},
			RotationPlan{Create: 5, Raised: true, Desired: 5, Deliverable: 1}},
		{"spec raise is never held", RotationInputs{Existing: gens(1), Applied: 1, Spec: 2, Status: 1, Due: true, Held: true},
			RotationPlan{Create: 2, Raised: true, Desired: 2, Deliverable: 1}},
		{"rotation under way", RotationInputs{Existing: gens(1, 2), Applied: 1, Spec: 2, Status: 1},
			RotationPlan{Desired: 2, Deliverable: 1}},
		{"new generation applied, old superseded", RotationInputs{Existing: gens(1, 2), Applied: 2, Spec: 2, Status: 1},
			RotationPlan{Desired: 2, Deliverable: 2, Delete: []int64{1}}},
		{"schedule due", RotationInputs{Existing: gens(2), Applied: 2, Spec: 1, Status: 2, Due: true},
			RotationPlan{Create: 3, Scheduled: true, Desired: 3, Deliverable: 2}},
		{"schedule due but held", RotationInputs{Existing: gens(2), Applied: 2, Spec: 1, Status: 2, Due: true, Held: true},
			RotationPlan{Desired: 2, Deliverable: 2, HeldSchedule: true}},
		{"schedule due during a rotation creates nothing more", RotationInputs{Existing: gens(2, 3), Applied: 2, Spec: 1, Status: 2, Due: true},
			RotationPlan{Desired: 3, Deliverable: 2}},
		{"spec raise withheld by the budget: nothing created, the applied generation stays",
			RotationInputs{Existing: gens(1), Applied: 1, Spec: 2, Status: 1, BudgetBlocked: true},
			RotationPlan{Desired: 1, Deliverable: 1, BudgetHeld: true}},
		{"schedule due withheld by the budget", RotationInputs{Existing: gens(2), Applied: 2, Spec: 1, Status: 2, Due: true, BudgetBlocked: true},
			RotationPlan{Desired: 2, Deliverable: 2, BudgetHeld: true}},
		{"the budget withholds the first generation", RotationInputs{Existing: gens(), Spec: 1, BudgetBlocked: true},
			RotationPlan{BudgetHeld: true}},
		{"the budget never withholds a recovery", RotationInputs{Existing: gens(), Applied: 1, Spec: 1, Status: 1, BudgetBlocked: true},
			RotationPlan{Create: 2, Recovery: true, Desired: 2}},
		{"schedule due before the first delivery creates nothing", RotationInputs{Existing: gens(1), Applied: 1, Spec: 1, Status: 0, Due: true},
			RotationPlan{Desired: 1, Deliverable: 1}},
		// Breaker H1: the applied generation's Secret deleted out of band is
		// never re-created under its name; a real rotation follows.
		{"applied generation lost: a new generation, never the same name", RotationInputs{Existing: gens(), Applied: 1, Spec: 1, Status: 1},
			RotationPlan{Create: 2, Recovery: true, Desired: 2}},
		{"applied generation lost with an older one left", RotationInputs{Existing: gens(1), Applied: 2, Spec: 2, Status: 2},
			RotationPlan{Create: 3, Recovery: true, Desired: 3, Delete: []int64{1}}},
		{"applied generation lost: above spec and status", RotationInputs{Existing: gens(), Applied: 2, Spec: 5, Status: 3},
			RotationPlan{Create: 5, Recovery: true, Desired: 5}},
		{"applied generation lost: status ahead of applied", RotationInputs{Existing: gens(), Applied: 2, Spec: 1, Status: 4},
			RotationPlan{Create: 5, Recovery: true, Desired: 5}},
		{"applied generation lost during a rotation: the newer one goes on", RotationInputs{Existing: gens(3), Applied: 2, Spec: 3, Status: 2},
			RotationPlan{Desired: 3}},
		// Breaker H4: no create or switch while the store is not Ready.
		{"store blocked: a raise waits on the applied generation", RotationInputs{Existing: gens(1), Applied: 1, Spec: 2, Status: 1, StoreBlocked: true},
			RotationPlan{Desired: 1, Deliverable: 1, StoreHeld: true}},
		{"store blocked: a created generation is not switched to", RotationInputs{Existing: gens(1, 2), Applied: 1, Spec: 2, Status: 1, StoreBlocked: true},
			RotationPlan{Desired: 1, Deliverable: 1, StoreHeld: true}},
		{"store blocked: a due schedule waits", RotationInputs{Existing: gens(2), Applied: 2, Spec: 1, Status: 2, Due: true, StoreBlocked: true},
			RotationPlan{Desired: 2, Deliverable: 2, StoreHeld: true}},
		{"store blocked: no first generation", RotationInputs{Existing: gens(), Spec: 1, StoreBlocked: true},
			RotationPlan{StoreHeld: true}},
		{"store blocked: a lost applied generation is not replaced", RotationInputs{Existing: gens(), Applied: 1, Spec: 1, Status: 1, StoreBlocked: true},
			RotationPlan{StoreHeld: true}},
		{"store blocked: an applied generation is still deliverable", RotationInputs{Existing: gens(1, 2), Applied: 2, Spec: 2, Status: 1, StoreBlocked: true},
			RotationPlan{Desired: 2, Deliverable: 2, Delete: []int64{1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := PlanRotation(tc.in)
			if got.Create != tc.want.Create || got.Scheduled != tc.want.Scheduled || got.Raised != tc.want.Raised ||
				got.Desired != tc.want.Desired || got.Deliverable != tc.want.Deliverable || got.HeldSchedule != tc.want.HeldSchedule ||
				got.Recovery != tc.want.Recovery || got.StoreHeld != tc.want.StoreHeld ||
				got.First != tc.want.First || got.BudgetHeld != tc.want.BudgetHeld ||
				!slices.Equal(got.Delete, tc.want.Delete) {
				t.Errorf("PlanRotation = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestScheduleHeldBy(t *testing.T) {
	t.Parallel()
	now := metav1.Now()
	ac := func(name, user string, deleting bool) c5c3v1alpha1.KeystoneApplicationCredential {
		a := c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: name}}
		a.Spec.UserRef.Name = user
		if deleting {
			a.DeletionTimestamp = &now
		}
		return a
	}
	tests := []struct {
		name string
		acs  []c5c3v1alpha1.KeystoneApplicationCredential
		want []string
	}{
		{"none", nil, nil},
		{"live credential of the user does not hold", []c5c3v1alpha1.KeystoneApplicationCredential{ac("a", "u", false)}, nil},
		{"deleting credential of another user", []c5c3v1alpha1.KeystoneApplicationCredential{ac("a", "v", true)}, nil},
		{"deleting credential of the user", []c5c3v1alpha1.KeystoneApplicationCredential{ac("a", "u", true), ac("b", "u", false)}, []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ScheduleHeldBy("u", tc.acs); !slices.Equal(got, tc.want) {
				t.Errorf("ScheduleHeldBy = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeliveredCloud(t *testing.T) {
	t.Parallel()
	managed := testPlane("", "")
	external := testPlane("", "")
	external.Spec.Services.Keystone = &c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
		External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "https://keystone.example/v3", EndpointType: "internal"}}
	tests := []struct {
		name          string
		cp            *c5c3v1alpha1.ControlPlane
		cluster       string
		scope         ProjectScope
		wantInterface string
	}{
		{"managed plane, management cluster", managed, orders.ManagementCluster, ProjectScope{}, cloudsyaml.InterfaceInternal},
		{"external plane, management cluster", external, orders.ManagementCluster, ProjectScope{}, "internal"},
		{"target cluster", managed, "edge-1", ProjectScope{}, cloudsyaml.InterfacePublic},
		{"scoped", managed, orders.ManagementCluster, ProjectScope{Name: "p", Domain: "D"}, cloudsyaml.InterfaceInternal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DeliveredCloud(tc.cp, tc.cluster, "https://k/v3", "u", "Default", tc.scope, []byte("pw"))
			a := cloudsyaml.AuthOf(c)
			if a.AuthURL != "https://k/v3" || a.Username != "u" || a.Password != "pw" || a.UserDomainName != "Default" ||
				a.ProjectName != tc.scope.Name || a.ProjectDomainName != tc.scope.Domain || c.Interface != tc.wantInterface ||
				c.RegionName != "RegionOne" || c.CACertFile != "" || c.IdentityAPIVersion != cloudsyaml.IdentityAPIVersion3 {
				t.Errorf("DeliveredCloud = %+v", c)
			}
			if err := cloudsyaml.Validate(c); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestScopeOf(t *testing.T) {
	t.Parallel()
	cp := testPlane("", "Admins")
	if s := ScopeOf(nil, cp); s != (ProjectScope{}) {
		t.Errorf("no project: %+v", s)
	}
	p := &c5c3v1alpha1.KeystoneProject{}
	p.Status.ProjectName = "proj"
	if s := ScopeOf(p, cp); s != (ProjectScope{Name: "proj", Domain: "Admins"}) {
		t.Errorf("project in the admin domain: %+v", s)
	}
	p.Spec.DomainName = "Other"
	if s := ScopeOf(p, cp); s != (ProjectScope{Name: "proj", Domain: "Other"}) {
		t.Errorf("project in its own domain: %+v", s)
	}
}

func TestBackupPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ns, prefix, want, wantErr string
	}{
		{"openstack", "workflow-1a2b3c4d-user", "openstack/keystone/openstack/workflow-1a2b3c4d-user/service-accounts/password", ""},
		{"", "workflow-1a2b3c4d-user", "", "invalid"},
		{"openstack", "..", "", "invalid"},
		{"openstack", "a/b-user", "", "invalid"},
		{"Openstack", "w-user", "", "invalid"},
		{"openstack", "workflow-1a2b3c4d-project", "", "does not end in -user"},
	}
	for _, tc := range tests {
		got, err := BackupPath(tc.ns, tc.prefix)
		if got != tc.want || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("BackupPath(%q, %q) = %q, %v; want %q, %q", tc.ns, tc.prefix, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRequeue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }
	tests := []struct {
		name        string
		ready       bool
		next        *metav1.Time
		target      bool
		notReadyFor time.Duration
		want        time.Duration
	}{
		{"not ready", false, nil, false, 0, NotReadyRequeue},
		{"not ready for a while backs off", false, nil, false, time.Minute, 30 * time.Second},
		{"not ready for long waits the cap", false, nil, false, time.Hour, orders.NotReadyCap},
		{"not ready ignores the schedule", false, at(time.Hour), false, 0, NotReadyRequeue},
		{"ready", true, nil, false, time.Hour, ReadyResync},
		{"ready, rotation due soon", true, at(time.Minute), false, 0, time.Minute},
		{"ready, rotation overdue", true, at(-time.Minute), false, 0, time.Second},
		{"ready, rotation far away", true, at(48 * time.Hour), false, 0, ReadyResync},
		{"target cluster", true, nil, true, 0, min(ReadyResync, orders.RequeueTarget)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Requeue(tc.ready, tc.next, now, tc.target, tc.notReadyFor); got != tc.want {
				t.Errorf("Requeue = %s, want %s", got, tc.want)
			}
		})
	}
}
