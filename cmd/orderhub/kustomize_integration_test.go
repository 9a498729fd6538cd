//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
)

// TestIntegration_Kustomize_Default renders config/default (what make
// build-installer writes to dist/install.yaml) with the kubectl of the
// stack and checks that every object parses as its type, that the three
// controllers are there with arguments their subcommands accept, and that
// the webhooks call the Service in front of the hub.
func TestIntegration_Kustomize_Default(t *testing.T) {
	dir := os.Getenv("ORDERHUB_K8S_DIR")
	if dir == "" {
		t.Fatal("ORDERHUB_K8S_DIR is not set: run through make (hack/tools.sh env)")
	}
	out, err := exec.Command(filepath.Join(dir, "kubectl"), "kustomize", "../../config/default").Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/default: %v", err)
	}
	objs := parseObjects(t, out)

	bases, _ := filepath.Glob("../../config/crd/bases/*.yaml")
	if n := len(ofKind(objs, "CustomResourceDefinition")); n != len(bases) || n == 0 {
		t.Errorf("%d CRDs, config/crd/bases has %d", n, len(bases))
	}
	deps := ofKind(objs, "Deployment")
	if len(deps) != 3 {
		t.Fatalf("%d Deployments, want hub, identity and topology", len(deps))
	}
	for _, c := range []string{"hub", "identity", "topology"} {
		o := find(objs, "Deployment", "orderhub-"+c)
		if o == nil {
			t.Errorf("no Deployment orderhub-%s", c)
			continue
		}
		d := o.Typed.(*appsv1.Deployment)
		if d.Namespace != "orderhub-system" {
			t.Errorf("%s in namespace %q", d.Name, d.Namespace)
		}
		if sa := d.Spec.Template.Spec.ServiceAccountName; find(objs, "ServiceAccount", sa) == nil {
			t.Errorf("%s: ServiceAccount %q not rendered", d.Name, sa)
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "localhost/orderhub:0.1.0" {
			t.Errorf("%s: image %q", d.Name, img)
		}
		checkArgsParse(t, d)
	}
	svc := find(objs, "Service", "orderhub-hub-webhook")
	if svc == nil || find(objs, "Secret", "orderhub-hub-webhook-cert") == nil {
		t.Fatal("no webhook Service or certificate Secret")
	}
	var n int
	check := func(cc admissionregistrationv1.WebhookClientConfig) {
		n++
		if cc.Service == nil || cc.Service.Name != "orderhub-hub-webhook" || cc.Service.Namespace != "orderhub-system" {
			t.Errorf("webhook client config %+v does not call orderhub-system/orderhub-hub-webhook", cc)
		}
	}
	for _, o := range ofKind(objs, "MutatingWebhookConfiguration") {
		for _, w := range o.Typed.(*admissionregistrationv1.MutatingWebhookConfiguration).Webhooks {
			check(w.ClientConfig)
		}
	}
	for _, o := range ofKind(objs, "ValidatingWebhookConfiguration") {
		for _, w := range o.Typed.(*admissionregistrationv1.ValidatingWebhookConfiguration).Webhooks {
			check(w.ClientConfig)
		}
	}
	if n != 3 || find(objs, "MutatingWebhookConfiguration", "orderhub-hub-mutating") == nil || find(objs, "ValidatingWebhookConfiguration", "orderhub-hub-validating") == nil {
		t.Errorf("%d webhooks; want 3 in orderhub-hub-mutating and orderhub-hub-validating (the hub's flags name them)", n)
	}
	for _, name := range []string{"orderhub-identity", "orderhub-topology", "orderhub-hub-leader-election"} {
		if find(objs, "RoleBinding", name) == nil {
			t.Errorf("no RoleBinding %s", name)
		}
	}
	if find(objs, "ClusterRoleBinding", "orderhub-hub") == nil {
		t.Error("no ClusterRoleBinding orderhub-hub")
	}
}
