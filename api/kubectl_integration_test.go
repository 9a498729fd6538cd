//go:build integration

package api_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/c5c3/orderhub/internal/testenv"
)

// listURL matches the list request kubectl sends for each resource it
// resolved a name to (-v=6 logs every request), capturing group (empty for
// the core group) and plural.
var listURL = regexp.MustCompile(`/(?:api|apis/([a-z0-9.-]+))/v[0-9a-z]+/([a-z]+)\?limit=`)

// TestIntegration_Kubectl_ShortNamesAndCategory installs our CRDs beside
// K-ORC's, External Secrets' and the messaging-topology-operator's into a
// real kube-apiserver and asks kubectl: each of our shortNames resolves to
// its own kind only, and the category orderhub to exactly our kinds. It also
// reads the server's discovery and fails on a served name the peers list of
// kubectl_names_test.go lacks, so that list cannot fall behind the server.
func TestIntegration_Kubectl_ShortNamesAndCategory(t *testing.T) {
	paths := []string{filepath.Join("..", "config", "crd", "bases")}
	for _, env := range []string{"ORDERHUB_KORC_DIR", "ORDERHUB_ESO_DIR", "ORDERHUB_MTO_DIR"} {
		dir := os.Getenv(env)
		if dir == "" {
			t.Fatalf("%s is not set: run through make (hack/tools.sh env), after hack/tools.sh korc eso mto", env)
		}
		paths = append(paths, filepath.Join(dir, "crds"))
	}
	st := testenv.ForTest(t, testenv.Options{Kube: true, CRDPaths: paths})
	kubectl := filepath.Join(os.Getenv("ORDERHUB_K8S_DIR"), "kubectl")
	cacheDir := t.TempDir()
	resolve := func(name string) []string {
		t.Helper()
		cmd := exec.Command(kubectl, "--kubeconfig", st.Kube.Kubeconfig, "--cache-dir", cacheDir, "get", name, "-A", "-o", "name", "-v=6")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl get %s: %v\n%s", name, err, out)
		}
		var got []string
		for _, m := range listURL.FindAllStringSubmatch(string(out), -1) {
			got = append(got, strings.TrimSuffix(m[2]+"."+m[1], "."))
		}
		slices.Sort(got)
		return slices.Compact(got)
	}

	var ours []string
	for _, crd := range loadOurCRDs(t) {
		ours = append(ours, crd.Name)
		for _, s := range crd.Spec.Names.ShortNames {
			if got := resolve(s); !slices.Equal(got, []string{crd.Name}) {
				t.Errorf("kubectl get %s lists %v, want %s", s, got, crd.Name)
			}
		}
	}
	slices.Sort(ours)
	if got := resolve(ourCategory); !slices.Equal(got, ours) {
		t.Errorf("kubectl get %s lists\n%v\nwant\n%v", ourCategory, got, ours)
	}
	checkPeersListed(t, st.Kube.Config)
}

// checkPeersListed fails on a name or category the server serves for a
// resource outside our groups that the peers list does not hold.
func checkPeersListed(t *testing.T, cfg *rest.Config) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, p := range peers {
		for _, n := range append(slices.Clone(p.names), p.categories...) {
			known[n] = true
		}
	}
	var missing []string
	for _, l := range lists {
		group, _, _ := strings.Cut(l.GroupVersion, "/")
		if ourGroups[group] {
			continue
		}
		for _, r := range l.APIResources {
			for _, n := range append(append([]string{r.Name, r.SingularName}, r.ShortNames...), r.Categories...) {
				if n != "" && !known[n] {
					missing = append(missing, n+" ("+l.GroupVersion+")")
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("the peers list of kubectl_names_test.go lacks names the server serves: %s", strings.Join(missing, ", "))
	}
}
