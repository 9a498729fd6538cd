package keystoneservice_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// TestAccountClaimIsTheKeystoneUsersClaim: a KeystoneService account and a
// KeystoneUser naming one user in one domain (case-folded as Keystone
// compares) contend for one claim object.
func TestAccountClaimIsTheKeystoneUsersClaim(t *testing.T) {
	if keystoneservice.UserClaimKind != keystoneuser.ClaimKind {
		t.Fatalf("claim kinds differ: %q vs %q", keystoneservice.UserClaimKind, keystoneuser.ClaimKind)
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "tenant-a"},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{UserName: "Shared-User"}}}
	claim, ok := keystoneservice.AccountClaim(ks, cp)
	if !ok {
		t.Fatal("no claim for an account block")
	}
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "u", Namespace: "tenant-b"},
		Spec: c5c3v1alpha1.KeystoneUserSpec{UserName: "shared-user"}}
	want := orders.Claim{Kind: keystoneuser.ClaimKind, Domain: keystoneuser.EffectiveDomain(ku, cp), Name: keystoneuser.EffectiveUserName(ku)}
	if claim.ObjectName() != want.ObjectName() {
		t.Errorf("claim objects differ: %s vs %s", claim.ObjectName(), want.ObjectName())
	}
	// With the plane gone the teardown still finds the claim.
	if gone, _ := keystoneservice.AccountClaim(ks, nil); gone.ObjectName() != claim.ObjectName() {
		t.Errorf("claim without the plane %s, want %s", gone.ObjectName(), claim.ObjectName())
	}
	ks.Spec.Account = nil
	if _, ok := keystoneservice.AccountClaim(ks, cp); ok {
		t.Error("a claim without an account block")
	}
}

// TestAccountProjectClaimIsTheKeystoneProjectsClaim: a registration that
// creates its project and a KeystoneProject naming that project in one
// domain contend for one claim object; a referenced project takes none.
func TestAccountProjectClaimIsTheKeystoneProjectsClaim(t *testing.T) {
	if keystoneservice.ProjectClaimKind != keystoneproject.ClaimKind {
		t.Fatalf("claim kinds differ: %q vs %q", keystoneservice.ProjectClaimKind, keystoneproject.ClaimKind)
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"}}
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "tenant-a"},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{UserName: "svc",
			Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "Shared-Project", Create: true}}}}
	claim, ok := keystoneservice.AccountProjectClaim(ks, cp)
	if !ok {
		t.Fatal("no project claim for project.create: true")
	}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "tenant-b"},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ProjectName: "shared-project"}}
	want := orders.Claim{Kind: keystoneproject.ClaimKind, Domain: keystoneproject.EffectiveDomain(kp, cp), Name: keystoneproject.EffectiveProjectName(kp)}
	if claim.ObjectName() != want.ObjectName() {
		t.Errorf("claim objects differ: %s vs %s", claim.ObjectName(), want.ObjectName())
	}
	if gone, _ := keystoneservice.AccountProjectClaim(ks, nil); gone.ObjectName() != claim.ObjectName() {
		t.Errorf("claim without the plane %s, want %s", gone.ObjectName(), claim.ObjectName())
	}
	if user, _ := keystoneservice.AccountClaim(ks, cp); user.ObjectName() == claim.ObjectName() {
		t.Error("the user and project claims share one object")
	}
	ks.Spec.Account.Project.Create = false
	if _, ok := keystoneservice.AccountProjectClaim(ks, cp); ok {
		t.Error("a project claim for a referenced project")
	}
}
