//go:build integration

package identity

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// Admission of the federation kinds: the Keystone ID (and a Protocol's
// identity provider, an IdentityProvider's domain) cannot change, and a
// Mapping or Protocol whose metadata.name is no valid ID needs spec.id
// (docs/identity.md, "Federation").
func TestFederationAdmission(t *testing.T) {
	ctx := context.Background()
	common := kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "validation-only"}} // no Keystone calls
	sfx := kname(uniq(t, "fedadm"))
	rules := []apiextensionsv1.JSON{{Raw: json.RawMessage(`{"local": [], "remote": []}`)}}
	updates := []struct {
		name   string
		obj    client.Object
		mutate func(client.Object)
		want   string // "" accepted
	}{
		{"identity provider id", &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: "i1-" + sfx}, Spec: kv1.IdentityProviderSpec{CommonSpec: common}},
			func(o client.Object) { o.(*kv1.IdentityProvider).Spec.ID = "other" }, "spec.id is immutable"},
		{"identity provider domain", &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: "i2-" + sfx}, Spec: kv1.IdentityProviderSpec{CommonSpec: common, Domain: "a"}},
			func(o client.Object) { o.(*kv1.IdentityProvider).Spec.Domain = "b" }, "spec.domain is immutable"},
		{"identity provider description", &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: "i3-" + sfx}, Spec: kv1.IdentityProviderSpec{CommonSpec: common}},
			func(o client.Object) { o.(*kv1.IdentityProvider).Spec.Description = "new" }, ""},
		{"mapping id", &kv1.Mapping{ObjectMeta: metav1.ObjectMeta{Name: "m1-" + sfx}, Spec: kv1.MappingSpec{CommonSpec: common, Rules: rules}},
			func(o client.Object) { o.(*kv1.Mapping).Spec.ID = "other" }, "spec.id is immutable"},
		{"protocol identity provider", &kv1.Protocol{ObjectMeta: metav1.ObjectMeta{Name: "p1-" + sfx}, Spec: kv1.ProtocolSpec{CommonSpec: common, IdentityProvider: "a", Mapping: "m"}},
			func(o client.Object) { o.(*kv1.Protocol).Spec.IdentityProvider = "b" }, "spec.id and spec.identityProvider are immutable"},
		{"protocol mapping", &kv1.Protocol{ObjectMeta: metav1.ObjectMeta{Name: "p2-" + sfx}, Spec: kv1.ProtocolSpec{CommonSpec: common, IdentityProvider: "a", Mapping: "m"}},
			func(o client.Object) { o.(*kv1.Protocol).Spec.Mapping = "n" }, ""},
		{"service provider id", &kv1.ServiceProvider{ObjectMeta: metav1.ObjectMeta{Name: "s1-" + sfx},
			Spec: kv1.ServiceProviderSpec{CommonSpec: common, AuthURL: "https://a/auth", SPURL: "https://a/ecp"}},
			func(o client.Object) { o.(*kv1.ServiceProvider).Spec.ID = "other" }, "spec.id is immutable"},
	}
	for _, tc := range updates {
		t.Run(tc.name, func(t *testing.T) {
			tc.obj.SetNamespace(testNS)
			mustCreate(t, tc.obj)
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				if err := k8s.Get(ctx, client.ObjectKeyFromObject(tc.obj), tc.obj); err != nil {
					return err
				}
				tc.mutate(tc.obj)
				return k8s.Update(ctx, tc.obj)
			})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error = %v, want Invalid mentioning %q", err, tc.want)
			}
		})
	}
	t.Run("mapping named with a dot needs spec.id", func(t *testing.T) {
		m := &kv1.Mapping{ObjectMeta: metav1.ObjectMeta{Name: "m." + sfx, Namespace: testNS}, Spec: kv1.MappingSpec{CommonSpec: common, Rules: rules}}
		err := k8s.Create(ctx, m)
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "set spec.id") {
			t.Fatalf("error = %v, want Invalid mentioning spec.id", err)
		}
		m.Spec.ID = "m-" + sfx
		mustCreate(t, m)
	})
}
