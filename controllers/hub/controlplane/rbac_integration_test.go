//go:build integration

package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// orderRolesFile is the shipped aggregated ClusterRoles of the order kinds.
const orderRolesFile = "../../../config/rbac/aggregate/order_roles.yaml"

// applyOrderRoles creates the ClusterRoles of orderRolesFile.
func applyOrderRoles(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(orderRolesFile)
	if err != nil {
		t.Fatal(err)
	}
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var r rbacv1.ClusterRole
		if err := d.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := kube.Create(context.Background(), &r); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// waitAggregated waits until the default ClusterRole role grants verb on
// resource in c5c3.io (the clusterrole-aggregation controller folded the
// labelled roles in).
func waitAggregated(t *testing.T, role, resource, verb string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("ClusterRole %s aggregates %s %s", role, verb, resource), func() error {
		var r rbacv1.ClusterRole
		if err := kube.Get(context.Background(), types.NamespacedName{Name: role}, &r); err != nil {
			return err
		}
		for _, rule := range r.Rules {
			if slices.Contains(rule.APIGroups, c5c3v1alpha1.GroupVersion.Group) && slices.Contains(rule.Resources, resource) &&
				slices.Contains(rule.Verbs, verb) {
				return nil
			}
		}
		return errors.New("not yet")
	})
}

// serviceAccountClient returns a client acting as ServiceAccount ns/name
// bound to the default ClusterRole role in ns (a RoleBinding; the stack's
// admin impersonates the ServiceAccount's user name).
func serviceAccountClient(t *testing.T, ns, name, role string) client.Client {
	t.Helper()
	mustCreate(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	mustCreate(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}}})
	cfg := rest.CopyConfig(stack.Kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestIntegration_NamespaceAdminsOrderButNeverRunPlanesOrRegistrations: with
// the shipped aggregated ClusterRoles, a ServiceAccount bound to admin in its
// namespace may create a KeystoneProject there, and is Forbidden to create a
// ControlPlane or a KeystoneService (both operator-only:
// docs/reference/controlplane.md, "Who may create which kind"); one bound
// to view reads the orders and may create none.
func TestIntegration_NamespaceAdminsOrderButNeverRunPlanesOrRegistrations(t *testing.T) {
	ctx := context.Background()
	const ns = "rbac-tenant"
	mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	applyOrderRoles(t)
	waitAggregated(t, "admin", "keystoneprojects", "create")
	waitAggregated(t, "edit", "keystoneprojects", "create")
	waitAggregated(t, "view", "keystoneprojects", "list")

	admin := serviceAccountClient(t, ns, "ns-admin", "admin")
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team-project"},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}}}
	if err := admin.Create(ctx, kp); err != nil {
		t.Fatalf("a namespace admin creating a KeystoneProject: %v", err)
	}
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own-plane"},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
			Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "http://127.0.0.1:1/v3"}}}}}
	if err := admin.Create(ctx, cp); !apierrors.IsForbidden(err) {
		t.Errorf("a namespace admin creating a ControlPlane: %v, want Forbidden", err)
	}
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own-service"},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "p"}}}}
	if err := admin.Create(ctx, ks); !apierrors.IsForbidden(err) {
		t.Errorf("a namespace admin creating a KeystoneService: %v, want Forbidden", err)
	}

	viewer := serviceAccountClient(t, ns, "ns-viewer", "view")
	var list c5c3v1alpha1.KeystoneProjectList
	if err := viewer.List(ctx, &list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
		t.Errorf("a viewer listing KeystoneProjects: %d, %v", len(list.Items), err)
	}
	other := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer-project"}, Spec: kp.Spec}
	if err := viewer.Create(ctx, other); !apierrors.IsForbidden(err) {
		t.Errorf("a viewer creating a KeystoneProject: %v, want Forbidden", err)
	}
}
