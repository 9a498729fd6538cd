package orders

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestClaim(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	creates := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			creates++
			return c.Create(ctx, obj, opts...)
		}}).Build()
	ctx := context.Background()
	a := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "reports"}
	b := Order{Kind: KindKeystoneUser, Namespace: "tenant-b", Name: "reports"}
	edge := Order{Kind: KindKeystoneUser, Cluster: "edge-1", Namespace: "tenant-a", Name: "reports"}
	user := Claim{Kind: "user", Domain: "Default", Name: "reports"}

	if h, err := Acquire(ctx, c, "openstack", user, a); err != nil || h != "" {
		t.Fatalf("the first order must get the claim: %q, %v", h, err)
	}
	if h, err := Acquire(ctx, c, "openstack", user, a); err != nil || h != "" {
		t.Fatalf("the holder must keep its claim on every pass: %q, %v", h, err)
	}
	if creates != 1 {
		t.Fatalf("the holder's second pass must write nothing: %d creates for one claim", creates)
	}
	// Keystone folds case and accents: "Reports" in "default" is the same row.
	folded := Claim{Kind: "user", Domain: "default", Name: "Repörts"}
	// A tenant order elsewhere learns only that the name is taken.
	for _, o := range []Order{b, edge} {
		if h, err := Acquire(ctx, c, "openstack", folded, o); err != nil || h != HolderOutsideNamespace {
			t.Fatalf("%v must read the holder as outside its namespace, got %q, %v", o, h, err)
		}
	}
	platform := Order{Kind: "KeystoneService", Namespace: "openstack", Name: "reports"}
	if h, err := Acquire(ctx, c, "openstack", folded, platform); err != nil || h != "KeystoneUser tenant-a/reports (management cluster)" {
		t.Fatalf("a platform registration must read the holder by name, got %q, %v", h, err)
	}
	// The same name as a project, or in another domain, is another claim.
	for _, other := range []Claim{{Kind: "project", Domain: "Default", Name: "reports"}, {Kind: "user", Domain: "services", Name: "reports"}} {
		if h, err := Acquire(ctx, c, "openstack", other, b); err != nil || h != "" {
			t.Fatalf("claim %+v must be free: %q, %v", other, h, err)
		}
	}
	// Only the holder releases; then the name is free for the next order.
	if err := Release(ctx, c, "openstack", user, b); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "openstack", Name: user.ObjectName()}, &coordinationv1.Lease{}); err != nil {
		t.Fatalf("a non-holder's release must leave the claim: %v", err)
	}
	if err := Release(ctx, c, "openstack", user, a); err != nil {
		t.Fatal(err)
	}
	if h, err := Acquire(ctx, c, "openstack", user, b); err != nil || h != "" {
		t.Fatalf("a released name must be claimable: %q, %v", h, err)
	}
	if got := DescribeHolder("KeystoneProject/edge-1/tenant-b/p"); got != "KeystoneProject tenant-b/p (cluster edge-1)" {
		t.Errorf("DescribeHolder = %q", got)
	}
	if err := Release(ctx, c, "openstack", Claim{Kind: "user", Domain: "x", Name: "never-claimed"}, a); err != nil {
		t.Fatalf("releasing an absent claim is not an error: %v", err)
	}
}

// Two orders that both read no claim race on the create: the loser reads
// the winner as the holder.
func TestClaimRace(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	a := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "reports"}
	b := Order{Kind: KindKeystoneUser, Namespace: "tenant-b", Name: "reports"}
	user := Claim{Kind: "user", Domain: "Default", Name: "reports"}
	raced := false
	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if !raced {
				// a's create lands between b's read and b's create.
				raced = true
				if _, err := Acquire(ctx, c, "openstack", user, a); err != nil {
					return err
				}
			}
			return c.Create(ctx, obj, opts...)
		}}).Build()
	if h, err := Acquire(context.Background(), c, "openstack", user, b); err != nil || h != HolderOutsideNamespace {
		t.Fatalf("the order that lost the create must read the winner, got %q, %v", h, err)
	}
}

func TestHolderSeenBy(t *testing.T) {
	tenantA := Order{Kind: "KeystoneUser", Cluster: ManagementCluster, Namespace: "tenant-a", Name: "me"}
	for _, tc := range []struct {
		id     string
		viewer Order
		want   string
	}{
		{"KeystoneUser//tenant-a/other", tenantA, "KeystoneUser tenant-a/other (management cluster)"},
		{"KeystoneUser//tenant-b/other", tenantA, HolderOutsideNamespace},
		{"KeystoneService//openstack/glance", tenantA, HolderOutsideNamespace},
		{"KeystoneUser/edge-1/tenant-a/other", tenantA, HolderOutsideNamespace},
		{"garbled", tenantA, HolderOutsideNamespace},
		{"KeystoneUser//tenant-b/other", Order{Kind: "KeystoneService", Namespace: "openstack", Name: "glance"},
			"KeystoneUser tenant-b/other (management cluster)"},
	} {
		if got := HolderSeenBy(tc.id, tc.viewer); got != tc.want {
			t.Errorf("HolderSeenBy(%q, %s/%s) = %q, want %q", tc.id, tc.viewer.Kind, tc.viewer.Namespace, got, tc.want)
		}
	}
}

// TestClaimFullName: the claim Lease records the folded domain and name, a
// Lease recording another name under the claim's object name is refused
// (never shared on a hash), and a pre-upgrade Lease still holds its name.
func TestClaimFullName(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "reports"}
	b := Order{Kind: KindKeystoneUser, Namespace: "tenant-b", Name: "reports"}
	user := Claim{Kind: "user", Domain: "Default", Name: "Reports"}
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	if h, err := Acquire(ctx, c, "openstack", user, a); err != nil || h != "" {
		t.Fatalf("first claim: %q, %v", h, err)
	}
	var l coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: "openstack", Name: user.ObjectName()}, &l); err != nil {
		t.Fatal(err)
	}
	if l.Annotations[AnnotationClaimDomain] != "default" || l.Annotations[AnnotationClaimName] != "reports" {
		t.Fatalf("the Lease does not record the folded name: %v", l.Annotations)
	}
	l.Annotations[AnnotationClaimName] = "someone-else"
	if err := c.Update(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if h, err := Acquire(ctx, c, "openstack", user, b); err == nil {
		t.Fatalf("a Lease recording another name was shared: holder %q", h)
	}

	legacy := Claim{Kind: "user", Domain: "Default", Name: "old-holder"}
	holder := holderIdentity(a)
	if err := c.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: legacy.legacyObjectName()},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}); err != nil {
		t.Fatal(err)
	}
	if h, err := Acquire(ctx, c, "openstack", legacy, b); err != nil || h != HolderOutsideNamespace {
		t.Fatalf("a pre-upgrade claim must still hold its name: %q, %v", h, err)
	}
	if err := Release(ctx, c, "openstack", legacy, a); err != nil {
		t.Fatal(err)
	}
	if h, err := Acquire(ctx, c, "openstack", legacy, b); err != nil || h != "" {
		t.Fatalf("after its holder released it the name must be free: %q, %v", h, err)
	}
}
