package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// plane is ControlPlane openstack/cp with the given assignments and an
// AdminCredentialReady condition of status st ("" for none).
func plane(st metav1.ConditionStatus, as ...c5c3v1alpha1.NamespaceAssignment) *c5c3v1alpha1.ControlPlane {
	p := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	p.Spec.NamespaceAssignments = as
	if st != "" {
		p.Status.Conditions = []metav1.Condition{{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: st, Reason: c5c3v1alpha1.ReasonWaitingForCloudsYaml}}
	}
	return p
}

func assign(cluster, ns string, roles ...c5c3v1alpha1.KeystoneName) c5c3v1alpha1.NamespaceAssignment {
	return c5c3v1alpha1.NamespaceAssignment{Cluster: cluster, Namespace: ns, AllowedRoles: roles}
}

func TestAssigned(t *testing.T) {
	t.Parallel()
	p := plane(metav1.ConditionTrue, assign("", "tenant-a", "member"), assign("edge-1", "tenant-a", "reader"), assign("edge-1", "tenant-b"))
	tests := []struct {
		name              string
		cp                *c5c3v1alpha1.ControlPlane
		cluster, ns       string
		wantOK            bool
		wantFirstRole     c5c3v1alpha1.KeystoneName
		wantEntryCluster  string
		wantEntryNamspace string
	}{
		{"management cluster entry", p, "", "tenant-a", true, "member", "", "tenant-a"},
		{"target cluster entry of the same namespace", p, "edge-1", "tenant-a", true, "reader", "edge-1", "tenant-a"},
		{"entry without roles", p, "edge-1", "tenant-b", true, "", "edge-1", "tenant-b"},
		{"namespace assigned on a target cluster only", p, "", "tenant-b", false, "", "", ""},
		{"other cluster", p, "edge-2", "tenant-a", false, "", "", ""},
		{"cluster compared exactly", p, "EDGE-1", "tenant-a", false, "", "", ""},
		{"unassigned namespace", p, "", "tenant-c", false, "", "", ""},
		{"no plane", nil, "", "tenant-a", false, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, ok := Assigned(tc.cp, tc.cluster, tc.ns)
			if ok != tc.wantOK {
				t.Fatalf("Assigned ok = %t, want %t", ok, tc.wantOK)
			}
			if !ok {
				if a != nil {
					t.Fatalf("Assigned = %+v without ok", a)
				}
				return
			}
			if a.Cluster != tc.wantEntryCluster || a.Namespace != tc.wantEntryNamspace {
				t.Errorf("entry = %q/%q, want %q/%q", a.Cluster, a.Namespace, tc.wantEntryCluster, tc.wantEntryNamspace)
			}
			var first c5c3v1alpha1.KeystoneName
			if len(a.AllowedRoles) > 0 {
				first = a.AllowedRoles[0]
			}
			if first != tc.wantFirstRole {
				t.Errorf("first allowed role = %q, want %q", first, tc.wantFirstRole)
			}
		})
	}
}

func TestRoleAllowed(t *testing.T) {
	t.Parallel()
	a := assign("", "tenant-a", "member", "Load-Balancer_Member")
	tests := []struct {
		name string
		a    *c5c3v1alpha1.NamespaceAssignment
		role string
		want bool
	}{
		{"listed", &a, "member", true},
		{"case folded like general_ci", &a, "Member", true},
		{"case folded, punctuation kept", &a, "load-balancer_member", true},
		{"not listed", &a, "admin", false},
		{"prefix is not a match", &a, "mem", false},
		{"trailing space refused (general_ci would match)", &a, "member ", false},
		{"accent refused (general_ci would match)", &a, "mémber", false},
		{"empty list allows none", &c5c3v1alpha1.NamespaceAssignment{Namespace: "x"}, "member", false},
		{"no entry allows none", nil, "member", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := RoleAllowed(tc.a, tc.role); got != tc.want {
				t.Errorf("RoleAllowed(%q) = %t, want %t", tc.role, got, tc.want)
			}
		})
	}
}

func TestGateOf(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("c", 64)
	max := strings.Repeat("c", 63)
	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}
	ready := plane(metav1.ConditionTrue, assign("", "tenant-a"), assign("edge-1", "tenant-a"), assign(max, "tenant-a"))
	notReady := plane(metav1.ConditionFalse, assign("", "tenant-a"))
	noCond := plane("", assign("", "tenant-a"))
	order := func(cluster string) Order {
		return Order{Kind: KindKeystoneApplicationCredential, Cluster: cluster, Namespace: "tenant-a", Name: "appcred"}
	}
	tests := []struct {
		name         string
		o            Order
		cp           *c5c3v1alpha1.ControlPlane
		want         string
		wantInMsg    string
		wantNotInMsg string
	}{
		{"cluster name of 64 characters, before everything", order(long), nil, c5c3v1alpha1.ReasonClusterNameTooLong, "re-register the cluster", ""},
		{"cluster name of 64 characters with a ready plane", order(long), ready, c5c3v1alpha1.ReasonClusterNameTooLong, "64 characters", ""},
		{"cluster name of 63 characters is fine", order(max), ready, "", "", ""},
		{"management order, plane missing", order(""), nil, c5c3v1alpha1.ReasonControlPlaneNotFound, "openstack/cp does not exist", ""},
		{"target order, plane missing reads NamespaceNotAssigned", order("edge-1"), nil, c5c3v1alpha1.ReasonNamespaceNotAssigned, `{cluster: "edge-1", namespace: "tenant-a", allowedRoles: [...]}`, ""},
		{"management order, namespace unassigned", order(""), plane(metav1.ConditionTrue, assign("edge-1", "tenant-a")), c5c3v1alpha1.ReasonNamespaceNotAssigned, "on the management cluster; the order is frozen", "or does not exist"},
		{"target order, only the management entry", order("edge-2"), ready, c5c3v1alpha1.ReasonNamespaceNotAssigned, `cluster "edge-2"`, ""},
		{"consent before admin credential", order("edge-2"), notReady, c5c3v1alpha1.ReasonNamespaceNotAssigned, "spec.namespaceAssignments", ""},
		{"admin credential not ready", order(""), notReady, c5c3v1alpha1.ReasonWaitingForAdminCredential, "(WaitingForCloudsYaml)", ""},
		{"admin credential not reported", order(""), noCond, c5c3v1alpha1.ReasonWaitingForAdminCredential, "not AdminCredentialReady", "("},
		{"management order passes", order(""), ready, "", "", ""},
		{"target order passes", order("edge-1"), ready, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := GateOf(tc.o, ref, tc.cp)
			if g.Reason != tc.want {
				t.Fatalf("GateOf = %q (%s), want %q", g.Reason, g.Message, tc.want)
			}
			if g.Passed() != (tc.want == "") {
				t.Errorf("Passed = %t for reason %q", g.Passed(), g.Reason)
			}
			if g.Frozen() != (tc.want == c5c3v1alpha1.ReasonNamespaceNotAssigned) {
				t.Errorf("Frozen = %t for reason %q", g.Frozen(), g.Reason)
			}
			if tc.want == "" && g.Message != "" {
				t.Errorf("open gate carries message %q", g.Message)
			}
			if !strings.Contains(g.Message, tc.wantInMsg) {
				t.Errorf("message %q does not contain %q", g.Message, tc.wantInMsg)
			}
			if tc.wantNotInMsg != "" && strings.Contains(g.Message, tc.wantNotInMsg) {
				t.Errorf("message %q contains %q", g.Message, tc.wantNotInMsg)
			}
		})
	}
}

func TestGateOf_RefDefaultsToOrderNamespace(t *testing.T) {
	t.Parallel()
	o := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "u"}
	g := GateOf(o, c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp"}, nil)
	if g.Reason != c5c3v1alpha1.ReasonControlPlaneNotFound || !strings.Contains(g.Message, "tenant-a/cp") {
		t.Errorf("GateOf = %q (%s), want ControlPlaneNotFound naming tenant-a/cp", g.Reason, g.Message)
	}
}

func TestPlaneKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref              c5c3v1alpha1.ControlPlaneRefSpec
		wantNS, wantName string
	}{
		{c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}, "openstack", "cp"},
		{c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp"}, "tenant-a", "cp"},
	}
	for _, tc := range tests {
		if ns, n := PlaneKey(tc.ref, "tenant-a"); ns != tc.wantNS || n != tc.wantName {
			t.Errorf("PlaneKey(%+v) = %s/%s, want %s/%s", tc.ref, ns, n, tc.wantNS, tc.wantName)
		}
	}
}
