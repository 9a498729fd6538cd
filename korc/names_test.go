package korc

import (
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func TestShortHash_IsFirstEightHexOfSHA256(t *testing.T) {
	t.Parallel()
	// sha256("openstack/workflow") computed independently.
	got := ShortHash("openstack/workflow")
	if len(got) != HashLength || !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(got) {
		t.Fatalf("ShortHash = %q, want 8 lowercase hex digits", got)
	}
	if ShortHash("openstack/workflow") != got {
		t.Fatal("ShortHash is not stable")
	}
	if ShortHash("tenant-a/workflow") == got {
		t.Fatal("same name in another namespace must hash differently")
	}
}

func TestRegistrationChildName_Shape(t *testing.T) {
	t.Parallel()
	got := RegistrationChildName("openstack", "workflow", DiscUser)
	want := regexp.MustCompile(`^workflow-[0-9a-f]{8}-registration-user$`)
	if !want.MatchString(got) {
		t.Fatalf("RegistrationChildName = %q", got)
	}
	if !strings.HasPrefix(got, ChildPrefix("workflow", RegistrationKey("openstack", "workflow"), InfixRegistration)) {
		t.Fatalf("%q does not carry the owner's prefix", got)
	}
	if len(got) != ChildNameLength(len("workflow"), InfixRegistration, DiscUser) {
		t.Fatalf("ChildNameLength disagrees with len(%q)", got)
	}
}

func TestOrderChildName_HashesClusterNamespaceName(t *testing.T) {
	t.Parallel()
	a := OrderChildName(InfixApplicationCredential, "", "tenant-a", "app", DiscMintCloud)
	b := OrderChildName(InfixApplicationCredential, "edge-1", "tenant-a", "app", DiscMintCloud)
	if a == b {
		t.Fatal("orders on different clusters must not share a child name")
	}
	if !strings.HasSuffix(a, "-applicationcredential-mint-cloud") {
		t.Fatalf("unexpected %q", a)
	}
}

func TestRoleSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role   string
		want   string // exact, or prefix when hashed
		hashed bool
	}{
		{role: "service", want: "service"},
		{role: "load-balancer_member", want: "load-balancer-member", hashed: true},
		{role: "Member", want: "member-", hashed: true},
		{role: "member", want: "member"},
		{role: "ÄÖÜ", want: "", hashed: true},
		{role: "a--b", want: "a-b", hashed: true},
	}
	for _, tt := range tests {
		got := RoleSlug(tt.role)
		if !dns1123Label.MatchString(got) {
			t.Errorf("RoleSlug(%q) = %q is not a DNS-1123 label", tt.role, got)
		}
		if !tt.hashed && got != tt.want {
			t.Errorf("RoleSlug(%q) = %q, want %q", tt.role, got, tt.want)
		}
		if tt.hashed {
			wantSuffix := ShortHash(tt.role)
			if !strings.HasSuffix(got, wantSuffix) || !strings.HasPrefix(got, tt.want) {
				t.Errorf("RoleSlug(%q) = %q, want %q + hash %q", tt.role, got, tt.want, wantSuffix)
			}
		}
		if n := len([]rune(tt.role)) + 1 + HashLength; len(got) > n {
			t.Errorf("RoleSlug(%q) is %d bytes, bound %d", tt.role, len(got), n)
		}
	}
	if RoleSlug("Member") == RoleSlug("member") {
		t.Fatal("roles differing in case must get distinct slugs")
	}
}

func TestMaxRegistrationNameLength_AccountsForLongestChild(t *testing.T) {
	t.Parallel()
	base := func() *c5c3v1alpha1.KeystoneService {
		return &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"}}
	}
	catalog := base()
	catalog.Spec.Catalog = &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "image",
		Endpoints: []c5c3v1alpha1.KeystoneServiceEndpointSpec{{Interface: "internal", URL: "http://x"}}}
	if got, want := LongestRegistrationDiscriminator(catalog), "endpoint-internal"; got != want {
		t.Fatalf("longest = %q, want %q", got, want)
	}
	// 253 - len("-12345678-registration-endpoint-internal") = 253 - 40.
	if got := MaxRegistrationNameLength(catalog); got != 213 {
		t.Fatalf("catalog bound = %d, want 213", got)
	}

	account := base()
	account.Spec.Account = &c5c3v1alpha1.KeystoneServiceAccountSpec{Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "p"}}
	if got, want := LongestRegistrationDiscriminator(account), "password-v9999999999999999999"; got != want {
		t.Fatalf("longest = %q, want %q", got, want)
	}
	noRoles := MaxRegistrationNameLength(account)

	role := strings.Repeat("r", 64)
	account.Spec.Account.Roles = []c5c3v1alpha1.KeystoneName{c5c3v1alpha1.KeystoneName(role)}
	if got, want := LongestRegistrationDiscriminator(account), "assign-"+role; got != want {
		t.Fatalf("longest = %q, want %q", got, want)
	}
	withRole := MaxRegistrationNameLength(account)
	if withRole >= noRoles {
		t.Fatalf("roles must tighten the bound: %d >= %d", withRole, noRoles)
	}
	// Every child of a name at the bound fits; one byte more does not.
	account.Name = strings.Repeat("n", withRole)
	for _, d := range RegistrationDiscriminators(account) {
		if n := len(RegistrationChildName("ns", account.Name, d)); n > MaxObjectNameLength {
			t.Fatalf("child %q is %d bytes at the bound", d, n)
		}
	}
	if n := len(RegistrationChildName("ns", account.Name+"n", "assign-"+role)); n <= MaxObjectNameLength {
		t.Fatalf("bound is not tight: %d", n)
	}
}

func TestAdminPlaneNames(t *testing.T) {
	if got := AdminPasswordCloudSecretName("cp"); got != "cp-admin-password-cloud" {
		t.Errorf("AdminPasswordCloudSecretName = %q", got)
	}
	if got := AdminDomainImportName("cp", "Default"); got != "cp-domain-default" {
		t.Errorf("AdminDomainImportName(Default) = %q", got)
	}
}
