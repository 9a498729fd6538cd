//go:build integration

package keystoneproject

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// c5c3Kinds are the kinds docs/gitops.md's argocd-cm gives the health check.
var c5c3Kinds = []string{"KeystoneProject", "KeystoneUser", "KeystoneRoleAssignment", "KeystoneApplicationCredential",
	"KeystoneService", "ControlPlane", "CredentialRotation"}

// healthScript returns the health.lua of c5c3.io/KeystoneProject from the
// argocd-cm of docs/gitops.md, after checking that every c5c3.io kind gets
// the same script.
func healthScript(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "gitops.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: v1\nkind: ConfigMap\n.*?)```").FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/gitops.md has no argocd-cm ConfigMap block")
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(m[1], &cm); err != nil {
		t.Fatal(err)
	}
	var custom map[string]struct {
		Health string `json:"health.lua"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["resource.customizations"]), &custom); err != nil {
		t.Fatal(err)
	}
	script := custom["c5c3.io/KeystoneProject"].Health
	for _, k := range c5c3Kinds {
		if c := custom["c5c3.io/"+k]; c.Health == "" || c.Health != script {
			t.Fatalf("argocd-cm gives c5c3.io/%s no or another health.lua", k)
		}
	}
	return script
}

// argoHealth runs script as Argo CD does: obj is the object as JSON decodes
// it, the chunk returns a table with status and message.
func argoHealth(t *testing.T, script string, obj map[string]any) (status, message string) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("health.lua: %v", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health.lua returned %v", L.Get(-1))
	}
	return hs.RawGetString("status").String(), hs.RawGetString("message").String()
}

// toLua converts a JSON-decoded value (unstructured content) to Lua.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		tb := L.NewTable()
		for k, e := range v {
			tb.RawSetString(k, toLua(L, e))
		}
		return tb
	case []any:
		tb := L.NewTable()
		for _, e := range v {
			tb.Append(toLua(L, e))
		}
		return tb
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	}
	panic(fmt.Sprintf("toLua: %T", v))
}

// live reads kp from the apiserver as unstructured content, as Argo CD does.
func live(t *testing.T, kp *c5c3v1alpha1.KeystoneProject) map[string]any {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(c5c3v1alpha1.GroupVersion.WithKind("KeystoneProject"))
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(kp), u); err != nil {
		t.Fatal(err)
	}
	return u.Object
}

// TestArgoCDHealthCheck runs the Argo CD health check of docs/gitops.md
// against KeystoneProjects read from the apiserver while the hub reconciles
// them: Progressing before the hub reports, Healthy at Ready, Degraded at
// ProjectCollision and at NamespaceNotAssigned, naming the reason.
func TestArgoCDHealthCheck(t *testing.T) {
	script := healthScript(t)
	if st, _ := argoHealth(t, script, map[string]any{"metadata": map[string]any{"generation": int64(1)}}); st != "Progressing" {
		t.Fatalf("an object without status is %s", st)
	}

	ok := order(tenantNS, "argocd-healthy", "", "")
	create(t, ok)
	waitForReason(t, ok, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if st, msg := argoHealth(t, script, live(t, ok)); st != "Healthy" {
		t.Fatalf("a Ready project is %s (%s)", st, msg)
	}

	pre, err := projects.Create(context.Background(), identity, projects.CreateOpts{Name: "argocd-foreign",
		DomainID: defaultDomainID(t)}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = projects.Delete(context.Background(), identity, pre.ID).ExtractErr() })
	collides := order(tenantNS, "argocd-collides", "argocd-foreign", "")
	create(t, collides)
	waitForReason(t, collides, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonProjectCollision)
	if st, msg := argoHealth(t, script, live(t, collides)); st != "Degraded" || !strings.Contains(msg, "ProjectCollision") {
		t.Fatalf("a colliding project is %s (%s)", st, msg)
	}

	frozen := order(unassignedNS, "argocd-frozen", "", "")
	create(t, frozen)
	waitForReason(t, frozen, c5c3v1alpha1.ConditionProjectReady, c5c3v1alpha1.ReasonNamespaceNotAssigned)
	if st, msg := argoHealth(t, script, live(t, frozen)); st != "Degraded" || !strings.Contains(msg, "NamespaceNotAssigned") {
		t.Fatalf("a frozen project is %s (%s)", st, msg)
	}
	for _, kp := range []*c5c3v1alpha1.KeystoneProject{ok, collides, frozen} {
		if err := kube.Delete(context.Background(), kp); err != nil {
			t.Fatal(err)
		}
		waitGone(t, kp)
	}
}
