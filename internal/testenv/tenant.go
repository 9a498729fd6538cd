package testenv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EditTenant returns a client of the stack's cluster acting as
// ServiceAccount ns/tenant, bound to the built-in edit ClusterRole in ns
// only and authenticated with its own TokenRequest token (no
// impersonation): what a namespace's editor can do. rolesFile is the
// shipped aggregated ClusterRoles of the order kinds
// (config/rbac/aggregate/order_roles.yaml), created through admin first;
// it waits up to timeout until edit aggregates them. Several tests may act
// as the same tenant.
func (s *Stack) EditTenant(t *testing.T, admin client.Client, rolesFile, ns string, timeout time.Duration) client.Client {
	t.Helper()
	ctx := context.Background()
	createOrderRoles(t, admin, rolesFile)
	Eventually(t, timeout, "edit aggregates keystoneusers create", func() error {
		var r rbacv1.ClusterRole
		if err := admin.Get(ctx, types.NamespacedName{Name: "edit"}, &r); err != nil {
			return err
		}
		for _, rule := range r.Rules {
			if slices.Contains(rule.Resources, "keystoneusers") && slices.Contains(rule.Verbs, "create") {
				return nil
			}
		}
		return errors.New("not yet")
	})
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"}}
	for _, o := range []client.Object{sa, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant-edit"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}}}} {
		if err := admin.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(sa), sa); err != nil {
		t.Fatal(err)
	}
	tr := &authenticationv1.TokenRequest{}
	if err := admin.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: s.Kube.Config.Host, BearerToken: tr.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.Kube.Config.CAData}}
	c, err := client.New(cfg, client.Options{Scheme: admin.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createOrderRoles creates the ClusterRoles of rolesFile (a YAML stream)
// unless they exist.
func createOrderRoles(t *testing.T, admin client.Client, rolesFile string) {
	t.Helper()
	b, err := os.ReadFile(rolesFile)
	if err != nil {
		t.Fatal(err)
	}
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var r rbacv1.ClusterRole
		if err := d.Decode(&r); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		if err := admin.Create(context.Background(), &r); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}
