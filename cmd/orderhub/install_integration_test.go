//go:build integration

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/orderhub/internal/testenv"
)

func yamlMarshal(v any) ([]byte, error) { return yaml.Marshal(v) }

// TestIntegration_InstallManifests_AcceptedByAPIServer applies what the chart
// (defaults, and with the optional parts on) and config/default render to a
// real kube-apiserver as a server-side dry run, so the API server's own
// validation (field values, names, RBAC rules, webhook configurations)
// passes on every object. cert-manager and Prometheus Operator kinds are left
// out: their CRDs are not installed here.
func TestIntegration_InstallManifests_AcceptedByAPIServer(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "orderhub-system"}}); err != nil {
		t.Fatal(err)
	}
	kubectl := filepath.Join(os.Getenv("ORDERHUB_K8S_DIR"), "kubectl")

	helmOut := func(sets ...string) []byte {
		args := []string{"template", "rel", chartDir, "--namespace", "orderhub-system"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(helmBin(t), args...).Output()
		if err != nil {
			t.Fatalf("helm %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	kustomized, err := exec.Command(kubectl, "kustomize", "../../config/default").Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v", err)
	}
	for name, manifests := range map[string][]byte{
		"chart defaults": helmOut(),
		"chart, optional parts on": helmOut("hub.replicas=2,targetCluster.enabled=true,hub.hostNetwork=true,hub.targetClusters.enabled=true," +
			"identity.tls.caSecret=ca,topology.rabbitmq.tls.caSecret=ca,openbao.address=https://openbao:8200,openbao.role=tenant"),
		"chart, cert-manager (without its objects)": helmOut("webhook.certManager.enabled=true,metrics.certManager.enabled=true"),
		"config/default": kustomized,
	} {
		t.Run(name, func(t *testing.T) {
			var docs []string
			for _, o := range parseObjects(t, manifests) {
				if o.Kind == "Certificate" || o.Kind == "Issuer" || o.Kind == "ServiceMonitor" {
					continue
				}
				b, err := yamlMarshal(o.Raw)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, string(b))
			}
			cmd := exec.Command(kubectl, "--kubeconfig", st.Kube.Kubeconfig, "apply", "--server-side", "--dry-run=server",
				"--field-manager=orderhub-test", "-f", "-")
			cmd.Stdin = strings.NewReader(strings.Join(docs, "\n---\n"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("kubectl apply --server-side --dry-run=server: %v\n%s", err, stderr.String())
			}
			if n := strings.Count(string(out), "(server dry run)"); n != len(docs) {
				t.Errorf("%d of %d objects applied:\n%s", n, len(docs), out)
			}
		})
	}
}
