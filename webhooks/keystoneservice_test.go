package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

func ksFixture(name string) *v1.KeystoneService {
	return &v1.KeystoneService{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "openstack"},
		Spec: v1.KeystoneServiceSpec{
			ControlPlaneRef: v1.ControlPlaneRefSpec{Name: "cp"},
			Catalog:         &v1.KeystoneServiceCatalogSpec{ServiceType: "workflow"},
			Account: &v1.KeystoneServiceAccountSpec{
				Project: v1.ServiceAccountProjectSpec{Name: "service-workflow", Create: true},
				Roles:   []v1.KeystoneName{"service"},
			},
		},
	}
}

func TestKeystoneServiceDefaulter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*v1.KeystoneService)
		want   v1.OpenStackName
	}{
		{name: "materializes metadata.name", mutate: func(*v1.KeystoneService) {}, want: "workflow"},
		{name: "keeps an explicit userName", mutate: func(k *v1.KeystoneService) { k.Spec.Account.UserName = "svc" }, want: "svc"},
		{name: "leaves a generated name to the reconciler", mutate: func(k *v1.KeystoneService) { k.Name = ""; k.GenerateName = "wf-" }, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := ksFixture("workflow")
			tt.mutate(k)
			if err := (KeystoneServiceDefaulter{}).Default(context.Background(), k); err != nil {
				t.Fatal(err)
			}
			if k.Spec.Account.UserName != tt.want {
				t.Fatalf("userName = %q, want %q", k.Spec.Account.UserName, tt.want)
			}
		})
	}
	k := ksFixture("workflow")
	k.Spec.Account = nil
	if err := (KeystoneServiceDefaulter{}).Default(context.Background(), k); err != nil || k.Spec.Account != nil {
		t.Fatalf("a catalog-only CR must stay untouched: %v %+v", err, k.Spec.Account)
	}
}

func TestKeystoneServiceValidator_Update(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		old     func(*v1.KeystoneService)
		new     func(*v1.KeystoneService)
		wantErr string // empty: admitted
	}{
		{
			name: "materializing the userName fallback is the benign transition",
			old:  func(*v1.KeystoneService) {},
			new:  func(k *v1.KeystoneService) { k.Spec.Account.UserName = "workflow" },
		},
		{
			name:    "renaming the user by setting it on a fallback CR",
			old:     func(*v1.KeystoneService) {},
			new:     func(k *v1.KeystoneService) { k.Spec.Account.UserName = "other" },
			wantErr: fmt.Sprintf(MsgUserNameEffective, "workflow", "other"),
		},
		{
			name:    "removing an explicit userName that differs from metadata.name",
			old:     func(k *v1.KeystoneService) { k.Spec.Account.UserName = "svc" },
			new:     func(*v1.KeystoneService) {},
			wantErr: fmt.Sprintf(MsgUserNameEffective, "svc", "workflow"),
		},
		{
			name: "serviceName set to metadata.name keeps the effective value",
			old:  func(*v1.KeystoneService) {},
			new:  func(k *v1.KeystoneService) { k.Spec.Catalog.ServiceName = "workflow" },
		},
		{
			name:    "serviceName set on a fallback CR is a rename",
			old:     func(*v1.KeystoneService) {},
			new:     func(k *v1.KeystoneService) { k.Spec.Catalog.ServiceName = "renamed" },
			wantErr: fmt.Sprintf(MsgServiceNameEffective, "workflow", "renamed"),
		},
		{
			name: "removing the catalog block is its teardown",
			old:  func(k *v1.KeystoneService) { k.Spec.Catalog.ServiceName = "x" },
			new:  func(k *v1.KeystoneService) { k.Spec.Catalog = nil },
		},
		{
			name: "explicit namespace naming the resolved one is admitted",
			old:  func(*v1.KeystoneService) {},
			new:  func(k *v1.KeystoneService) { k.Spec.ControlPlaneRef.Namespace = "openstack" },
		},
		{
			name:    "explicit namespace naming another one",
			old:     func(*v1.KeystoneService) {},
			new:     func(k *v1.KeystoneService) { k.Spec.ControlPlaneRef.Namespace = "elsewhere" },
			wantErr: MsgControlPlaneNamespaceResolved,
		},
		{
			name:    "removing an explicit foreign namespace",
			old:     func(k *v1.KeystoneService) { k.Spec.ControlPlaneRef.Namespace = "elsewhere" },
			new:     func(*v1.KeystoneService) {},
			wantErr: MsgControlPlaneNamespaceResolved,
		},
		{
			name: "adding a long role to a long name breaks the child bound",
			old:  func(k *v1.KeystoneService) { k.Name = strings.Repeat("n", 160) },
			new: func(k *v1.KeystoneService) {
				k.Name = strings.Repeat("n", 160)
				k.Spec.Account.Roles = []v1.KeystoneName{v1.KeystoneName(strings.Repeat("r", 64))}
			},
			wantErr: "metadata.name must be at most 159 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			old, nu := ksFixture("workflow"), ksFixture("workflow")
			tt.old(old)
			tt.new(nu)
			_, err := (KeystoneServiceValidator{}).ValidateUpdate(context.Background(), old, nu)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("want admitted, got %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("want %q, got %v", tt.wantErr, err)
			}
		})
	}
}

func TestKeystoneServiceValidator_UpdateWithoutSpecChangeIsAdmitted(t *testing.T) {
	t.Parallel()
	// A CR over today's bound (admitted under an older rule set) must still
	// lose its finalizer.
	old := ksFixture(strings.Repeat("n", 250))
	nu := old.DeepCopy()
	nu.Finalizers = nil
	if _, err := (KeystoneServiceValidator{}).ValidateUpdate(context.Background(), old, nu); err != nil {
		t.Fatal(err)
	}
}

func TestKeystoneServiceValidator_Create(t *testing.T) {
	t.Parallel()
	ok := ksFixture("workflow")
	if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), ok); err != nil {
		t.Fatalf("reference example rejected: %v", err)
	}

	// The label-value bound binds: with the widest discriminators (64-byte
	// roles) the child-name bound is far above 63.
	widest := ksFixture("x")
	widest.Spec.Account.Roles = []v1.KeystoneName{v1.KeystoneName(strings.Repeat("R", 64))}
	widest.Spec.Catalog.Endpoints = []v1.KeystoneServiceEndpointSpec{{Interface: "internal", URL: "https://a"}}
	if got := korc.MaxRegistrationNameLength(widest); got <= v1.MaxOwnerNameLength {
		t.Fatalf("MaxRegistrationNameLength(widest) = %d: the 253-byte bound would bind below 63", got)
	}
	catalogOnly := ksFixture("x")
	catalogOnly.Spec.Account = nil
	if MaxDeliveryNameLength != 61 {
		t.Fatalf("MaxDeliveryNameLength = %d, want 128 - 36 - 31 = 61", MaxDeliveryNameLength)
	}
	for _, tc := range []struct {
		k     *v1.KeystoneService
		bound int
		msg   func(n int) string
	}{
		{ksFixture("x"), MaxDeliveryNameLength, func(n int) string {
			return fmt.Sprintf(MsgNameDeliveryTooLong, MaxDeliveryNameLength, n, 36+n+31)
		}},
		{widest, MaxDeliveryNameLength, func(n int) string {
			return fmt.Sprintf(MsgNameDeliveryTooLong, MaxDeliveryNameLength, n, 36+n+31)
		}},
		{catalogOnly, v1.MaxOwnerNameLength, func(n int) string { return fmt.Sprintf(MsgNameNotLabelValue, n) }},
	} {
		k := tc.k
		if got := NameBound(k); got != tc.bound {
			t.Fatalf("NameBound = %d, want %d", got, tc.bound)
		}
		atBound := k.DeepCopy()
		atBound.Name = strings.Repeat("n", NameBound(k))
		if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), atBound); err != nil {
			t.Fatalf("name at the bound rejected: %v", err)
		}
		over := atBound.DeepCopy()
		over.Name += "n"
		if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), over); err == nil || err.Error() != tc.msg(len(over.Name)) {
			t.Fatalf("name over the bound: %v", err)
		}
		generated := k.DeepCopy()
		generated.Name, generated.GenerateName = "", strings.Repeat("g", NameBound(k)-4)
		if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), generated); err == nil {
			t.Fatal("generateName plus 5 random characters over the bound must be rejected")
		}
		generated.GenerateName = generated.GenerateName[1:]
		if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), generated); err != nil {
			t.Fatalf("generateName plus 5 random characters at the bound rejected: %v", err)
		}
	}
	// 64 bytes with an account: both the label and the field-manager bound.
	both := ksFixture(strings.Repeat("n", 64))
	if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), both); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf(MsgNameNotLabelValue, 64)) || !strings.Contains(err.Error(), "128-byte fieldManager limit") {
		t.Fatalf("a 64-byte name with an account: %v", err)
	}
	// Endpoint URLs: Keystone's 225 characters.
	url := func(n int) string { return "https://a/" + strings.Repeat("p", n-len("https://a/")) }
	for n, ok := range map[int]bool{225: true, 226: false} {
		k := ksFixture("workflow")
		k.Spec.Catalog.Endpoints = []v1.KeystoneServiceEndpointSpec{{Interface: "public", URL: url(n)}}
		_, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), k)
		if ok != (err == nil) {
			t.Errorf("a %d-character endpoint URL: %v", n, err)
		}
	}
	// The child-name bound still reports when a name passes 253 bytes.
	huge := ksFixture(strings.Repeat("n", 240))
	if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), huge); err == nil || !strings.Contains(err.Error(), "over the 253-byte object name limit") {
		t.Fatalf("a 240-byte name: %v", err)
	}
	// A CR stored before the bound can still lose its finalizer.
	stored := ksFixture(strings.Repeat("n", 80))
	stored.Finalizers = []string{v1.FinalizerKeystoneServiceTeardown}
	released := stored.DeepCopy()
	released.Finalizers = nil
	if _, err := (KeystoneServiceValidator{}).ValidateUpdate(context.Background(), stored, released); err != nil {
		t.Fatalf("finalizer removal of a CR stored with an 80-byte name: %v", err)
	}

	mirror := []struct {
		name   string
		mutate func(*v1.KeystoneService)
		want   string
	}{
		{"no block", func(k *v1.KeystoneService) { k.Spec.Catalog, k.Spec.Account = nil, nil }, v1.MsgKeystoneServiceNoBlock},
		{"identity", func(k *v1.KeystoneService) { k.Spec.Catalog.ServiceType = "identity" }, v1.MsgServiceTypeIdentity},
		{"service type pattern", func(k *v1.KeystoneService) { k.Spec.Catalog.ServiceType = "Image" }, "spec.catalog.serviceType must be"},
		{"url scheme", func(k *v1.KeystoneService) {
			k.Spec.Catalog.Endpoints = []v1.KeystoneServiceEndpointSpec{{Interface: "public", URL: "ftp://x"}}
		}, "spec.catalog.endpoints[0].url"},
		{"duplicate interface", func(k *v1.KeystoneService) {
			k.Spec.Catalog.Endpoints = []v1.KeystoneServiceEndpointSpec{{Interface: "public", URL: "https://a"}, {Interface: "public", URL: "https://b"}}
		}, "duplicate interface"},
		{"role cap", func(k *v1.KeystoneService) {
			k.Spec.Account.Roles = make([]v1.KeystoneName, 33)
			for i := range k.Spec.Account.Roles {
				k.Spec.Account.Roles[i] = v1.KeystoneName(fmt.Sprintf("r%d", i))
			}
		}, "at most 32 entries"},
		{"project name cap", func(k *v1.KeystoneService) { k.Spec.Account.Project.Name = v1.KeystoneName(strings.Repeat("p", 65)) }, "spec.account.project.name must be 1 to 64"},
		{"user name comma", func(k *v1.KeystoneService) { k.Spec.Account.UserName = "a,b" }, "spec.account.userName must be 1 to 255"},
		{"user name NUL", func(k *v1.KeystoneService) { k.Spec.Account.UserName = "svc\x00" }, "spec.account.userName must be 1 to 255"},
		{"user name bidi override", func(k *v1.KeystoneService) { k.Spec.Account.UserName = "svc\u202E" }, "spec.account.userName must be 1 to 255"},
		{"domain name bidi isolate", func(k *v1.KeystoneService) { k.Spec.Account.DomainName = "\u2067dom" }, "spec.account.domainName must be 1 to 64"},
	}
	for _, tt := range mirror {
		k := ksFixture("workflow")
		tt.mutate(k)
		if _, err := (KeystoneServiceValidator{}).ValidateCreate(context.Background(), k); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: want %q, got %v", tt.name, tt.want, err)
		}
	}
}

// TestKeystoneServiceDefaulter_PatchesOnlyUserName guards the served
// defaulter: decoding into Go types and marshalling back must not add empty
// required fields (it once turned "Required value" into a MinLength error).
func TestKeystoneServiceDefaulter_PatchesOnlyUserName(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	h := admission.WithDefaulter(scheme, KeystoneServiceDefaulter{})
	raw := []byte(`{"apiVersion":"c5c3.io/v1alpha1","kind":"KeystoneService","metadata":{"name":"wf","namespace":"ns"},` +
		`"spec":{"catalog":{"endpoints":[{"interface":"public"}]},"account":{"roles":["service"]}}}`)
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
	}})
	if !resp.Allowed {
		t.Fatalf("denied: %v", resp.Result)
	}
	var paths []string
	for _, p := range resp.Patches {
		paths = append(paths, p.Operation+" "+p.Path)
	}
	if len(paths) != 1 || paths[0] != "add /spec/account/userName" {
		t.Fatalf("patches = %v, want only add /spec/account/userName", paths)
	}
}

// TestKeystoneServiceValidator_WarnsOnAdopt: turning an adopt switch on
// returns an admission warning saying what is taken over and that the
// KeystoneService's deletion deletes it; leaving it on is silent.
func TestKeystoneServiceValidator_WarnsOnAdopt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ks := &v1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "openstack"},
		Spec: v1.KeystoneServiceSpec{ControlPlaneRef: v1.ControlPlaneRefSpec{Name: "cp"},
			Catalog: &v1.KeystoneServiceCatalogSpec{ServiceType: "workflow", Adopt: true},
			Account: &v1.KeystoneServiceAccountSpec{UserName: "wf", Adopt: true, Project: v1.ServiceAccountProjectSpec{Name: "p"}}}}
	w, _ := KeystoneServiceValidator{}.ValidateCreate(ctx, ks)
	if len(w) != 2 || !strings.Contains(w[0], `unmanaged Keystone user "wf"`) || !strings.Contains(w[1], `of type "workflow"`) {
		t.Fatalf("create warnings %q", w)
	}
	if w, _ := (KeystoneServiceValidator{}).ValidateUpdate(ctx, ks, ks.DeepCopy()); len(w) != 0 {
		t.Errorf("an update leaving adopt on warned: %q", w)
	}
	off := ks.DeepCopy()
	off.Spec.Account.Adopt, off.Spec.Catalog.Adopt = false, false
	if w, _ := (KeystoneServiceValidator{}).ValidateUpdate(ctx, off, ks); len(w) != 2 {
		t.Errorf("turning adopt on: warnings %q", w)
	}
	if w, _ := (KeystoneServiceValidator{}).ValidateCreate(ctx, off); len(w) != 0 {
		t.Errorf("no adopt: warnings %q", w)
	}
}
