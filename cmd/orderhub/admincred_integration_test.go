//go:build integration

package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestIntegration_Identity_AdminCredentials runs `orderhub identity` with
// each admin credential an openrc configures besides a password: an
// application credential of the admin (by ID; by name with its user) and a
// token of the admin (used as it is; scoped to a project with OS_AUTH_TYPE
// v3token). With each, a Project becomes Ready and exists in Keystone. An
// openrc missing the application credential's secret stops the start with an
// error naming OS_APPLICATION_CREDENTIAL_SECRET.
func TestIntegration_Identity_AdminCredentials(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true, Keystone: true})
	c := keystoneClient(t, st)
	ctx := context.Background()
	k := st.Keystone
	admin, err := keystone.NewSession(ctx, keystone.ConfigFromEnv(envLookupOf(k.Env())))
	if err != nil {
		t.Fatal(err)
	}
	ac, err := applicationcredentials.Create(ctx, admin.Identity, admin.UserID,
		applicationcredentials.CreateOpts{Name: "orderhub-admin"}).Extract()
	if err != nil {
		t.Fatalf("create an application credential for the admin: %v", err)
	}
	tok := admin.Identity.ProviderClient.Token()
	if tok == "" {
		t.Fatal("the admin session holds no token")
	}
	url := "OS_AUTH_URL=" + k.URL
	cases := []struct {
		name string
		env  []string
	}{
		{"appcred-id", []string{url, "OS_AUTH_TYPE=v3applicationcredential", "OS_APPLICATION_CREDENTIAL_ID=" + ac.ID,
			"OS_APPLICATION_CREDENTIAL_SECRET=" + ac.Secret}},
		{"appcred-name", []string{url, "OS_APPLICATION_CREDENTIAL_NAME=" + ac.Name, "OS_APPLICATION_CREDENTIAL_SECRET=" + ac.Secret,
			"OS_USERNAME=" + k.AdminUser, "OS_USER_DOMAIN_NAME=" + k.AdminUserDomain}},
		{"token", []string{url, "OS_TOKEN=" + tok}},
		{"token-scoped", []string{url, "OS_AUTH_TYPE=v3token", "OS_TOKEN=" + tok,
			"OS_PROJECT_NAME=" + k.AdminProject, "OS_PROJECT_DOMAIN_NAME=" + k.AdminProjectDomain}},
	}
	bin := orderhubBinary(t)
	var ps []*kv1.Project
	for _, tc := range cases {
		ns := "admin-" + tc.name
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		startIdentityProcess(t, st, bin, "orderhub-identity-"+tc.name, ns, tc.env, "--leader-elect=false")
		p := &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns}, Spec: kv1.ProjectSpec{Name: "by-" + tc.name}}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		testenv.Eventually(t, 2*time.Minute, "Project "+p.Namespace+"/"+p.Name+" Ready", projectReady(c, p))
		got, err := projects.Get(ctx, admin.Identity, p.Status.ProjectID).Extract()
		if err != nil || got.Name != p.Spec.Name {
			t.Errorf("project %s in Keystone: %v (%v), want %s", p.Status.ProjectID, got, err, p.Spec.Name)
		}
	}

	// The error names the missing variable.
	cmd := exec.Command(bin, "identity", "--namespace=admin-appcred-id", "--leader-elect=false", "--health-probe-bind-address=0")
	cmd.Env = []string{"KUBECONFIG=" + st.Kube.Kubeconfig, url, "OS_APPLICATION_CREDENTIAL_ID=" + ac.ID}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no application credential secret (OS_APPLICATION_CREDENTIAL_SECRET)") {
		t.Errorf("without the secret: %v, output %q; want a failed start naming OS_APPLICATION_CREDENTIAL_SECRET", err, out)
	}
}

func projectReady(c client.Client, p *kv1.Project) func() error {
	return func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(p), p); err != nil {
			return err
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == kv1.ConditionReady {
				if cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == p.Generation && p.Status.ProjectID != "" {
					return nil
				}
				return fmt.Errorf("Ready = %s: %s", cond.Status, cond.Message)
			}
		}
		return fmt.Errorf("no Ready condition")
	}
}
